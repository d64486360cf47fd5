"""Two whole games through the client openapi-python-client generates from the document (package ``red7_client``).

The first is created with its seats (a human and two AIs), played to its end, and its replay exported and imported
again.  The second is a quick match: a rated ticket for two players whose empty seat an AI takes after a second,
polled until it names the game, played to its end; then the ladder's leaderboard ranks the player (once the workers
have applied the game) and their public profile shows the same rating.  Last, the first game's decision analysis is
requested and read (after another player is blocked, muted and let go again, and talked to at a table).

Run by tests/clients/test_python_client.py, which first type-checks this file with ``mypy --strict`` against the
generated package: every field is read through the generated models' attributes (no casts, no dict access), so
the document has to type what the API sends.  Usage: ``python player.py BASE_URL``.
"""

from __future__ import annotations

import json
import secrets
import sys
import time
from http import HTTPStatus
from io import BytesIO
from typing import NoReturn

from red7_client import AuthenticatedClient, Client
from red7_client.api.v1 import (
    accept_challenge,
    block_player,
    create_challenge,
    create_game,
    create_match_ticket,
    create_player,
    create_report,
    export_player_games,
    export_replay,
    get_analysis,
    get_game,
    get_imported_replay,
    get_leaderboard,
    get_match_ticket,
    get_player,
    get_replay,
    import_replay,
    list_blocks,
    list_events,
    list_my_mistakes,
    list_player_games,
    list_table_talk,
    mute_player,
    request_analysis,
    say_at_table,
    stream_events,
    unblock_player,
    unmute_player,
)
from red7_client.api.v1 import act as act_api
from red7_client.models import (
    Action,
    AiLevel,
    Analysis,
    AnalysisResult,
    AnalysisStatus,
    BlockedPlayer,
    BlockList,
    BlockListKind,
    CardPlayedEvent,
    Challenge,
    ChallengeCreate,
    DecisionBy,
    DecisionLabel,
    EventPage,
    GameCreate,
    GameFinishedEvent,
    GameRatings,
    GameStatus,
    GameView,
    Imported,
    Ladder,
    LadderStanding,
    LegalStep,
    MatchTicket,
    MatchTicketCreate,
    MatchTicketCreatePlayerCountsItem,
    MatchTicketCreateTurnSeconds,
    MatchTicketStatus,
    MistakeList,
    Origin,
    Outcome,
    PlayerCreate,
    PlayerCreated,
    PlayerGames,
    PlayerLadders,
    Problem,
    PublicPlayer,
    Replay,
    Report,
    ReportCreate,
    ReportReason,
    RoundDealtEvent,
    Say,
    Seat,
    SeatKind,
    Step,
    TalkMessage,
    TalkPage,
    TalkPhrase,
    Variant,
    You,
)
from red7_client.types import UNSET, File

NDJSON = "application/x-ndjson"
DEADLINE = time.monotonic() + 160
#: Others find the player by it (its profile is read by it): a fresh one each run, so a server may see many runs.
HANDLE = f"py_{secrets.token_hex(4)}"
#: The quick match asks for two players, one round, rated; the empty seat a greedy AI's after this many seconds.
AI_FILL_AFTER = 1.0


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
    created = create_player.sync(client=anonymous, body=PlayerCreate(name="Py", handle=HANDLE))
    if not isinstance(created, PlayerCreated):
        fail("sign-up failed", created)
    me = AuthenticatedClient(base_url=base_url, token=created.token, raise_on_unexpected_status=True)

    seats = [
        Seat(kind=SeatKind.HUMAN),
        Seat(kind=SeatKind.AI, level=AiLevel.GREEDY),
        Seat(kind=SeatKind.AI, level=AiLevel.RANDOM),
    ]
    view = create_game.sync(client=me, body=GameCreate(seats=seats, variant=Variant.BASIC, action_rules=True))
    if not isinstance(view, GameView):
        fail("creating the game failed", view)
    game_id = view.id
    view, played = play(me, view)
    # The view's long-poll: at the version we hold, a game that is over answers at once, 304 and no body.
    started = time.monotonic()
    waited = get_game.sync_detailed(game_id, client=me, wait=5.0, if_none_match=f'"{view.version}"')
    if waited.status_code != HTTPStatus.NOT_MODIFIED or time.monotonic() - started > 3:
        fail("the finished game's view, waited on at its version", (waited.status_code, time.monotonic() - started))

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
    print(
        f"finished: winner seat {view.winner}, {played} steps of ours, {len(final.events)} events, "
        f"{len(replay.steps)} replay steps, imported as {imported}"
    )
    print(quick_match(me, anonymous, created.id))
    print(blocking(base_url, me, anonymous, created.id))
    print(analysed(me, anonymous, game_id))
    print(archived(me, anonymous, created.id))


