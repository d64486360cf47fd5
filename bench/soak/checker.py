"""The history checker: what the load clients were told, held against what the stores kept.

Pure: it reads one history (a dict, as :mod:`bench.soak.history` saves it) and counts each kind of anomaly, so it
runs at the end of a soak and again on a saved history file, and its unit tests feed it histories made by hand.

The kinds (each counted, each with a few examples):

- ``lost``: an acknowledged action whose events are not in its game's stream, or not by its player, or not the
  action (the cards and kinds of step it was sent with, when the history holds them: an action acknowledged but never
  written leaves its numbers to the player's next one, which a count of numbers alone would call a duplicate);
- ``duplicated``: two acknowledgements claiming the same event of a stream (each action's own);
- ``reordered``: one player's acknowledgements in one game whose versions do not grow in the order acknowledged;
- ``gap``: a stream whose numbers are not 1, 2, 3 … (an event removed, or appended twice under one number);
- ``stuck``: after the settle period, a game neither over nor waiting on a human whose deadline has not passed;
- ``seated_twice``: a player in one quick match twice, or in more matches than the tickets they opened;
- ``ticket_matched_twice``: a ticket in two matches;
- ``ladder_rebuild``: a ladder that is not byte for byte its rebuild from the streams;
- ``replay``: a finished game whose replay does not verify;
- ``idempotency``: a retry with the same Idempotency-Key answered otherwise than the first time;
- ``server_error``: an answer 500 (or any 5xx but 502, 503, 504: a process or the store away, then asked again);
- ``stream``: a Server-Sent Events feed whose event ids did not grow, or that said ``reset`` (the store lost events
  it had sent: never, with the stores' AOF fsynced on every write);
- ``ai_stall``: a game of AIs alone that did not move within :data:`AI_RESUME_BOUND` of a fault's end.
"""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

KINDS = (
    "lost",
    "duplicated",
    "reordered",
    "gap",
    "stuck",
    "seated_twice",
    "ticket_matched_twice",
    "ladder_rebuild",
    "replay",
    "idempotency",
    "server_error",
    "stream",
    "ai_stall",
)
#: Seconds within which every game of AIs alone must move again after a fault ends (the fault tests hold 10 s on a
#: quiet machine; this one is busy, and a second fault may follow within seconds).
AI_RESUME_BOUND = 60.0
#: Seconds a human's deadline may be past at the snapshot and still count as pending (the ticker fires it next).
DEADLINE_GRACE = 15.0
#: Answers that mean "not answered, ask again": no answer, a bad gateway, the store away, a timeout.
UNANSWERED = (0, 502, 503, 504)
OVER = ("finished", "cancelled", "aborted")
EXAMPLES = 5


@dataclass
class Report:
    """Anomalies by kind (every kind present, zero or not), a few examples of each, and figures."""

    anomalies: Counter[str] = field(default_factory=lambda: Counter(dict.fromkeys(KINDS, 0)))
    examples: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    figures: dict[str, Any] = field(default_factory=dict)

    def add(self, kind: str, example: str) -> None:
        self.anomalies[kind] += 1
        if len(self.examples[kind]) < EXAMPLES:
            self.examples[kind].append(example)

    @property
    def total(self) -> int:
        return sum(self.anomalies.values())

    def lines(self) -> list[str]:
        said = [f"anomalies: {self.total} ({', '.join(f'{k} {self.anomalies[k]}' for k in KINDS)})"]
        for kind, examples in self.examples.items():
            said += [f"  {kind}: {example}" for example in examples]
        return said


def check(history: dict[str, Any]) -> Report:
    """Every check of the module's docstring, on one history."""
    report = Report()
    stores = history.get("stores", {})
    games: dict[str, dict[str, Any]] = stores.get("games", {})
    _check_streams(games, report)
    _check_acks(history.get("acks", []), games, report)
    _check_settled(games, float(stores.get("at", 0.0)), report)
    _check_matches(stores.get("matches", []), history.get("tickets", []), report)
    _check_ladders(stores.get("ratings", {}), report)
    _check_replays(games, stores.get("replays", {}), report)
    _check_retries(history.get("retries", []), report)
    _check_answers(history.get("requests", []), report)
    _check_streams_read(history.get("streams", []), report)
    _check_ai_resumed(games, history.get("nemesis", []), float(stores.get("at", 0.0)), report)
    return report


def _check_streams(games: dict[str, dict[str, Any]], report: Report) -> None:
    for game_id, game in games.items():
        numbers = [event["n"] for event in game.get("events", [])]
        if numbers != list(range(1, len(numbers) + 1)):
            report.add("gap", f"{game_id}: numbered {_short(numbers)}")


def _check_acks(acks: list[dict[str, Any]], games: dict[str, dict[str, Any]], report: Report) -> None:
    claimed: dict[tuple[str, int], dict[str, Any]] = {}
    by_seat: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for ack in acks:
        events = {event["n"]: event for event in games.get(ack["game"], {}).get("events", [])}
        wanted = range(ack["before"] + 1, ack["version"] + 1)
        mover = f"player:{ack['player']}"
        if not wanted or any(n not in events or events[n].get("by") != mover for n in wanted):
            report.add("lost", f"{ack['game']} v{ack['before']}->v{ack['version']} by {ack['player']} at {ack['t']:.1f}")
        elif not _fingerprint_holds(ack, [events[n] for n in wanted]):
            report.add("lost", f"{ack['game']} v{ack['before']}->v{ack['version']} by {ack['player']}: another action there")
            continue  # those numbers are the other action's: its own ack claims them
        for n in wanted:
            if (ack["game"], n) in claimed and claimed[(ack["game"], n)].get("key") != ack.get("key"):
                report.add("duplicated", f"{ack['game']} event {n} acknowledged twice")
            claimed[(ack["game"], n)] = ack
        by_seat[(ack["game"], ack["player"])].append(ack)
    for (game_id, player), seat_acks in by_seat.items():
        distinct = {ack.get("key") or id(ack): ack for ack in sorted(seat_acks, key=lambda a: a["t"])}
        versions = [ack["version"] for ack in distinct.values()]
        if any(b <= a for a, b in itertools.pairwise(versions)):
            report.add("reordered", f"{game_id} by {player}: versions {_short(versions)} in the order acknowledged")


