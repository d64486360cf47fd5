"""Finished games made fast for the archive's tests and bench: played by the engine's bots, stored as the service
stores them (a stream of envelopes appended through the event store), then listed as finished, which indexes them
in their players' archives as a game's last append does (``service.application.listing``)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from engine import Event, Variant
from engine.analysis import VERSION
from engine.bots import RandomBot
from engine.selfplay import play_game
from service.domain.game import event_envelope
from service.domain.lobby import GameCreated, LobbyEvent, SeatSpec, SeatTaken
from service.runtime import Runtime

#: 2026-01-01T00:00:00Z, the first game's finish; each next one an hour and a bit later.
START_MS = 1_767_225_600_000
LEVELS = ("random", "greedy", "expert")


def iso(ms: int) -> str:
    from service.domain.archive import as_iso

    return as_iso(ms)


def payloads(
    seats: Sequence[tuple[str, str] | str], *, variant: Variant, action_rules: bool, rated: bool, seed: int, at_ms: int
) -> list[str]:
    """A finished game's envelopes: ``seats`` each a (player id, name) or an AI's level."""
    specs = tuple(SeatSpec("ai", s) if isinstance(s, str) else SeatSpec("human") for s in seats)
    creator = next((s[0] for s in seats if not isinstance(s, str)), "p_nobody")
    created = GameCreated(creator, specs, variant.value, action_rules, None, "fold", "random", seed, None, "", rated=rated)
    lobby: list[LobbyEvent] = [created]
    lobby += [SeatTaken(n, s[0], s[1]) for n, s in enumerate(seats) if not isinstance(s, str)]
    bots = [RandomBot(random.Random(seed * 7 + n)) for n in range(len(seats))]
    record = play_game(bots, variant=variant, action_rules=action_rules, seed=seed)
    at = iso(at_ms)
    events: list[LobbyEvent | Event] = [*lobby, *record.events]
    return [event_envelope(e, at=at, by="test") for e in events]


def store_finished(runtime: Runtime, game_id: str, envelopes: Sequence[str]) -> None:
    """Append a finished game's envelopes and list it as finished (its players' archives index it)."""
    runtime.store.append(game_id, 0, list(envelopes))
    game = runtime.games.load(game_id)
    assert game.status == "finished", game.status
    runtime.games.lists.archive(game)
    if game.rated:
        runtime.ratings.apply(game_id)


def mark_analysed(runtime: Runtime, game_id: str) -> None:
    """Record a decision analysis as done for the game (its result empty: the archive reads only that it is done)."""
    from service.storage.analyses import AnalysisStore

    key = AnalysisStore(runtime.redis, runtime.settings.key_prefix).key(game_id)
    runtime.redis.hset(key, mapping={"status": "done", "version": VERSION, "result": "{}", "done": 0, "total": 0})


@dataclass
class Made:
    players: list[tuple[str, str]]  # (id, handle)
    games: list[str]
    analysed: set[str]


def many_games(runtime: Runtime, *, people: int = 20, games: int = 300, seed: int = 40) -> Made:
    """``games`` finished games among ``people`` players with handles: every variant, action rules on and off, 2 to 4
    seats, rated and not, AI seats, wins and losses, a third analysed; finished an hour and a bit apart."""
    rng = random.Random(seed)
    players = []
    for n in range(people):
        signed = runtime.accounts.sign_up(f"Player {n}", handle=f"arch{n:02d}")
        players.append((signed.player.id, f"arch{n:02d}"))
    made, analysed = [], set()
    for g in range(games):
        count = 2 + g % 3
        humans = rng.randint(1, count)
        chosen = rng.sample(players, humans)
        seats: list[tuple[str, str] | str] = [(pid, f"Name {handle}") for pid, handle in chosen]
        seats += [rng.choice(LEVELS) for _ in range(count - humans)]
        rng.shuffle(seats)
        game_id = f"g_arch{g:04d}"
        at = START_MS + g * 3_700_000 + (g % 4 == 3) * 0  # distinct times, months apart at the end
        envelopes = payloads(
            seats,
            variant=Variant.ADVANCED if g % 2 else Variant.BASIC,
            action_rules=bool(g // 2 % 2),
            rated=bool(g // 4 % 2),
            seed=seed * 10_000 + g,
            at_ms=at,
        )
        store_finished(runtime, game_id, envelopes)
        made.append(game_id)
        if g % 3 == 0:
            mark_analysed(runtime, game_id)
            analysed.add(game_id)
    return Made(players, made, analysed)
