"""A game between bots, told turn by turn in the terminal."""

from __future__ import annotations

import random

from engine.bots import BOTS
from engine.cards import format_cards
from engine.events import (
    CardDiscarded,
    CardDrawn,
    CardPlaced,
    CardPlayed,
    CardTaken,
    Event,
    GameFinished,
    PlayerEliminated,
    RoundDealt,
    RoundScored,
    RoundWon,
    TurnStarted,
    Variant,
)
from engine.selfplay import play_game


def describe_event(event: Event) -> str | None:
    """One line a spectator would want, or ``None`` for bookkeeping events."""
    match event:
        case RoundDealt(round=r, palettes=palettes, first_seat=first):
            return f"-- round {r}: palettes {format_cards(palettes)}; seat {first} starts"
        case TurnStarted():
            return None
        case CardPlayed(seat=s, card=c, effect=e):
            return f"seat {s} plays {c} to the palette" + (f" ({e} effect)" if e else "")
        case CardDiscarded(seat=s, card=c):
            return f"seat {s} discards {c}: the rule is now {c.color}"
        case CardDrawn(seat=s, cause=cause):
            return f"seat {s} draws a card ({cause})"
        case CardTaken(seat=s, from_seat=f, card=c):
            return f"seat {s} puts {c} from seat {f}'s palette on the deck"
        case CardPlaced(seat=s, card=c, to=to):
            return f"seat {s} moves {c} to the {to}"
        case PlayerEliminated(seat=s, reason=why):
            return f"seat {s} is out ({why})"
        case RoundWon(seat=s, rule=rule):
            return f"seat {s} wins the round under {rule}"
        case RoundScored(seat=s, cards=cards, points=p):
            return f"seat {s} scores {format_cards(cards) or 'nothing'} for {p} points"
        case GameFinished(winner=w, reason=why):
            return f"== seat {w} wins the game ({why})"
    return None


def main(players: int = 3, seed: int | None = None, action_rules: bool = True) -> None:
    seed = random.randrange(1 << 31) if seed is None else seed
    rng = random.Random(seed)
    bots = [BOTS["greedy" if s % 2 else "random"](rng) for s in range(players)]
    print(f"A {players}-player advanced game between bots (seed {seed}): seats " + ", ".join(b.name for b in bots))
    record = play_game(bots, variant=Variant.ADVANCED, action_rules=action_rules, seed=seed)
    for event in record.events:
        line = describe_event(event)
        if line:
            print(line)


if __name__ == "__main__":
    main()