def blocking(base_url: str, me: AuthenticatedClient, anonymous: Client, my_id: str) -> str:
    """Another player blocked by handle: their challenge to us refused as any refusal, our list shows them; muted and
    unmuted by id; unblocked, their challenge goes through."""
    other = create_player.sync(client=anonymous, body=PlayerCreate(name="Pest", handle=f"{HANDLE}_x"))
    if not isinstance(other, PlayerCreated):
        fail("the other sign-up failed", other)
    them = AuthenticatedClient(base_url=base_url, token=other.token, raise_on_unexpected_status=True)
    blocked = block_player.sync(f"{HANDLE}_x", client=me)
    if not isinstance(blocked, BlockedPlayer) or blocked.id != other.id or blocked.list_ is not BlockListKind.BLOCKS:
        fail("blocking by handle", blocked)
    refused = create_challenge.sync_detailed(client=them, body=ChallengeCreate(players=[my_id]))
    if not isinstance(refused.parsed, Problem) or refused.parsed.code != "challenge_refused":
        fail("a blocked player's challenge", refused.parsed)
    listed = list_blocks.sync(client=me)
    if not isinstance(listed, BlockList) or [p.id for p in listed.players] != [other.id] or listed.limit != 1000:
        fail("the list of blocks", listed)
    muted = mute_player.sync(other.id, client=me)
    if not isinstance(muted, BlockedPlayer) or muted.list_ is not BlockListKind.MUTES:
        fail("muting by id", muted)
    mutes = list_blocks.sync(client=me, list_=BlockListKind.MUTES)
    if not isinstance(mutes, BlockList) or len(mutes.players) != 1:
        fail("the list of mutes", mutes)
    for lifted in (unmute_player.sync_detailed(other.id, client=me), unblock_player.sync_detailed(other.id, client=me)):
        if lifted.status_code != HTTPStatus.NO_CONTENT:
            fail("lifting a mute or a block", lifted.status_code)
    accepted = create_challenge.sync_detailed(client=them, body=ChallengeCreate(players=[my_id]))
    if accepted.status_code != HTTPStatus.CREATED or not isinstance(accepted.parsed, Challenge):
        fail("a challenge once unblocked", accepted.parsed)
    shown = len(listed.players)
    said = talking(me, them, accepted.parsed.id)
    return f"blocks: {refused.status_code.value} {refused.parsed.code} while blocked, {shown} listed, then unblocked; {said}"


def talking(me: AuthenticatedClient, them: AuthenticatedClient, challenge_id: str) -> str:
    """The challenge accepted, its game's table: they wish us luck with a preset phrase, we answer in words; each
    reads the other's message (a phrase in the reader's language)."""
    game = accept_challenge.sync(challenge_id, client=me)
    if not isinstance(game, Challenge) or not isinstance(game.game_id, str):
        fail("accepting the challenge", game)
    wished = say_at_table.sync(game.game_id, client=them, body=Say(phrase=TalkPhrase.GOOD_LUCK))
    answered = say_at_table.sync(game.game_id, client=me, body=Say(text="Thanks!"))
    if not isinstance(wished, TalkMessage) or not isinstance(answered, TalkMessage) or wished.held:
        fail("saying something at the table", (wished, answered))
    mine = list_table_talk.sync(game.game_id, client=me)
    if not isinstance(mine, TalkPage) or [m.phrase for m in mine.messages] != [TalkPhrase.GOOD_LUCK, None]:
        fail("the table talk as we read it", mine)
    # Their message reported (the evidence copies it); the same report made again is the same report.
    reason, comment = ReportReason.OTHER, "a test of reporting"
    body = ReportCreate(player=wished.author_id, reason=reason, comment=comment, game_id=game.game_id, message_id=wished.id)
    first = create_report.sync_detailed(client=me, body=body)
    again = create_report.sync_detailed(client=me, body=body)
    if not isinstance(first.parsed, Report) or first.parsed.message_id != wished.id or first.parsed.evidence.messages == []:
        fail("reporting a message", first.parsed)
    if not isinstance(again.parsed, Report) or again.parsed.id != first.parsed.id:
        fail("the same report made again", again.parsed)
    said = f"talk: {len(mine.messages)} messages at the table, {mine.messages[0].words!r} first"
    return f"{said}; report: {first.status_code.value} then {again.status_code.value}, the same report"


