"""The document's shared vocabulary: named enums, and fields that point at a named component.

Client generators name a type after the schema it comes from: an enum written inline in two places
becomes two unrelated types (``StepType`` and ``LegalStepType``), and a legal step could not be sent
back as a step without a cast.  So every value set the API uses is one named component here (a
:class:`Choice` field refers to it), and :func:`nullable_ref` spells a field that may be null in the
one form both generators we test (openapi-python-client, openapi-typescript) type as ``X | null``.

OpenAPI 3.0 has no null type: ``{"nullable": true}`` only widens a ``type`` beside it, so a nullable
reference is ``anyOf: [{$ref}, NULL]`` where :data:`NULL` admits nothing but null.  (3.1 would say it
directly, but the docs page's Swagger UI 4 reads 3.0 only.)
"""

from __future__ import annotations

from typing import Any

from marshmallow import fields, validate

from engine import ALL_CARDS, Destination, Variant
from engine.cards import COLORS_HIGH_TO_LOW
from engine.events import DrawCause, Effect, Elimination, Finish
from engine.state import Phase
from service.common.texts import LANGUAGES
from service.domain.blocks import CHALLENGE_FROM, TALK_FROM
from service.domain.challenges import ANSWERS, DECLINE_REASONS, STATUSES
from service.domain.lobby import ORIGINS
from service.domain.ratings import LADDERS
from service.domain.reports import ACTIONS as MODERATION_ACTIONS
from service.domain.reports import REASONS as REPORT_REASONS
from service.domain.scopes import SCOPES
from service.domain.talk import PHRASES

#: The schema of null alone (OpenAPI 3.0): the other half of every nullable reference.
NULL: dict[str, Any] = {"type": "object", "nullable": True, "enum": [None]}


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def nullable_ref(name: str, **siblings: Any) -> dict[str, Any]:
    """A reference to component ``name`` or null (``siblings``: description and the like, beside the ``anyOf``)."""
    return {"anyOf": [ref(name), NULL], **siblings}


#: name -> (values, description): every enum of the document, registered as components.schemas by the app.
ENUMS: dict[str, tuple[list[str], str]] = {
    "Card": ([str(c) for c in ALL_CARDS], "A card: colour letter (R O Y G B I V) and number 1-7, weakest (V1) to strongest (R7)"),
    "Color": ([str(c) for c in COLORS_HIGH_TO_LOW], "A colour, strongest first; as a rule, the colour of the canvas's top card"),
    "Language": (
        list(LANGUAGES),
        "A language of the service texts: English, the rulebooks' Polish, Russian, Portuguese; German, French, Spanish, Italian",
    ),
    "StepType": (["play", "discard", "take", "place", "end_turn", "fold"], "What a step of a turn does"),
    "Destination": ([d.value for d in Destination], "Where a 7's action puts a palette card"),
    "Variant": ([v.value for v in Variant], "basic: one round; advanced: rounds scored up to a target, with the discard draw"),
    "GameStatus": (
        ["waiting", "active", "finished", "cancelled", "aborted"],
        "waiting: seats open; cancelled: called off by its creator before it began; aborted: called off by a player "
        "after the deal, before every seat had moved once (no winner, never rated)",
    ),
    "GamePhase": (
        ["waiting", "cancelled", "aborted", "turn", "round_won", "round_scored", "finished"],
        "Where the game stands: a seat's turn, or a round won or scored (a worker scores and deals next)",
    ),
    "Origin": (
        list(ORIGINS),
        "How the game came to be: created directly (direct), listed among the open tables (open_table), a quick match, "
        "an accepted challenge, or a rematch",
    ),
    "ReplayPhase": ([p.value for p in Phase], "The engine's phase after a replay step (not_started: before the deal)"),
    "Dealing": (["random", "seeded", "custom"], "How it was shuffled: seeded (the creator chose the seed), custom (a deck)"),
    "TimeoutAction": (["fold", "ai"], "When a human's turn times out: the seat folds, or a greedy AI plays it"),
    "SeatKind": (["human", "ai"], "Who plays a seat"),
    "DecisionLabel": (["inaccuracy", "mistake", "blunder"], "A decision's drop in win chance: 5, 10 or 15 points and more"),
    "DecisionBy": (
        ["player", "timeout", "ai"],
        "Who decided: the seat's player; its turn's deadline (a fold or an AI's turn); the AI that plays a resigned seat "
        "(these count for no one's accuracy, labels or luck)",
    ),
    "AnalysisStatus": (["queued", "running", "done", "failed"], "Where a decision analysis stands"),
    "AiLevel": (["random", "greedy", "expert"], "How an AI seat plays"),
    "Pending": (["take", "play", "place"], "The action a turn waits for: take (a 1), play (a 5) or place (a 7)"),
    "Effect": ([e.value for e in Effect], "The action a card played to the palette fires (action rules)"),
    "DrawCause": ([c.value for c in DrawCause], "Why a card was drawn: a 3's action, or the draw after a discard"),
    "Elimination": ([e.value for e in Elimination], "Why a seat went out of the round"),
    "Finish": ([f.value for f in Finish], "How the game ended"),
    "ChallengeStatus": (
        list(STATUSES),
        "open: waiting for answers; started: everyone accepted, the game is made; declined; cancelled by the challenger; "
        "expired: still open at its expires_at",
    ),
    "ChallengeAnswer": (list(ANSWERS), "What a challenged player has answered"),
    "ChallengeRole": (["challenger", "challenged"], "Your part in a challenge: you sent it, or it was sent to you"),
    "DeclineReason": (
        list(DECLINE_REASONS),
        "Why a challenged player declines: " + "; ".join(f"{key}: {text}" for key, text in DECLINE_REASONS.items()),
    ),
    "Ladder": (list(LADDERS), "A ladder: the rated games of one variant (the action rules share their variant's)"),
    "RatingNotCounted": (
        ["no_established_opponent", "pair_limit"],
        "Why a rated game did not move a player's rating: none of their opponents had an established rating (AI levels "
        "always do), or the only ones who had were people they had already played 3 counted games with in the 24 hours "
        "before",
    ),
    "BlockListKind": (["blocks", "mutes"], "A player's list of others: those they blocked, those they muted"),
    "ChallengeFrom": (
        list(CHALLENGE_FROM),
        "Who may challenge you: everyone; played: those who have finished a game with you; nobody",
    ),
    "Scope": (list(SCOPES), "What a token may do (docs/tokens.md): each operation names the scope it needs"),
    "TalkFrom": (list(TALK_FROM), "Who may talk to you at a table: your opponents there, everyone, nobody"),
    "TalkPhrase": (list(PHRASES), "A preset phrase at a table, shown in each reader's language"),
    "ReportReason": (list(REPORT_REASONS), "Why a player is reported"),
    "ModeratorAction": (
        list(MODERATION_ACTIONS),
        "What a moderator decides: dismiss (a report only: no action), warn, rename, mute, suspend, ban, unban",
    ),
    "LiveGameOrder": (
        ["rating", "watchers"],
        "The order of the live games: the highest rated first (their seated players' mean), or the most watched first",
    ),
    "ViewerTheme": (["light", "dark"], "The replay viewer's colours: light or dark"),
    "OEmbedFormat": (["json", "xml"], "An oEmbed answer's format: json is served; xml is answered 501, as the spec says"),
    "MatchTicketStatus": (
        ["waiting", "matched", "cancelled", "expired"],
        "A quick-match ticket: waiting for a table, matched (game_id is the game), cancelled by its player, or expired",
    ),
}