#: The event each kind of step leaves, naming the step's card.
STEP_EVENTS = {"play": "card_played", "discard": "card_discarded", "take": "card_taken", "place": "card_placed"}


def _fingerprint_holds(ack: dict[str, Any], events: list[dict[str, Any]]) -> bool:
    """Whether the events an ack claims hold each card step it was sent with (its kind's event, with its card).  A
    step with no card (ending a turn, folding) says nothing here; an ack without its steps (a history saved before
    they were noted) or events without their cards pass."""
    steps = ack.get("steps")
    if not steps or any("card" not in event for event in events):
        return True
    left = [(event.get("type"), event.get("card")) for event in events]
    for step in steps:
        kind, card = STEP_EVENTS.get(step.get("type", "")), step.get("card")
        if kind is None or card is None:
            continue
        wanted = (kind, card)
        if wanted not in left:
            return False
        left.remove(wanted)
    return True


def _check_settled(games: dict[str, dict[str, Any]], at: float, report: Report) -> None:
    for game_id, game in games.items():
        status = game.get("status")
        if status in OVER or status == "waiting":  # over, or an open seat waits for a human to take it
            continue
        turn = game.get("turn") or {}
        if turn.get("kind") == "human" and (turn.get("deadline") is None or turn["deadline"] > at - DEADLINE_GRACE):
            continue
        report.add("stuck", f"{game_id}: {status}, turn {turn}")


def _check_matches(matches: list[dict[str, Any]], tickets: list[dict[str, Any]], report: Report) -> None:
    seen: Counter[str] = Counter()
    seats: Counter[str] = Counter()
    for match in matches:
        seen.update(match["ticket_ids"])
        players = match["players"]
        if len(set(players)) != len(players):
            report.add("seated_twice", f"match {match['game_id']} seats {players}")
        seats.update(set(players))
    for ticket_id, times in seen.items():
        if times > 1:
            report.add("ticket_matched_twice", f"ticket {ticket_id} in {times} matches")
    tickets_of = Counter(ticket["player"] for ticket in tickets)
    for player, count in seats.items():
        if count > tickets_of.get(player, 0):
            report.add("seated_twice", f"{player} in {count} matches with {tickets_of.get(player, 0)} tickets opened")


def _check_ladders(ratings: dict[str, Any], report: Report) -> None:
    for ladder, (games, rebuilt, stored) in ratings.get("ladders", {}).items():
        if rebuilt != stored:
            report.add("ladder_rebuild", f"{ladder}: {games} games, rebuilt {rebuilt[:12]} stored {stored[:12]}")


def _check_replays(games: dict[str, dict[str, Any]], replays: dict[str, Any], report: Report) -> None:
    for game_id, game in games.items():
        if game.get("status") != "finished":
            continue
        verdict = replays.get(game_id)
        if verdict is None or not verdict.get("ok"):
            report.add("replay", f"{game_id}: {verdict and verdict.get('problems')}")


def _check_retries(retries: list[dict[str, Any]], report: Report) -> None:
    for retry in retries:
        if retry["again"]["status"] in UNANSWERED:
            continue
        if retry["again"] != retry["first"]:
            report.add("idempotency", f"{retry['path']}: first {retry['first']}, again {retry['again']}")


def _check_answers(requests: list[dict[str, Any]], report: Report) -> None:
    for request in requests:
        if request["status"] >= 500 and request["status"] not in UNANSWERED:
            report.add("server_error", f"{request['method']} {request['path']} -> {request['status']} at {request['t']:.1f}")


def _check_streams_read(streams: list[dict[str, Any]], report: Report) -> None:
    for read in streams:
        ids = read["ids"]
        if read.get("resets") or any(b <= a for a, b in itertools.pairwise(ids)):
            report.add("stream", f"{read['game']}: ids {_short(ids)}, {read.get('resets', 0)} reset(s)")


def _check_ai_resumed(games: dict[str, dict[str, Any]], nemesis: list[dict[str, Any]], at: float, report: Report) -> None:
    """After each fault's end, every game of AIs alone in play then moves within the bound; the worst delay is kept."""
    worst = 0.0
    for action in nemesis:
        end = action.get("end", action["t"])
        if end + AI_RESUME_BOUND > at:
            continue  # too near the snapshot to judge
        for game_id, game in games.items():
            times = [event["at"] for event in game.get("events", [])]
            if not game.get("all_ai") or not times or times[0] > end:
                continue
            if game.get("status") in OVER and times[-1] <= end:
                continue
            later = [t for t in times if t >= end]
            delay = (later[0] if later else at) - end
            worst = max(worst, delay)
            if delay > AI_RESUME_BOUND:
                report.add("ai_stall", f"{game_id}: no move for {delay:.1f} s after {action['kind']} ended at {end:.1f}")
    report.figures["ai_resume_worst_s"] = round(worst, 2)


def _short(values: list[int]) -> str:
    return str(values) if len(values) <= 12 else f"{values[:6]}…{values[-6:]}"