def analysed(me: AuthenticatedClient, anonymous: Client, game_id: str) -> str:
    """The finished game's decision analysis: requested (202, with our token), then read until the workers are done."""
    asked = request_analysis.sync(game_id, client=me)
    if not isinstance(asked, Analysis) or asked.status is AnalysisStatus.FAILED:
        fail("requestAnalysis", asked)
    answer: Analysis | Problem | None = asked
    while isinstance(answer, Analysis) and answer.status in (AnalysisStatus.QUEUED, AnalysisStatus.RUNNING):
        if time.monotonic() > DEADLINE:
            fail("the analysis did not finish in time", answer.progress)
        time.sleep(0.2)
        answer = get_analysis.sync(game_id, client=anonymous)
    if not isinstance(answer, Analysis) or not isinstance(answer.result, AnalysisResult):
        fail("getAnalysis", answer)
    result = answer.result
    if answer.progress.done != len(result.decisions) or len(result.players) != 3:
        fail("the analysis' progress and players", answer.progress)
    ours = result.players[0]
    labels = sum(1 for d in result.decisions if d.label is not None)
    wins = [d.win for d in result.decisions if d.seat == 0]
    if not wins or not all(0.0 <= w <= 1.0 for w in wins):
        fail("our win chances", wins)
    accuracy = "none" if ours.accuracy is None else f"{ours.accuracy:.1f}"
    # Our own labelled decisions across our games: this game's, as its analysis has them.
    review = list_my_mistakes.sync(client=me, label=DecisionLabel.INACCURACY)
    if not isinstance(review, MistakeList):
        fail("listMyMistakes", review)
    ours_labelled = [d for d in result.decisions if d.seat == 0 and d.label is not None and d.by is DecisionBy.PLAYER]
    if [(m.game_id, m.decision.number) for m in review.mistakes if m.game_id == game_id] != [
        (game_id, d.number) for d in ours_labelled
    ]:
        fail("listMyMistakes: our labelled decisions", review.mistakes)
    return (
        f"analysed: {len(result.decisions)} decisions, {labels} labelled, our accuracy {accuracy}, "
        f"{len(review.mistakes)} of ours listed"
    )


def play(me: AuthenticatedClient, view: GameView) -> tuple[GameView, int]:
    """Play our seat of the game in ``view`` to its end: a legal step on our turn, the feed's news otherwise; the
    game finished, and the steps we took."""
    game_id = view.id
    mine = view.you
    if not isinstance(mine, You):
        fail("we hold no seat", view.seats)
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
    return view, played