class Choice(fields.String):
    """A string from the named enum ``ENUMS[component]``; the document refers to the component."""

    def __init__(self, component: str, *, error: str | None = None, **kwargs: Any) -> None:
        self.component = component
        super().__init__(validate=validate.OneOf(ENUMS[component][0], error=error), **kwargs)


class Ref(fields.Raw):
    """A value documented by a component the marshmallow schemas do not describe (a union, say), loaded as it is."""

    def __init__(self, component: str, **kwargs: Any) -> None:
        self.component = component
        super().__init__(**kwargs)


class Null(fields.Raw):
    """A member that is always null (documented as :data:`NULL`)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(allow_none=True, **kwargs)


#: Keys the converter may put beside a reference (all but type, format and enum, which the component holds).
_SIBLINGS = ("description", "default", "example", "readOnly", "writeOnly", "deprecated")


def named_components(converter: Any, field: fields.Field[Any], ret: dict[str, Any], **_: Any) -> dict[str, Any]:
    """apispec attribute function (bound to the ``converter``), run last: :class:`Choice` and :class:`Ref` fields as
    references, and every nullable field in a form generators type (this replaces apispec's ``field2nullable``, whose
    ``anyOf: [{type: object, nullable: true}, {$ref}]`` made generators type a nullable object as an untyped one).
    """
    if isinstance(field, Null):
        siblings = {k: ret[k] for k in _SIBLINGS if k in ret}
        ret.clear()
        ret.update(NULL, **siblings)
        return {}
    component = getattr(field, "component", None)
    if component is not None:
        siblings = {k: ret[k] for k in _SIBLINGS if k in ret}
        ret.clear()
        if field.allow_none:
            ret.update(nullable_ref(component, **siblings))
        elif siblings:
            ret.update(allOf=[ref(component)], **siblings)
        else:
            ret.update(ref(component))
        return {}
    if not field.allow_none:
        return {}
    if "$ref" in ret:
        ret["anyOf"] = [{"$ref": ret.pop("$ref")}, NULL]
    elif "allOf" in ret:
        ret["anyOf"] = [*ret.pop("allOf"), NULL]
    elif "enum" in ret:
        raise TypeError(f"{field!r}: a nullable enum must be a Choice (an inline one is typed as a union of one-value enums)")
    else:
        ret["nullable"] = True
    return {}


def enum_components() -> dict[str, dict[str, Any]]:
    return {name: {"type": "string", "enum": values, "description": text} for name, (values, text) in ENUMS.items()}
