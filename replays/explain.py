"""One sentence per event, the way a reviewer would say it: what changed and why it mattered.

Each explanation is made from the state before and after the event, so it can
say who was winning under a new rule and with which cards, why a player went
out (both sides' qualifying cards), and what a winner scored.

An explanation is a :class:`~service.common.texts.Text` — a stable code and its parameters, no words of any language
(players' names, card notation, numbers, a rule's colour letter, or other texts) — so the same events read in every
language the catalogs hold (:func:`explain_text`; :func:`explain` renders one).
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
from service.common.texts import CARDS, DEFAULT, POINTS, Text, message, render
from service.common.texts import count as counted
from service.common.texts import rule as rule_text

Names = Callable[[int], str]

_EFFECTS = {
    Effect.TAKE: message("replay.effect.take", "its 1 takes a card from a palette at least as big"),
    Effect.DRAW: message("replay.effect.draw", "its 3 draws a card"),
    Effect.PLAY: message("replay.effect.play", "its 5 plays one more card"),
    Effect.PLACE: message("replay.effect.place", "its 7 moves a palette card"),
}
_FINISH = {
    "round_won": message("replay.finish.round_won", "won the only round"),
    "target_reached": message("replay.finish.target_reached", "reached the target"),
    "deck_exhausted": message(
        "replay.finish.deck_exhausted", "had the most points when too few cards were left for another round"
    ),
}
_STARTED = {
    ("basic", False): message("replay.game_started.basic", "A basic game for %(players)d players, without the action rules."),
    ("basic", True): message("replay.game_started.basic_actions", "A basic game for %(players)d players, with the action rules."),
    ("advanced", False): message(
        "replay.game_started.advanced", "An advanced game for %(players)d players, without the action rules."
    ),
    ("advanced", True): message(
        "replay.game_started.advanced_actions", "An advanced game for %(players)d players, with the action rules."
    ),
}
DEALT = message(
    "replay.round_dealt",
    "Round %(round)d is dealt. Palettes: %(palettes)s. %(top)s shows the highest card (%(card)s), so %(first)s starts. "
    "The rule is %(rule)s.",
)
TURN = message("replay.turn_started", "%(player)s's turn; %(standing)s.")
NOBODY_AHEAD = message("replay.standing.nobody", "under %(rule)s nobody is ahead")
LEADS = message("replay.standing.leads", "under %(rule)s %(player)s leads with %(cards)s")
NO_QUALIFYING = message("replay.showing.none", "no qualifying card")
SHOWING = message("replay.showing", "%(cards)s (%(count)s)")
PLAYED = message("replay.card_played", "%(player)s plays %(card)s to the palette.")
PLAYED_EFFECT = message("replay.card_played.effect", "%(player)s plays %(card)s to the palette; %(effect)s.")
DRAWN_THREE = message("replay.card_drawn.three", "%(player)s draws %(card)s (the 3's action).")
DRAWN_THREE_HIDDEN = message("replay.card_drawn.three_hidden", "%(player)s draws a card (the 3's action).")
DRAWN = message(
    "replay.card_drawn.advanced", "%(player)s draws %(card)s: the discard beat the palette's %(palette)s (the advanced draw)."
)
DRAWN_HIDDEN = message(
    "replay.card_drawn.advanced_hidden",
    "%(player)s draws a card: the discard beat the palette's %(palette)s (the advanced draw).",
)
TAKEN = message("replay.card_taken", "%(player)s's 1 takes %(card)s from %(victim)s's palette and puts it on top of the deck.")
PLACED_CANVAS = message(
    "replay.card_placed.canvas",
    "%(player)s's 7 puts %(card)s from the palette on the canvas: the rule is now %(rule)s; %(standing)s.",
)
PLACED_DECK = message("replay.card_placed.deck", "%(player)s's 7 puts %(card)s from the palette face down on top of the deck.")
DISCARDED_CHANGES = message(
    "replay.card_discarded.changes", "%(player)s discards %(card)s: the rule is now %(rule)s; %(standing)s."
)
DISCARDED_STAYS = message("replay.card_discarded.stays", "%(player)s discards %(card)s: the rule stays %(rule)s; %(standing)s.")
FOLDED = message("replay.eliminated.folded", "%(player)s folds and is out of the round.")
EMPTY_HAND = message(
    "replay.eliminated.empty_hand", "%(player)s has no card left at the start of the turn and is out of the round."
)
NOT_WINNING = message(
    "replay.eliminated.not_winning",
    "%(player)s ends the turn without winning and is out: under %(rule)s %(player)s has %(mine)s, %(rival)s has %(theirs)s.",
)
ROUND_WON = message("replay.round_won", "%(player)s is the last one in and wins round %(round)d under %(rule)s.")
SCORED = message("replay.round_scored", "%(player)s scores %(cards)s for %(points)s (%(total)d in all).")
SCORED_NOTHING = message("replay.round_scored.nothing", "%(player)s scores nothing for %(points)s (%(total)d in all).")
FINISHED = message("replay.game_finished", "%(player)s wins the game: %(reason)s. Scores: %(scores)s.")
OTHER = message("replay.event", "Event: %(type)s.")


def rule_name(color: Color) -> str:
    """The rule's name in English (:func:`rule_text` for every language)."""
    return render(rule_text(str(color)), DEFAULT)


