"""The lobby's decisions: a command on a table becomes events, or a refusal with a stable code.

Like the engine's ``decide``, a decision reads the table and the command and changes neither; the application
appends what it returns, and the fold (:mod:`service.domain.lobby.table`) applies it.  When the last open human seat
is taken the engine's first deal follows in the same decision, from the seed (or deck) recorded at set-up, so that a
game that has all its players is dealt in the same atomic append.
"""

from __future__ import annotations

import hmac

from engine import Card, Event, GameState, Start, Variant, decide_and_fold
from service.common.errors import Refused
from service.domain.lobby.commands import (
    Abort,
    Cancel,
    DeclineRematch,
    GiveTime,
    Join,
    Leave,
    LobbyCommand,
    OfferRematch,
    SetUp,
)
from service.domain.lobby.events import (
    GameAborted,
    GameCancelled,
    GameCreated,
    LobbyEvent,
    RematchDeclined,
    RematchOffered,
    SeatLeft,
    SeatResigned,
    SeatTaken,
    TimeGiven,
)
from service.domain.lobby.table import Table, every_seat_moved, max_gift, rematch_seats
from service.domain.lobby.terms import AI_LEVELS


def decide(table: Table, command: LobbyCommand) -> list[LobbyEvent | Event]:
    """The events ``command`` makes on ``table`` — the lobby's, then the engine's deal once no human seat is open —
    or a :class:`~service.common.errors.Refused` with a stable code.  ``table`` is not changed."""
    if isinstance(command, SetUp):
        return _set_up(command)
    if isinstance(command, Join):
        return _join(table, command)
    if isinstance(command, Leave):
        return _leave(table, command)
    if isinstance(command, Cancel):
        return _cancel(table, command)
    if isinstance(command, Abort):
        return _abort(table, command)
    if isinstance(command, OfferRematch):
        return _offer_rematch(table, command)
    if isinstance(command, GiveTime):
        return _give_time(table, command)
    return _decline_rematch(table, command)


def _set_up(command: SetUp) -> list[LobbyEvent | Event]:
    created = GameCreated(
        created_by=command.creator_id,
        seats=command.seats,
        variant=command.variant.value,
        action_rules=command.action_rules,
        turn_timeout=command.turn_timeout,
        timeout_action=command.timeout_action,
        dealing=command.dealing,
        seed=command.seed,
        deck=tuple(str(c) for c in command.deck) if command.deck is not None else None,
        join_code=command.join_code,
        listed=command.listed,
        rated=command.rated,
        days_per_turn=command.days_per_turn,
        origin=command.origin,
        rematch_of=command.rematch_of,
    )
    humans = [n for n, spec in enumerate(command.seats) if spec.kind == "human"]
    events: list[LobbyEvent | Event] = [created]
    if humans:
        events.append(SeatTaken(humans[0], command.creator_id, command.creator_name))
    taken = {humans[0]} if humans else set()
    for seat, player_id, name in command.seated:
        if seat not in humans or seat in taken or player_id in {e.player_id for e in events if isinstance(e, SeatTaken)}:
            raise Refused("invalid_request", f"Seat {seat} cannot be given to {player_id} at set-up.", field="seats")
        taken.add(seat)
        events.append(SeatTaken(seat, player_id, name))
    if len(taken) == len(humans):
        events += _deal(created)
    return events


def _join(table: Table, command: Join) -> list[LobbyEvent | Event]:
    held = table.seat_of(command.player_id)
    if held is not None:
        raise Refused("already_seated", f"You already hold seat {held} of this game.", seat=held)
    if table.status != "waiting":
        raise Refused("game_not_waiting", f"The game is {table.status}: seats are taken only before it starts.")
    if not table.listed and not _same_code(command.code, table.join_code):
        raise Refused("bad_join_code", "The join code is wrong: this game is not listed, so joining it takes its code.")
    open_seats = [n for n, seat in enumerate(table.seats) if seat.open]
    if not open_seats:
        raise Refused("game_full")
    if command.seat is not None and command.seat not in open_seats:
        raise Refused("seat_not_open", f"Seat {command.seat} is not open; open seats: {open_seats}.", open_seats=open_seats)
    chosen = open_seats[0] if command.seat is None else command.seat
    events: list[LobbyEvent | Event] = [SeatTaken(chosen, command.player_id, command.name)]
    if open_seats == [chosen]:
        events += _deal(table)
    return events


def _leave(table: Table, command: Leave) -> list[LobbyEvent | Event]:
    seat = table.seat_of(command.player_id)
    if seat is None:
        raise Refused("not_a_player", "Only seated players leave a game.")
    if table.seats[seat].resigned:
        raise Refused("seat_resigned", "You have already resigned from this game.")
    if table.status == "waiting":
        if table.created_by == command.player_id:
            raise Refused("creator_cannot_leave")
        return [SeatLeft(seat)]
    if table.status != "active":
        raise Refused("game_not_active", f"The game is {table.status}: there is no seat to leave any more.")
    if command.level not in AI_LEVELS:
        raise Refused("invalid_request", f"{command.level!r} is not an AI level.", field="level")
    return [SeatResigned(seat, command.level)]


