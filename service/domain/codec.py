"""How the service's own events are stored: a JSON object of the event's ``type`` and its members, read back checked.

Five aggregates store their events so: a game's lobby (:mod:`service.domain.lobby`), a challenge
(:mod:`service.domain.challenges`), a quick-match pool (:mod:`service.domain.matchmaking`), a player's calendar
(:mod:`service.domain.calendars`) and a tournament (:mod:`service.domain.tournaments`).  Each of their events is a
frozen dataclass with a ``type``; each aggregate says once, member by member, the form its events are stored in
(:class:`Events` of :class:`Members`), and this module writes and reads them all by the same rules.  It replaces four
hand-written codecs that had drifted apart.

Why a reader checks at all.  A stream may come from an imported file, or from a Redis somebody edited, and a fold
trusts what it is given: a value no event of ours could hold is :class:`~engine.CorruptHistory` here, where the
member is named, not a ``TypeError`` three calls later or a guess.  So values are read by their JSON type and never
coerced (the pools once took whatever ``str()`` and ``int()`` made of a value: ``null`` read as the text "None").
Members nobody reads (the envelope's ``at``, ``by``, ``v``) are let be.

**Empty text.**  The lobby and the calendars read ``""`` as a text, challenges refused it, the pools took it.  The
rule now, for every aggregate: a text member is not empty, unless its form says it may be (``Text(empty=True)``).
What the service writes in a text member is an id it made (``p_…``, ``g_…``, ``mt_…``: never empty), a player's
name (1 to 40 characters by the one rule for names, :func:`service.domain.game.name_problem`, since the first
release), a time, a zone or a level; an imported replay is held to the same rules before it is stored
(:mod:`replays.shape`).  So no stored event of ours holds an empty one, and one that does is not ours: an empty id
would name a seat that is neither open nor anyone's, or a rematch game ``""``.  The one text that may be empty is a
game's join code, which the first games' ``game_created`` could lack (read as ``""``).
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import fields
from datetime import datetime
from typing import Any, ClassVar, Generic, Protocol, TypeVar, cast

from engine import CorruptHistory

T = TypeVar("T")
V = TypeVar("V")


class Stored(Protocol):
    """An event of ours: a dataclass whose class says its ``type``."""

    type: ClassVar[str]


E = TypeVar("E", bound=Stored)


def _kind(value: object) -> str:
    return "null" if value is None else type(value).__name__


class Form(ABC, Generic[T]):
    """How one member is stored: :meth:`write` a value as JSON holds it; :meth:`read` it back, checked."""

    @abstractmethod
    def read(self, value: object, where: str) -> T:
        """The value a stored member holds; :class:`~engine.CorruptHistory` naming ``where`` if it holds none."""

    def write(self, value: T) -> Any:
        return value


class Text(Form[str]):
    """Text; not empty unless ``empty`` (the module says why)."""

    def __init__(self, *, empty: bool = False) -> None:
        self.empty = empty

    def read(self, value: object, where: str) -> str:
        if not isinstance(value, str):
            raise CorruptHistory(f"{where} must be text, not {_kind(value)}")
        if not value and not self.empty:
            raise CorruptHistory(f"{where} must be text, not empty")
        return value


class Integer(Form[int]):
    """A JSON integer (never ``true`` or ``1.0``), at least ``least`` if given."""

    def __init__(self, least: int | None = None) -> None:
        self.least = least

    def read(self, value: object, where: str) -> int:
        if type(value) is not int or (self.least is not None and value < self.least):
            floor = "" if self.least is None else f", {self.least} or more"
            raise CorruptHistory(f"{where} must be a whole number{floor}, not {value!r}")
        return value


#: A count, a seat, a seed: 0 or more.
WHOLE = Integer(0)


class Flag(Form[bool]):
    def read(self, value: object, where: str) -> bool:
        if not isinstance(value, bool):
            raise CorruptHistory(f"{where} must be true or false, not {value!r}")
        return value


class OneOf(Form[V]):
    """One of ``allowed``, of the same JSON type (``true`` is not ``1``)."""

    def __init__(self, allowed: Sequence[V]) -> None:
        self.allowed = tuple(allowed)

    def read(self, value: object, where: str) -> V:
        for allowed in self.allowed:
            if type(value) is type(allowed) and value == allowed:
                return allowed
        raise CorruptHistory(f"{where} must be one of {', '.join(map(str, self.allowed))}, not {value!r}")


class Time(Form[str]):
    """A time as the service writes it (ISO 8601, ``…Z``), kept as its text."""

    def read(self, value: object, where: str) -> str:
        text = Text().read(value, where)
        try:
            datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            raise CorruptHistory(f"{where} is not a time: {text!r}") from None
        return text


class Nullable(Form[V | None]):
    """``null`` (or absent) for ``None``, else ``form``."""

    def __init__(self, form: Form[V]) -> None:
        self.form = form

    def read(self, value: object, where: str) -> V | None:
        return None if value is None else self.form.read(value, where)

    def write(self, value: V | None) -> Any:
        return None if value is None else self.form.write(value)


class Many(Form[tuple[V, ...]]):
    """A tuple, stored as a list of ``least`` to ``most`` items of ``form``."""

    def __init__(self, form: Form[V], *, least: int = 0, most: int | None = None) -> None:
        self.form, self.least, self.most = form, least, most

    def read(self, value: object, where: str) -> tuple[V, ...]:
        if not isinstance(value, list) or len(value) < self.least or (self.most is not None and len(value) > self.most):
            count = f"{self.least} or more" if self.most is None else f"{self.least} to {self.most}"
            raise CorruptHistory(f"{where} must be a list of {count}, not {value!r:.60}")
        return tuple(self.form.read(item, f"{where}.{n}") for n, item in enumerate(value))

    def write(self, value: tuple[V, ...]) -> Any:
        return [self.form.write(item) for item in value]


class Absent(Form[V]):
    """A member some stored events lack (older ones, imported ones): read as ``default`` when absent (``null`` is no
    absence: ``form`` reads it).  Every other member must be there.

    ``written_when_set``: written only when it is not ``default``, so that what sets none of them is stored as
    it was before they were added (the same bytes).
    """

    def __init__(self, form: Form[V], default: V, *, written_when_set: bool = False) -> None:
        self.form, self.default, self.written_when_set = form, default, written_when_set

    def read(self, value: object, where: str) -> V:
        return self.form.read(value, where)

    def write(self, value: V) -> Any:
        return self.form.write(value)


class Members(Form[T]):
    """A dataclass stored as an object of its members, in the order of its fields, each in its form.

    ``check``: what makes the whole no value of ours (``None``: nothing), for rules across members.
    """

    def __init__(self, cls: type[T], members: Mapping[str, Form[Any]], *, check: Callable[[T], str | None] | None = None) -> None:
        names = [item.name for item in fields(cast(Any, cls))]
        if sorted(names) != sorted(members):
            raise TypeError(f"{cls.__name__}'s stored form names {sorted(members)}, its fields are {sorted(names)}")
        self.cls: Callable[..., T] = cls
        self.members = {name: members[name] for name in names}
        self.check = check

    def read(self, value: object, where: str) -> T:
        if not isinstance(value, dict):
            raise CorruptHistory(f"{where} must be an object, not {_kind(value)}")
        read = {}
        for name, form in self.members.items():
            inside = f"{where}: {name}" if ":" not in where else f"{where}.{name}"
            if name in value:
                read[name] = form.read(value[name], inside)
            elif isinstance(form, Absent):
                read[name] = form.default
            else:
                raise CorruptHistory(f"{inside} is missing")
        made = self.cls(**read)
        problem = self.check(made) if self.check is not None else None
        if problem is not None:
            raise CorruptHistory(f"{where}: {problem}")
        return made

    def write(self, value: T) -> dict[str, Any]:
        stored = {}
        for name, form in self.members.items():
            member = getattr(value, name)
            if isinstance(form, Absent) and form.written_when_set and member == form.default:
                continue
            stored[name] = form.write(member)
        return stored


class Row(Form[T]):
    """A small dataclass stored compactly, as the list of its members in the order of its fields."""

    def __init__(self, cls: type[T], form: Form[Any]) -> None:
        self.cls: Callable[..., T] = cls
        self.names = [item.name for item in fields(cast(Any, cls))]
        self.form = form

    def read(self, value: object, where: str) -> T:
        if not isinstance(value, list) or len(value) != len(self.names):
            raise CorruptHistory(f"{where} must be a list of {len(self.names)}: {', '.join(self.names)}")
        return self.cls(*(self.form.read(item, f"{where}.{name}") for name, item in zip(self.names, value, strict=True)))

    def write(self, value: T) -> list[Any]:
        return [self.form.write(getattr(value, name)) for name in self.names]


class Events(Generic[E]):
    """The events of one aggregate (its ``family``: "lobby", "challenge", ...) and the form each is stored in."""

    def __init__(self, family: str, forms: Sequence[Members[Any]]) -> None:
        self.family = family
        self.by_type: dict[str, Members[E]] = {}
        self.by_class: dict[type, Members[E]] = {}
        for form in forms:
            cls = cast(Any, form.cls)
            self.by_type[cls.type] = form
            self.by_class[cls] = form

    @property
    def types(self) -> frozenset[str]:
        return frozenset(self.by_type)

    def to_dict(self, event: E) -> dict[str, Any]:
        """The event as stored: ``type``, then its members."""
        return {"type": event.type, **self.by_class[type(event)].write(event)}

    def from_dict(self, data: object) -> E:
        """The event a stored object holds, checked member by member."""
        if not isinstance(data, dict):
            raise CorruptHistory(f"a {self.family} event must be an object, not {_kind(data)}")
        kind = data.get("type")
        form = self.by_type.get(kind) if isinstance(kind, str) else None
        if form is None:
            raise CorruptHistory(f"{kind!r} is not a {self.family} event")
        return form.read(data, str(kind))

    def to_json(self, event: E) -> str:
        return dumps(self.to_dict(event))

    def from_json(self, text: str) -> E:
        return self.from_dict(loads(text, f"a {self.family} event"))

    def envelope(self, event: E, *, at: str, by: str, **more: Any) -> str:
        """The stored payload: the event, when it was appended (``at``), who caused it (``by``), and ``more``."""
        return dumps({**self.to_dict(event), "at": at, "by": by, **more})

    def from_envelope(self, payload: str) -> tuple[E, str]:
        """The event a stored payload holds, and when it was appended."""
        data = loads(payload, f"a {self.family} event")
        if not isinstance(data, dict) or not isinstance(data.get("at"), str):
            raise CorruptHistory(f"a {self.family} event must be an object with the time it was appended")
        return self.from_dict(data), data["at"]


def dumps(data: Any) -> str:
    """Compact JSON, as every stream stores it."""
    return json.dumps(data, separators=(",", ":"))


def loads(text: str, what: str) -> Any:
    try:
        return json.loads(text)
    except ValueError as exc:
        raise CorruptHistory(f"not {what}: {exc}") from None