def count(number: int, noun: str) -> str:
    """``"1 card"``, ``"2 cards"`` in English: a sentence never says "1 cards" (``noun``: ``card`` or ``point``)."""
    return render(counted(number, POINTS if noun == "point" else CARDS), DEFAULT)


def showing(state: GameState, seat: int, color: Color) -> Text:
    """``"R5 B2 (2 cards)"``: a palette's qualifying cards under a rule."""
    q = qualifying_mask(state.palettes[seat], color)
    if not q:
        return Text(NO_QUALIFYING)
    return Text(SHOWING, {"cards": format_cards(cards_in(q)), "count": counted(q.bit_count())})


def standing(state: GameState, names: Names) -> Text:
    """Who leads under the current rule, with which cards."""
    color = state.rule
    seat = leading_seat(state.palettes, state.in_round, color)
    if seat is None:
        return Text(NOBODY_AHEAD, {"rule": rule_text(str(color))})
    return Text(LEADS, {"rule": rule_text(str(color)), "player": names(seat), "cards": showing(state, seat, color)})


def explain(event: Event, before: GameState, after: GameState, names: Names, language: str = DEFAULT) -> str:
    """A sentence about ``event``, which turned ``before`` into ``after``, in ``language``."""
    return render(explain_text(event, before, after, names), language)


def explain_text(event: Event, before: GameState, after: GameState, names: Names) -> Text:
    """What :func:`explain` says, as a code and its parameters."""
    match event:
        case GameStarted(players=n, variant=variant, action_rules=actions):
            return Text(_STARTED[(str(variant), bool(actions))], {"players": n})
        case RoundDealt(round=number, palettes=palettes, first_seat=first):
            shown = ", ".join(f"{names(s)} {c}" for s, c in enumerate(palettes))
            top = max(range(len(palettes)), key=lambda s: palettes[s])
            return Text(
                DEALT,
                {
                    "round": number,
                    "palettes": shown,
                    "top": names(top),
                    "card": str(palettes[top]),
                    "first": names(first),
                    "rule": rule_text("R"),
                },
            )
        case TurnStarted(seat=seat):
            return Text(TURN, {"player": names(seat), "standing": standing(after, names)})
        case CardPlayed(seat=seat, card=card, effect=effect):
            if effect is not None:
                return Text(PLAYED_EFFECT, {"player": names(seat), "card": str(card), "effect": Text(_EFFECTS[effect])})
            return Text(PLAYED, {"player": names(seat), "card": str(card)})
        case CardDrawn(seat=seat, card=card, cause=cause):
            if cause is DrawCause.THREE:
                if card is None:
                    return Text(DRAWN_THREE_HIDDEN, {"player": names(seat)})
                return Text(DRAWN_THREE, {"player": names(seat), "card": str(card)})
            palette = counted(before.palettes[seat].bit_count())
            if card is None:
                return Text(DRAWN_HIDDEN, {"player": names(seat), "palette": palette})
            return Text(DRAWN, {"player": names(seat), "card": str(card), "palette": palette})
        case CardTaken(seat=seat, from_seat=victim, card=card):
            return Text(TAKEN, {"player": names(seat), "card": str(card), "victim": names(victim)})
        case CardPlaced(seat=seat, card=card, to=Destination.CANVAS):
            rule = rule_text(str(card.color))
            return Text(
                PLACED_CANVAS, {"player": names(seat), "card": str(card), "rule": rule, "standing": standing(after, names)}
            )
        case CardPlaced(seat=seat, card=card):
            return Text(PLACED_DECK, {"player": names(seat), "card": str(card)})
        case CardDiscarded(seat=seat, card=card):
            code = DISCARDED_STAYS if before.rule is card.color else DISCARDED_CHANGES
            rule = rule_text(str(card.color))
            return Text(code, {"player": names(seat), "card": str(card), "rule": rule, "standing": standing(after, names)})
        case PlayerEliminated(seat=seat, reason=Elimination.FOLDED):
            return Text(FOLDED, {"player": names(seat)})
        case PlayerEliminated(seat=seat, reason=Elimination.EMPTY_HAND):
            return Text(EMPTY_HAND, {"player": names(seat)})
        case PlayerEliminated(seat=seat):
            return _not_winning(before, seat, names)
        case RoundWon(seat=seat, rule=rule):
            return Text(ROUND_WON, {"player": names(seat), "round": after.round, "rule": rule_text(str(rule))})
        case RoundScored(seat=seat, cards=cards, points=points):
            facts = {"player": names(seat), "points": counted(points, POINTS), "total": after.score(seat)}
            if not cards:
                return Text(SCORED_NOTHING, facts)
            return Text(SCORED, {**facts, "cards": format_cards(cards)})
        case GameFinished(winner=winner, reason=reason):
            scores = ", ".join(f"{names(s)} {after.score(s)}" for s in range(after.players))
            return Text(FINISHED, {"player": names(winner), "reason": Text(_FINISH[str(reason)]), "scores": scores})
    return Text(OTHER, {"type": event.type})


def _not_winning(before: GameState, seat: int, names: Names) -> Text:
    color = before.rule
    rivals = [s for s in before.seats_in_round() if s != seat]
    best = max(rivals, key=lambda s: strength(before.palettes[s], color))
    return Text(
        NOT_WINNING,
        {
            "player": names(seat),
            "rule": rule_text(str(color)),
            "mine": showing(before, seat, color),
            "rival": names(best),
            "theirs": showing(before, best, color),
        },
    )