def _cancel(table: Table, command: Cancel) -> list[LobbyEvent | Event]:
    if table.created_by != command.player_id:
        raise Refused("not_the_creator", "Only the player who created the game may call it off.")
    if table.status != "waiting":
        raise Refused("game_not_waiting", f"The game is {table.status}: only a game still waiting can be called off.")
    return [GameCancelled()]


def _abort(table: Table, command: Abort) -> list[LobbyEvent | Event]:
    seat = _players_seat(table, command.player_id, "abort")
    if table.status == "waiting":
        raise Refused(
            "game_not_active",
            "The game has not started: its creator calls it off (cancelGame), and anyone "
            "else who joined may leave it (leaveGame).",
        )
    if table.status != "active":
        raise Refused("game_not_active", f"The game is {table.status}: there is nothing to abort.")
    if every_seat_moved(table):
        raise Refused(
            "abort_too_late",
            "Every seat has moved once: the game is under way and can no longer be aborted. "
            "Leave it instead (an AI plays your seat).",
        )
    return [GameAborted(seat)]


def _offer_rematch(table: Table, command: OfferRematch) -> list[LobbyEvent | Event]:
    seat = _rematch_seat(table, command.player_id, "offer a rematch")
    if table.rematch is not None or seat in table.rematch_offers:
        return []  # offered already, or every player did: nothing more to do
    offers = {*table.rematch_offers, seat}
    complete = offers == set(rematch_seats(table))
    return [RematchOffered(seat, command.rematch_id if complete else None)]


def _decline_rematch(table: Table, command: DeclineRematch) -> list[LobbyEvent | Event]:
    seat = _rematch_seat(table, command.player_id, "decline a rematch", declined_ok=True)
    if table.rematch is not None:
        raise Refused("rematch_started", "Every player wanted the rematch: it has started.", rematch=table.rematch)
    return [] if table.rematch_declined is not None else [RematchDeclined(seat)]


def _give_time(table: Table, command: GiveTime) -> list[LobbyEvent | Event]:
    seat = _players_seat(table, command.player_id, "give time")
    if table.status != "active":
        raise Refused("game_not_active", f"The game is {table.status}: time is given while it is played.")
    if not table.turn_timeout:
        raise Refused("no_turn_limit", "This game's turns have no time limit: there is no clock to give time to.")
    to = table.seat_to_move()
    if to is None or to == seat or table.seats[to].kind != "human":
        raise Refused(
            "not_their_turn", "Time is given to another player whose turn it is (their clock is running).", seat_to_move=to
        )
    most = max_gift(table)
    if not 1 <= command.seconds <= most:
        raise Refused(
            "give_time_limit_reached",
            f"This turn may be given {most} more seconds at most (in all, as much as "
            f"the turn's own limit, {table.turn_timeout} s).",
            limit=table.turn_timeout,
            left=most,
        )
    return [TimeGiven(seat, to, command.seconds)]


def _players_seat(table: Table, player_id: str, what: str) -> int:
    """The seat the player holds and plays themselves (not one they resigned from), or a refusal."""
    seat = table.seat_of(player_id)
    if seat is None:
        raise Refused("not_a_player", f"Only the game's players {what}.")
    if table.seats[seat].resigned:
        raise Refused("seat_resigned", f"You resigned from this game: an AI plays your seat, and only the players {what}.")
    return seat


def _rematch_seat(table: Table, player_id: str, what: str, *, declined_ok: bool = False) -> int:
    seat = _players_seat(table, player_id, what)
    if table.status != "finished":
        raise Refused("game_not_finished", f"The game is {table.status}: a rematch is offered at a finished game's end.")
    if table.rematch_declined is not None and not declined_ok:
        raise Refused(
            "rematch_declined",
            "A player declined the rematch: there will be none of this game.",
            declined_by=table.rematch_declined,
        )
    return seat


def _deal(table: Table | GameCreated) -> list[Event]:
    """The engine's first deal, from the table's recorded seed (or explicit deck)."""
    deck = tuple(Card.parse(c) for c in table.deck) if table.deck else None
    variant = table.variant if isinstance(table.variant, Variant) else Variant(table.variant)
    start = Start(len(table.seats), variant, table.action_rules, table.seed, deck)
    return decide_and_fold(GameState(), start)[0]


def _same_code(given: str, expected: str) -> bool:
    """Compared in constant time: a join code is a secret."""
    return hmac.compare_digest(given.encode(), expected.encode())
