"""A challenge answered: accepted (the last acceptance starts the game), declined, or cancelled by its challenger.

Accepting commits the player to a game, so their games in play are counted; the acceptance that starts it counts
everyone's, and names who has no room (``challenge_cannot_start``), so that nobody is put in a game past their quota.
"""

from __future__ import annotations

from datetime import datetime

from service.application.challenges.base import ChallengeOutcome, ChallengeServiceBase
from service.common.errors import Refused
from service.domain import challenges as rules
from service.domain.challenges import Challenge, ChallengeEvent, ChallengeStarted
from service.storage.events import Idempotency
from service.storage.players import Player, new_id


class Answering(ChallengeServiceBase):
    """Challenges answered (part of :class:`~service.application.challenges.ChallengeService`)."""

    def accept(self, challenge_id: str, player: Player, idempotency: Idempotency | None = None) -> ChallengeOutcome:
        """A challenged player accepts; the last acceptance starts the game (``challenge.game_id``).

        Accepting commits the player to a game: their games in play are counted (``game_limit_reached``), and, when
        this acceptance starts it, everyone's (``challenge_cannot_start`` names who has no room, and why).
        """
        game_id = new_id("g")

        def decide(challenge: Challenge, now: datetime) -> list[ChallengeEvent]:
            events = rules.decide(challenge, rules.Accept(player.id, game_id), now)
            if events:
                starts = any(isinstance(e, ChallengeStarted) for e in events)
                self._check_room(challenge, player, starts=starts)
                if challenge.terms.rated:  # a rated game: each player must be able to play one when it starts
                    others = [self.players.get(p) for p in challenge.players if p != player.id] if starts else []
                    self.games.check_rated(player, *(other for other in others if other is not None))
            return events

        challenge, appended, replayed = self._write(challenge_id, player, decide, idempotency)
        self._made(challenge)
        if challenge.game_id is not None:
            self._closed(challenge)
        if appended:
            others = [p for p in challenge.players if p != player.id]
            self._tell(challenge, "challenge_accepted", others, game_id=challenge.game_id)
        return ChallengeOutcome(self.shown(challenge), replayed)

    def _check_room(self, challenge: Challenge, player: Player, *, starts: bool) -> None:
        quotas = self.games.quotas
        quotas.check_join(player)
        if not starts:
            return
        for player_id in challenge.players:
            if player_id == player.id:
                continue
            other = self.players.get(player_id)
            if other is None:
                continue  # no account any more: nothing of theirs to count
            try:
                if player_id == challenge.challenger:
                    quotas.check_new_game(other, challenge.terms.ai_seats)
                else:
                    quotas.check_join(other)
            except Refused as refused:
                raise Refused(
                    "challenge_cannot_start",
                    f"The game cannot start now: {other.name} is at a limit of theirs ({refused.code}); accept again once "
                    "they have room for it.",
                    player_id=player_id,
                    reason=refused.code,
                    **refused.facts,
                ) from None

    def decline(
        self, challenge_id: str, player: Player, reason: str = "generic", idempotency: Idempotency | None = None
    ) -> ChallengeOutcome:
        """A challenged player declines, with a reason key: the challenge is over for everyone."""
        challenge, appended, replayed = self._write(
            challenge_id, player, lambda c, now: rules.decide(c, rules.Decline(player.id, reason), now), idempotency
        )
        if appended:
            self._closed(challenge)
            self._tell(challenge, "challenge_declined", [p for p in challenge.players if p != player.id])
        return ChallengeOutcome(self.shown(challenge), replayed)

    def cancel(self, challenge_id: str, player: Player) -> Challenge:
        """The challenger withdraws an open challenge (again: nothing more happens)."""
        challenge, appended, _ = self._write(challenge_id, player, lambda c, now: rules.decide(c, rules.Cancel(player.id), now))
        self._closed(challenge)
        if appended:
            self._tell(challenge, "challenge_cancelled", [invitee.player_id for invitee in challenge.challenged])
        return self.shown(challenge)