def quick_match(me: AuthenticatedClient, anonymous: Client, my_id: str) -> str:
    """A rated two-player quick match: the ticket opened and polled until it names the game (an AI takes the other
    seat after ``AI_FILL_AFTER``), the game played to its end, then its ratings, the profile and the ladder read; what
    came of it."""
    wanted = MatchTicketCreate(
        player_counts=[MatchTicketCreatePlayerCountsItem.VALUE_2],
        variant=Variant.BASIC,
        action_rules=False,
        rated=True,
        turn_seconds=MatchTicketCreateTurnSeconds.VALUE_60,
        ai_fill_after=AI_FILL_AFTER,
        ai_level=AiLevel.GREEDY,
    )
    ticket = create_match_ticket.sync(client=me, body=wanted)
    while isinstance(ticket, MatchTicket) and ticket.status == MatchTicketStatus.WAITING:
        if time.monotonic() > DEADLINE:
            fail("no match in time", ticket)
        time.sleep(0.2)
        ticket = get_match_ticket.sync(ticket.id, client=me)
    if not isinstance(ticket, MatchTicket) or ticket.status != MatchTicketStatus.MATCHED or ticket.game_id is None:
        fail("the ticket was not matched", ticket)
    if ticket.waited_seconds < AI_FILL_AFTER:
        fail("an AI sat down before ai_fill_after", ticket.waited_seconds)

    view = view_of(me, ticket.game_id)
    if view.origin != Origin.QUICK_MATCH or not view.rated or len(view.seats) != 2 or view.variant != Variant.BASIC:
        fail("the matched game is not the one asked for", view)
    view, played = play(me, view)
    ratings = applied(me, view.id)
    players = [seat.player for seat in ratings.seats]
    if sorted(p for p in players if p is not None) != sorted([my_id, f"ai:{AiLevel.GREEDY.value}"]):
        fail("the rated seats", ratings.seats)
    seat = ratings.seats[players.index(my_id)]
    if seat.rating is None or seat.change is None or seat.counted is not True:
        fail("our seat's rating: an AI level counts for a newcomer", seat)
    after = seat.rating + seat.change

    profile = get_player.sync(HANDLE.upper(), client=anonymous)  # a handle is found whatever its case
    if not isinstance(profile, PublicPlayer) or profile.id != my_id:
        fail("the profile", profile)
    ladders = profile.ratings
    standing = ladders.basic if isinstance(ladders, PlayerLadders) else None
    if not isinstance(standing, LadderStanding):
        fail("the profile shows no basic rating", ladders)
    if (standing.rating, standing.played, standing.counted) != (after, 1, 1):
        fail("the profile's rating is not the game's", (standing, seat))
    if not standing.provisional or standing.rank is not None:
        fail("one game: a provisional rating, not ranked", standing)
    if [change.game_id for change in standing.history] != [view.id]:
        fail("the profile's rating history", standing.history)
    # A provisional rating is on no leaderboard: the page around us is 404 player_not_rated.
    board = get_leaderboard.sync(Ladder.BASIC, client=anonymous, around=my_id, limit=10)
    if not isinstance(board, Problem) or board.code != "player_not_rated":
        fail("the leaderboard around us", board)
    return (
        f"quick match: matched after {ticket.waited_seconds:.1f}s, {played} steps of ours, winner seat {view.winner}; "
        f"rated {seat.rating}{seat.change:+d} = {after}, provisional: not ranked on the basic ladder yet"
    )


def applied(me: AuthenticatedClient, game_id: str) -> GameRatings:
    """The game's ratings once its ladder has it (the workers apply it a few seconds after the end at most)."""
    while True:
        ratings = view_of(me, game_id).ratings
        if not isinstance(ratings, GameRatings):
            fail("a rated game's view without ratings", ratings)
        if ratings.applied:
            return ratings
        if time.monotonic() > DEADLINE:
            fail("the game's ratings were never applied", ratings)
        time.sleep(0.2)


def archived(me: AuthenticatedClient, anonymous: Client, my_id: str) -> str:
    """The player's archive paged a game at a time by its cursor (as anyone reads it: no token), equal to one page of
    it all; then its bulk export, gzip-compressed on the wire, every line parsed as a replay, in the same order, and
    the first imported (the server verifies it) under its own hash, exportReplay's."""
    paged: list[str] = []
    cursor: str | None = None
    pages = 0
    while True:
        page = list_player_games.sync(my_id, client=anonymous, limit=1, cursor=cursor if cursor is not None else UNSET)
        if not isinstance(page, PlayerGames) or page.player_id != my_id:
            fail("a page of the archive", page)
        pages += 1
        paged += [game.game_id for game in page.games]
        if not isinstance(page.next_cursor, str):
            break
        cursor = page.next_cursor
    whole = list_player_games.sync(HANDLE, client=anonymous, limit=100)
    if not isinstance(whole, PlayerGames) or [game.game_id for game in whole.games] != paged or len(paged) < 2:
        fail("the archive paged by its cursor", (paged, whole))
    export = export_player_games.sync_detailed(my_id, client=anonymous)  # httpx asks for gzip, and unpacks it
    if export.status_code != HTTPStatus.OK or export.headers.get("content-encoding") != "gzip":
        fail("the bulk export", (export.status_code, export.headers))
    replays = [Replay.from_dict(json.loads(line)) for line in export.content.decode().splitlines()]
    if [replay.game_id for replay in replays] != paged:
        fail("the export's lines", [replay.game_id for replay in replays])
    first = replays[0]
    checked = import_replay.sync_detailed(client=me, body=first)
    imported = checked.parsed
    exported = export_replay.sync(first.game_id, client=anonymous)
    if checked.status_code not in (HTTPStatus.OK, HTTPStatus.CREATED) or not isinstance(imported, Imported):
        fail("importing an export's line", checked.content[:500])
    if not isinstance(exported, Replay) or imported.hash_ != first.hash_ or first.hash_ != exported.hash_:
        fail("the line's hash", (imported, first.hash_))
    return f"archive: {len(paged)} games in {pages} pages by the cursor; {len(replays)} export lines (gzip) parsed, one verified"


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
