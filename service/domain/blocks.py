"""Blocks, mutes and who may reach a player: the rules, pure (the stores keep them: :mod:`service.storage.blocks`).

A *block* keeps two players apart whichever of them asked for it: the blocked player cannot challenge the blocker,
quick match never seats them together, neither joins the other's listed tables.  It is private: whatever the blocked
player is refused reads like any other refusal (:data:`CHALLENGE_REFUSED`, the very code a "nobody" setting answers).
A *mute* only hides the muted player's table talk from the one who muted them.  *Reach* is what a player lets
strangers do: who may challenge them (``everyone``, ``played``: those who have finished a game with them, ``nobody``)
and who may talk to them at a table (``everyone``, ``opponents``, ``nobody``).

:class:`Apart` is the block relation over a few players, as the matchmaker's pairing reads it: symmetric (a block
either way keeps both apart), a set lookup per pair, so that a pool of thousands pays little for it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from service.common.errors import Refused

#: How many players one player may block, and mute: a bound on what a player's lists and the matchmaker's reads hold.
MAX_BLOCKS = 1000
MAX_MUTES = 1000
#: Who may challenge a player, and who may talk to them at a table; the defaults first.
CHALLENGE_FROM = ("everyone", "played", "nobody")
TALK_FROM = ("opponents", "everyone", "nobody")
#: The refusal a challenge gets from a player who does not take it: a block or a setting, the same code and words.
CHALLENGE_REFUSED = "challenge_refused"


@dataclass(frozen=True, slots=True)
class Reach:
    """Who may challenge a player and who may talk to them at a table (the defaults: everyone, opponents)."""

    challenge: str = CHALLENGE_FROM[0]
    talk: str = TALK_FROM[0]

    def __post_init__(self) -> None:
        if self.challenge not in CHALLENGE_FROM:
            raise Refused("invalid_request", f"challenge_from is one of {', '.join(CHALLENGE_FROM)}.", field="challenge_from")
        if self.talk not in TALK_FROM:
            raise Refused("invalid_request", f"talk_from is one of {', '.join(TALK_FROM)}.", field="talk_from")


def takes_challenge(reach: Reach, *, blocked: bool, played: bool) -> bool:
    """Whether a player whose settings are ``reach`` takes a challenge from someone they ``blocked`` (or who blocked
    them) and have (not) ``played`` a finished game with."""
    if blocked or reach.challenge == "nobody":
        return False
    return reach.challenge == "everyone" or played


def refused(names: list[str]) -> Refused:
    """What a challenger is told by players who do not take their challenge: never why (a block is private)."""
    return Refused(
        CHALLENGE_REFUSED,
        f"{', '.join(names)} {'does' if len(names) == 1 else 'do'} not take challenges from you.",
        players=names,
    )


class Apart:
    """Which of some players must never sit at one table: each pair a block either way names."""

    __slots__ = ("_apart",)

    def __init__(self, blocks: Mapping[str, Iterable[str]] | None = None) -> None:
        """``blocks``: each blocker's blocked players (only those among the players asked about matter)."""
        self._apart: dict[str, set[str]] = {}
        for blocker, blocked in (blocks or {}).items():
            for other in blocked:
                if other != blocker:
                    self._apart.setdefault(blocker, set()).add(other)
                    self._apart.setdefault(other, set()).add(blocker)

    def __call__(self, a: str, b: str) -> bool:
        """Whether players ``a`` and ``b`` are kept apart."""
        kept = self._apart.get(a)
        return kept is not None and b in kept

    def __bool__(self) -> bool:
        return bool(self._apart)

    def any_among(self, player_ids: Iterable[str]) -> bool:
        """Whether any two of these players are kept apart."""
        players = list(player_ids)
        return any(self(a, b) for n, a in enumerate(players) for b in players[n + 1 :])


#: Nobody kept apart.
NOBODY_APART = Apart()
