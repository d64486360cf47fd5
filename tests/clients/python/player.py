"""A whole game through the client openapi-python-client generates from the document (package ``red7_client``).

Run by tests/clients/test_python_client.py, which first type-checks this file with ``mypy --strict`` against the
generated package: every field is read through the generated models' attributes (no casts, no dict access), so
the document has to type what the API sends.  Usage: ``python player.py BASE_URL``.
"""

from __future__ import annotations

import sys
import time
from http import HTTPStatus
from io import BytesIO
from typing import NoReturn

from red7_client import AuthenticatedClient, Client
from red7_client.api.v1 import act as act_api
from red7_client.api.v1 import (
    create_game,
    create_player,
    export_replay,
    get_game,
    get_imported_replay,
    get_replay,
    import_replay,
    list_events,
    stream_events,
)
from red7_client.models import (
    Action,
    AiLevel,
    CardPlayedEvent,
    EventPage,
    GameCreate,
    GameFinishedEvent,
    GameStatus,
    GameView,
    Imported,
    LegalStep,
    Outcome,
    PlayerCreate,
    PlayerCreated,
    Problem,
    Replay,
    RoundDealtEvent,
    Seat,
    SeatKind,
    Step,
    Variant,
    You,
)
from red7_client.types import File

NDJSON = "application/x-ndjson"
DEADLINE = time.monotonic() + 100


def fail(what: str, got: object) -> NoReturn:
    raise SystemExit(f"{what}: {got!r}")


def view_of(client: AuthenticatedClient | Client, game_id: str) -> GameView:
    view = get_game.sync(game_id, client=client)
    if not isinstance(view, GameView):
        fail("GET /games/{id} answered no view", view)
    return view


def choose(legal: list[LegalStep]) -> LegalStep:
    """A step that keeps us in the round if there is one (a draw ends the batch, so it is one step a request)."""
    for option in legal:
        if option.can_win and not option.eliminates:
            return option
    return legal[0]


def main(base_url: str) -> None:
    anonymous = Client(base_url=base_url, raise_on_unexpected_status=True)
    created = create_player.sync(client=anonymous, body=PlayerCreate(name="Py"))
    if not isinstance(created, PlayerCreated):
        fail("sign-up failed", created)
    me = AuthenticatedClient(base_url=base_url, token=created.token, raise_on_unexpected_status=True)

    seats = [
        Seat(kind=SeatKind.HUMAN), Seat(kind=SeatKind.AI, level=AiLevel.GREEDY), Seat(kind=SeatKind.AI, level=AiLevel.RANDOM)
    ]
    view = create_game.sync(client=me, body=GameCreate(seats=seats, variant=Variant.BASIC, action_rules=True))
    if not isinstance(view, GameView):
        fail("creating the game failed", view)
    game_id = view.id
    mine = view.you
    if not isinstance(mine, You):
        fail("the creator holds no seat", mine)

    seen = 0
    played = 0
    events: list[str] = []
    while view.status != GameStatus.FINISHED:
        if time.monotonic() > DEADLINE:
            fail("the game did not finish in time", view.phase)
        turn = view.turn
        if turn is not None and turn.seat == mine.seat and view.legal_steps:
            step = Step.from_dict(choose(view.legal_steps).to_dict())  # a listed legal step, sent back as it is
            answer = act_api.sync(game_id, client=me, body=Action(steps=[step]), if_match=f'"{view.version}"')
            if isinstance(answer, Problem):
                fail(f"the step {step.type_.value} was refused", answer.code)
            played += 1
        else:  # someone else's turn, or the round between: wait for news
            page = list_events.sync(game_id, client=me, after=seen, wait=5)
            if not isinstance(page, EventPage):
                fail("the feed failed", page)
            for event in page.events:
                events.append(event.type_.value)
                if isinstance(event, CardPlayedEvent) and event.card.value[0] not in "ROYGBIV":
                    fail("a card that is no card", event.card)
                if isinstance(event, RoundDealtEvent):
                    hand = event.hands[mine.seat]
                    if hand is None or len(hand) != 7:
                        fail("my hand is not in the deal", hand)
            seen = page.next_
        view = view_of(me, game_id)

    if played == 0:
        fail("the human seat never played", events)
    final = list_events.sync(game_id, client=me, after=0, limit=500)
    if not isinstance(final, EventPage) or not final.finished:
        fail("the finished feed", final)
    last = final.events[-1]
    if not isinstance(last, GameFinishedEvent) or last.winner != view.winner:
        fail("the feed does not end with the winner", last)

    replay = get_replay.sync(game_id, client=me)
    if not isinstance(replay, Replay) or not replay.complete:
        fail("no complete replay", replay)
    outcome = replay.outcome
    if not isinstance(outcome, Outcome) or outcome.winner != view.winner:
        fail("the replay's outcome", outcome)
    table = replay.steps[-1].state
    if len(table.seats) != 3 or any(seat.hand is None for seat in table.seats):  # a full replay shows every hand
        fail("the replay's last table", table)

    spectator = view_of(anonymous, game_id)
    if isinstance(spectator.you, You):
        fail("a spectator holds a seat", spectator.you)
    stream = stream_events.sync(game_id, client=anonymous)
    if not isinstance(stream, str) or "event: end" not in stream:
        fail("the stream of a finished game", stream)
    imported = export_and_import(me, game_id)
    print(f"finished: winner seat {view.winner}, {played} steps of ours, {len(final.events)} events, "
          f"{len(replay.steps)} replay steps, imported as {imported}")


def export_and_import(me: AuthenticatedClient, game_id: str) -> str:
    """The finished game's replay exported and imported again: as JSON (201, a new import), then as the export's
    NDJSON lines (200: the same replay, so the same import); the import's answer is checked each time."""
    exported = export_replay.sync(game_id, client=me)
    if not isinstance(exported, Replay):
        fail("the JSON export", exported)
    first = import_replay.sync_detailed(client=me, body=exported)
    imported = first.parsed
    if first.status_code != HTTPStatus.CREATED or not isinstance(imported, Imported):
        fail("importing the JSON export", first.content[:500])
    if (imported.game_id, imported.hash_, imported.steps) != (game_id, exported.hash_, len(exported.steps)):
        fail("the JSON import's answer", imported)
    # The lines are not JSON, so the generated export_replay cannot parse them: the client's own httpx client fetches
    # the file (its base URL and token), as a browser would save it.
    lines = me.get_httpx_client().get(f"/v1/games/{game_id}/replay/export", headers={"Accept": NDJSON})
    if lines.status_code != HTTPStatus.OK or lines.headers.get("content-type") != NDJSON:
        fail("the NDJSON export", lines.text[:500])
    upload = File(payload=BytesIO(lines.content), file_name=f"red7-{game_id}.ndjson", mime_type=NDJSON)
    again = import_replay.sync_detailed(client=me, body=upload)
    same = again.parsed
    if again.status_code != HTTPStatus.OK or not isinstance(same, Imported):
        fail("importing the NDJSON export", again.content[:500])
    if (same.id, same.hash_, same.steps) != (imported.id, imported.hash_, imported.steps):
        fail("the NDJSON import's answer", same)
    kept = get_imported_replay.sync(imported.id, client=me)
    if not isinstance(kept, Replay) or kept.hash_ != exported.hash_:
        fail("the imported replay", kept)
    return imported.id


if __name__ == "__main__":
    main(sys.argv[1])
