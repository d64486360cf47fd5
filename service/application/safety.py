"""Keeping strangers safe from each other, wired in one place: the word filter's screen, the terms of use, the gate
every call passes, reports, moderation and table talk (issue 36).  The composition root builds one :class:`Safety`
(:func:`build_safety`) and the routes reach each part through it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import redis

from service.application.games import GameService
from service.application.moderation import Moderation
from service.application.players import AccountDeleted, PlayerService
from service.application.ratings import RatingService
from service.application.reports import ReportService
from service.application.screening import Screen
from service.application.standing import Gate
from service.application.talk import TalkService
from service.application.terms import Terms
from service.common.config import Settings
from service.storage.moderation import ModerationStore
from service.storage.reports import ReportStore
from service.storage.talk import TalkStore


@dataclass
class Safety:
    """The parts, each the application's door to its store."""

    screen: Screen
    terms: Terms
    gate: Gate  # every authenticated call: suspensions, bans, the terms
    reports: ReportService
    moderation: Moderation
    talk: TalkService

    def after_write(self, player_id: str) -> None:
        """After a write of ``player_id``'s: if a suspension or a ban came while it ran, what it made for them ends too
        (the sanction's own pass may have run before it was written)."""
        if self.moderation.barred(player_id):
            self.moderation.remove(player_id)


def build_safety(
    client: redis.Redis,
    settings: Settings,
    accounts: PlayerService,
    games: GameService,
    ratings: RatingService,
    removal: Sequence[AccountDeleted],
) -> Safety:
    """The parts over the stores' Redis; the accounts' sign-up and profile checked by the screen from now on.
    ``removal``: what ends a suspended or banned player's open tickets, challenges, tables and seats (the same parts
    that end a deleted account's)."""
    store = ModerationStore(client, settings.key_prefix)
    screen = Screen(store, settings.filter_words)
    accounts.screen = screen
    terms = Terms(store, settings.terms_version, settings.terms_url, settings.public_url)
    gate = Gate(store, terms)
    reports = ReportService(ReportStore(client, settings.key_prefix), accounts, games.load)
    moderation = Moderation(store, reports, accounts, gate, ratings, removal)
    talk = TalkService(
        TalkStore(client, settings.key_prefix),
        games.load,
        games.block_store,  # the one every service that seats players shares
        screen,
        reports,
        store,
        lambda items: games.followups.notify(items),
    )
    reports.find_message = lambda game_id, message_id: (lambda m: None if m is None else m.json())(talk.find(game_id, message_id))
    reports.reads_message = talk.reads
    return Safety(screen, terms, gate, reports, moderation, talk)
