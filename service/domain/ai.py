"""Choosing an AI seat's steps from what that seat may see — and nothing else.

Every level gets the seat's projection (``engine.view``); the expert also
gets the seat's redacted history.  None of them is handed the game state.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from engine import Step, redact, view
from engine.bots import GreedyBot, RandomBot
from engine.expert import ExpertBot
from engine.legal import position_from_view
from service.domain.game import Game, engine_event
from service.domain.lobby import LOBBY_TYPES


def choose_steps(
    game: Game, seat: int, level: str, history: Sequence[dict[str, Any]], *, expert_seconds: float = 1.0
) -> Sequence[Step]:
    """The steps ``seat`` plays now at ``level``; ``history`` is the game's stored envelopes (dicts)."""
    rng = random.Random(f"{game.id}:{game.version}:{seat}")  # independent of the secret seed
    seen = view(game.state, seat, legal=False)  # no level reads the flagged legal steps: each searches its own
    if level == "expert":
        events = [redact(engine_event(data), seat) for data in history if data["type"] not in LOBBY_TYPES]
        return ExpertBot(rng, seconds=expert_seconds).plan_view(seen, events)
    bot = GreedyBot(rng) if level == "greedy" else RandomBot(rng)
    return bot.plan(position_from_view(seen))
