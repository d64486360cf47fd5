"""One sentence per event, the way a reviewer would say it: what changed and why it mattered.

Each explanation is made from the state before and after the event, so it can
say who was winning under a new rule and with which cards, why a player went
out (both sides' qualifying cards), and what a winner scored.
"""

from __future__ import annotations

from collections.abc import Callable

from engine import (
    CardDiscarded,
    CardDrawn,
    CardPlaced,
    CardPlayed,
    CardTaken,
    Color,
    Destination,
    DrawCause,
    Effect,
    Elimination,
    Event,
    GameFinished,
    GameStarted,
    GameState,
    PlayerEliminated,
    RoundDealt,
    RoundScored,
    RoundWon,
    TurnStarted,
    cards_in,
    format_cards,
)
from engine.rules import leading_seat, qualifying_mask, strength

Names = Callable[[int], str]

_EFFECTS = {
    Effect.TAKE: "its 1 takes a card from a palette at least as big",
    Effect.DRAW: "its 3 draws a card",
    Effect.PLAY: "its 5 plays one more card",
    Effect.PLACE: "its 7 moves a palette card",
}
_FINISH = {
    "round_won": "won the only round",
    "target_reached": "reached the target",
    "deck_exhausted": "had the most points when too few cards were left for another round",
}


def rule_name(color: Color) -> str:
    return color.name.capitalize()


def count(number: int, noun: str) -> str:
    """``"1 card"``, ``"2 cards"``: a sentence never says "1 cards"."""
    return f"{number} {noun}{'' if number == 1 else 's'}"


def showing(state: GameState, seat: int, color: Color) -> str:
    """``"R5 B2 (2 cards)"``: a palette's qualifying cards under a rule."""
    q = qualifying_mask(state.palettes[seat], color)
    if not q:
        return "no qualifying card"
    return f"{format_cards(cards_in(q))} ({count(q.bit_count(), 'card')})"


def standing(state: GameState, names: Names) -> str:
    """Who leads under the current rule, with which cards."""
    color = state.rule
    seat = leading_seat(state.palettes, state.in_round, color)
    if seat is None:
        return f"under {rule_name(color)} nobody is ahead"
    return f"under {rule_name(color)} {names(seat)} leads with {showing(state, seat, color)}"


def explain(event: Event, before: GameState, after: GameState, names: Names) -> str:
    """A sentence about ``event``, which turned ``before`` into ``after``."""
    match event:
        case GameStarted(players=n, variant=variant, action_rules=actions):
            rules = "with" if actions else "without"
            article = "An" if str(variant)[0] in "aeiou" else "A"
            return f"{article} {variant} game for {n} players, {rules} the action rules."
        case RoundDealt(round=number, palettes=palettes, first_seat=first):
            shown = ", ".join(f"{names(s)} {c}" for s, c in enumerate(palettes))
            top = max(range(len(palettes)), key=lambda s: palettes[s])
            return (
                f"Round {number} is dealt. Palettes: {shown}. {names(top)} shows the highest card ({palettes[top]}), "
                f"so {names(first)} starts. The rule is Red."
            )
        case TurnStarted(seat=seat):
            return f"{names(seat)}'s turn; {standing(after, names)}."
        case CardPlayed(seat=seat, card=card, effect=effect):
            text = f"{names(seat)} plays {card} to the palette"
            if effect is not None:
                text += f"; {_EFFECTS[effect]}"
            return text + "."
        case CardDrawn(seat=seat, card=card, cause=cause):
            what = str(card) if card is not None else "a card"
            if cause is DrawCause.THREE:
                return f"{names(seat)} draws {what} (the 3's action)."
            palette = count(before.palettes[seat].bit_count(), "card")
            return f"{names(seat)} draws {what}: the discard beat the palette's {palette} (the advanced draw)."
        case CardTaken(seat=seat, from_seat=victim, card=card):
            return f"{names(seat)}'s 1 takes {card} from {names(victim)}'s palette and puts it on top of the deck."
        case CardPlaced(seat=seat, card=card, to=Destination.CANVAS):
            return f"{names(seat)}'s 7 puts {card} from the palette on the canvas: the rule is now {rule_name(card.color)}; " + (
                f"{standing(after, names)}."
            )
        case CardPlaced(seat=seat, card=card):
            return f"{names(seat)}'s 7 puts {card} from the palette face down on top of the deck."
        case CardDiscarded(seat=seat, card=card):
            changed = "stays" if before.rule is card.color else "is now"
            return f"{names(seat)} discards {card}: the rule {changed} {rule_name(card.color)}; {standing(after, names)}."
        case PlayerEliminated(seat=seat, reason=Elimination.FOLDED):
            return f"{names(seat)} folds and is out of the round."
        case PlayerEliminated(seat=seat, reason=Elimination.EMPTY_HAND):
            return f"{names(seat)} has no card left at the start of the turn and is out of the round."
        case PlayerEliminated(seat=seat):
            return _not_winning(before, seat, names)
        case RoundWon(seat=seat, rule=rule):
            return f"{names(seat)} is the last one in and wins round {after.round} under {rule_name(rule)}."
        case RoundScored(seat=seat, cards=cards, points=points):
            scored = format_cards(cards) if cards else "nothing"
            return f"{names(seat)} scores {scored} for {count(points, 'point')} ({after.score(seat)} in all)."
        case GameFinished(winner=winner, reason=reason):
            scores = ", ".join(f"{names(s)} {after.score(s)}" for s in range(after.players))
            return f"{names(winner)} wins the game: {_FINISH[str(reason)]}. Scores: {scores}."
    return event.type.replace("_", " ")


def _not_winning(before: GameState, seat: int, names: Names) -> str:
    color = before.rule
    rivals = [s for s in before.seats_in_round() if s != seat]
    best = max(rivals, key=lambda s: strength(before.palettes[s], color))
    return (
        f"{names(seat)} ends the turn without winning and is out: under {rule_name(color)} "
        f"{names(seat)} has {showing(before, seat, color)}, {names(best)} has {showing(before, best, color)}."
    )
