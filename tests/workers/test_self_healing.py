"""Games never stall: whatever happened to the job meant to move a game, a read or the ticker queues it again.

Each test breaks the job of a game that waits on an AI (killed with its
worker, lost from its queue, finished without its append, lost with its
schedule) and checks that the next look at the game queues it again — and
that a job still on its way is left alone, so a job is never run twice for
nothing.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from rq.job import Job, JobStatus

from service.application.followups import Due, due
from service.jobqueue.dispatch import FAILED_AGAIN_AFTER, QUEUED_LOST_AFTER, RECHECK_AFTER, STARTED_GRACE
from service.jobqueue.liveness import IDLE, pulse_key, runs
from tests.harness.support import HUMAN, ai
from workers.ticker import ROLE_TTL, Ticker


def waiting_on_an_ai(api):
    """A game whose next move is an AI's, with that job queued; the job is returned."""
    token = api.player()["token"]
    game = api.game(token, [ai("random"), ai("greedy")])
    item = Due("ai_turn", game["id"], game["version"])
    job = api.runtime.queue.job_class.fetch(
        item.job_id(api.runtime.dispatcher.namespace), connection=api.runtime.raw_redis, serializer=api.runtime.queue.serializer
    )
    return token, game, job


def clear_marker(api, game_id: str, job: Job) -> None:
    """The enqueue marker only stops racing enqueuers for a few seconds; tests skip that wait."""
    api.runtime.raw_redis.delete(f"{api.runtime.settings.key_prefix}jobs:{{{game_id}}}:{job.id}")


def mark_started_by(api, job: Job, worker_name: str) -> None:
    """The job as RQ leaves it when its worker dies mid-run: started a while ago, with the worker's name."""
    api.runtime.queue.remove(job)
    job.worker_name = worker_name
    job.started_at = datetime.now(UTC) - timedelta(seconds=STARTED_GRACE + 1)
    job.save()
    job.set_status(JobStatus.STARTED)


def pulse(api, worker_name: str, says: str) -> None:
    api.runtime.raw_redis.set(pulse_key(api.runtime.settings.key_prefix, worker_name), says.encode(), px=4000)


def reoffer(api, game_id: str, *, later: float = 0.0) -> None:
    dispatcher = api.runtime.dispatcher
    if later:
        dispatcher.clock = lambda: datetime.now(UTC) + timedelta(seconds=later)
    game = api.runtime.games.load(game_id)
    dispatcher.reoffer(game, due(game))


def test_a_job_started_by_a_worker_that_stopped_pulsing_is_taken_over(api):
    token, game, job = waiting_on_an_ai(api)
    mark_started_by(api, job, "gone-worker")
    clear_marker(api, game["id"], job)
    assert not runs(api.runtime.raw_redis, api.runtime.settings.key_prefix, "gone-worker", job.id)
    reoffer(api, game["id"])
    assert api.runtime.queue.count == 1
    assert Job.fetch(job.id, connection=api.runtime.raw_redis).get_status() == JobStatus.QUEUED
    assert job.id not in api.runtime.queue.started_job_registry.get_job_ids()
    api.run_jobs()
    assert api.view(game["id"], token)["status"] == "finished"


def test_a_job_running_on_a_worker_that_pulses_is_left_alone(api):
    _, game, job = waiting_on_an_ai(api)
    mark_started_by(api, job, "busy-worker")
    pulse(api, "busy-worker", job.id)
    clear_marker(api, game["id"], job)
    reoffer(api, game["id"])
    assert api.runtime.queue.count == 0
    assert Job.fetch(job.id, connection=api.runtime.raw_redis).get_status() == JobStatus.STARTED


@pytest.mark.parametrize("says", [IDLE, "another-job"])
def test_a_job_redis_says_started_on_a_live_worker_that_runs_something_else_is_taken_over(api, says):
    """A worker lived through a Redis that lost its last writes: Redis says it runs the job, the worker does not."""
    _, game, job = waiting_on_an_ai(api)
    mark_started_by(api, job, "survivor")
    pulse(api, "survivor", says)
    clear_marker(api, game["id"], job)
    reoffer(api, game["id"])
    assert api.runtime.queue.count == 1


def test_a_job_started_a_moment_ago_is_left_alone_before_its_worker_pulses_its_name(api):
    _, game, job = waiting_on_an_ai(api)
    mark_started_by(api, job, "new-worker")
    job.started_at = datetime.now(UTC)
    job.save()
    clear_marker(api, game["id"], job)
    reoffer(api, game["id"])
    assert api.runtime.queue.count == 0


def test_a_job_lost_from_its_queue_is_queued_again_once_it_should_have_run(api):
    token, game, job = waiting_on_an_ai(api)
    api.runtime.raw_redis.lrem(api.runtime.queue.key, 0, job.id)  # Redis lost the push, or a worker died after popping it
    clear_marker(api, game["id"], job)
    reoffer(api, game["id"])
    assert api.runtime.queue.count == 0, "just queued: it may be in a worker's hands this very moment"
    reoffer(api, game["id"], later=QUEUED_LOST_AFTER + 1)
    assert api.runtime.queue.count == 1
    api.run_jobs()
    assert api.view(game["id"], token)["status"] == "finished"


def test_a_job_waiting_in_a_long_queue_is_left_alone(api):
    _, game, job = waiting_on_an_ai(api)
    clear_marker(api, game["id"], job)
    reoffer(api, game["id"], later=QUEUED_LOST_AFTER + 1)
    assert api.runtime.queue.count == 1  # still there once: not queued twice


def test_a_job_that_finished_without_moving_the_game_runs_again(api):
    """Redis lost the append but kept the job's end (a failover to a replica that had only part of it)."""
    token, game, job = waiting_on_an_ai(api)
    api.runtime.queue.remove(job)
    job.set_status(JobStatus.FINISHED)
    clear_marker(api, game["id"], job)
    reoffer(api, game["id"])
    assert api.runtime.queue.count == 1
    api.run_jobs()
    assert api.view(game["id"], token)["status"] == "finished"


def test_a_retry_overdue_in_a_schedule_nobody_keeps_is_queued(api):
    _, game, job = waiting_on_an_ai(api)
    api.runtime.queue.remove(job)
    api.runtime.queue.schedule_job(job, datetime.now(UTC) - timedelta(seconds=30))
    clear_marker(api, game["id"], job)
    reoffer(api, game["id"])
    assert api.runtime.queue.count == 1
    assert api.runtime.queue.scheduled_job_registry.count == 0


@pytest.mark.parametrize("path", ["", "/events", "/events?wait=1", "/stream"])
def test_every_read_of_a_quiet_game_reoffers_what_it_needs(api, path):
    api.runtime.games.recover_after = 0  # quiet at once
    token, game, job = waiting_on_an_ai(api)
    mark_started_by(api, job, "gone-worker")
    clear_marker(api, game["id"], job)
    response = api.call("GET", f"/v1/games/{game['id']}{path}", token)
    assert response.status_code == 200
    response.get_data()  # a stream's body is produced as it is read
    assert api.runtime.queue.count == 1


def test_the_agenda_holds_games_that_wait_on_the_service_and_drops_the_others(api):
    agenda = api.runtime.dispatcher.agenda
    token, game, _ = waiting_on_an_ai(api)
    before = int(datetime.now(UTC).timestamp() * 1000)
    when = agenda.when(game["id"])
    assert when is not None and 0 < when - before <= RECHECK_AFTER * 1000 + 1000  # a look in case the job never runs
    api.run_jobs()
    assert api.view(game["id"], token)["status"] == "finished"
    compact_at = agenda.when(game["id"])  # over: looked at again when its grace is over, to compact its stream
    grace = api.runtime.settings.compact_after * 1000
    assert compact_at is not None and before + grace - 1000 < compact_at <= int(datetime.now(UTC).timestamp() * 1000) + grace
    human = api.game(token, [HUMAN, HUMAN])
    assert agenda.when(human["id"]) is None  # waits on its players only


def test_the_ticker_moves_on_a_game_nobody_reads(api):
    """The job of a game was lost (Redis lost it, or it was never queued): its agenda entry brings it back."""
    token, game, job = waiting_on_an_ai(api)
    job.delete()
    clear_marker(api, game["id"], job)
    agenda = api.runtime.dispatcher.agenda
    agenda.look_at(game["id"], 0)  # its time has come
    ticker = Ticker(api.runtime, "test")
    assert ticker.tick() == 1
    assert api.runtime.queue.count == 1
    assert agenda.when(game["id"]) > int(datetime.now(UTC).timestamp() * 1000)  # looked at again later, not at every tick
    api.run_jobs()
    assert api.view(game["id"], token)["status"] == "finished"


def test_a_look_does_not_undo_an_append_made_meanwhile(api):
    _, game, _ = waiting_on_an_ai(api)
    agenda = api.runtime.dispatcher.agenda
    agenda.look_at(game["id"], 1000)
    seen = 1000
    agenda.look_at(game["id"], 5000)  # an append rescheduled it after the ticker read it
    assert not agenda.reschedule(game["id"], seen, None)
    assert agenda.when(game["id"]) == 5000
    assert agenda.reschedule(game["id"], 5000, None)
    assert agenda.when(game["id"]) is None


def test_a_deadline_is_queued_by_the_ticker_once_it_comes(api):
    token = api.player()["token"]
    game = api.game(token, [HUMAN, ai()], turn_timeout=600, seed=4)
    api.run_jobs()
    ticker = Ticker(api.runtime, "test")
    ticker.tick()
    assert api.runtime.queue.count == 0  # not yet
    api.runtime.dispatcher.agenda.look_at(game["id"], 0)
    api.runtime.dispatcher.clock = lambda: datetime.now(UTC) + timedelta(seconds=601)
    ticker.tick()
    assert [j.func_name for j in api.runtime.queue.get_jobs()] == ["turn_deadline"]


def test_one_ticker_holds_the_role_and_another_takes_it_when_the_holder_stops(api):
    first, second = Ticker(api.runtime, "first"), Ticker(api.runtime, "second")
    assert first.holds_role()
    assert not second.holds_role()
    assert first.holds_role()  # renewed
    ttl = api.runtime.raw_redis.pttl(first.role_key)
    assert 0 < ttl <= ROLE_TTL * 1000
    api.runtime.raw_redis.delete(first.role_key)  # the holder died: its key expired
    assert second.holds_role()
    assert not first.holds_role()


def test_a_job_that_failed_for_good_runs_again_but_not_at_every_look(api):
    _, game, job = waiting_on_an_ai(api)
    api.runtime.queue.remove(job)
    job.ended_at = datetime.now(UTC)
    job.save()
    job.set_status(JobStatus.FAILED)
    clear_marker(api, game["id"], job)
    reoffer(api, game["id"])
    assert api.runtime.queue.count == 0  # it just failed: not again at once
    reoffer(api, game["id"], later=FAILED_AGAIN_AFTER + 1)
    assert api.runtime.queue.count == 1


class DiesAfterTheAppend:
    """The job system of a process that notes the game before its append, then dies before it queues anything."""

    def __init__(self, dispatcher):
        self.dispatcher = dispatcher

    def before_append(self, game_id):
        return self.dispatcher.before_append(game_id)

    def after_append(self, game, items, mark, *, playing_on=False, request_id=None):
        return None

    def __getattr__(self, name):
        return getattr(self.dispatcher, name)


def test_a_game_is_on_the_agenda_before_its_append_so_a_process_dying_after_it_stalls_nothing(api):
    """The append is stored, then the process dies before it queues the AI's turn: the ticker does."""
    token = api.player()["token"]
    game = api.game(token, [HUMAN, ai("greedy")], seed=4)
    api.run_jobs()
    view = api.view(game["id"], token)
    assert view["turn"]["seat"] == 0
    runtime = api.runtime
    runtime.games.followups = DiesAfterTheAppend(runtime.dispatcher)  # nothing is queued after the append
    step = next(s for s in view["legal_steps"] if s["type"] != "fold")
    chosen = {k: step[k] for k in ("type", "card", "draw") if k in step}
    assert api.act(game["id"], token, [chosen]).status_code == 200
    assert runtime.queue.count == 0
    after = runtime.games.load(game["id"])
    if after.seat_to_move() == 1:  # the AI is to move (not a round end)
        when = runtime.dispatcher.agenda.when(game["id"])
        assert when is not None
        runtime.dispatcher.agenda.look_at(game["id"], 0)  # its time has come
        runtime.dispatcher.clock = lambda: datetime.now(UTC)
        assert Ticker(runtime, "test").tick() == 1
        assert [j.func_name for j in runtime.queue.get_jobs()] in (["ai_turn"], ["score_round"])


def two_humans(api, **options):
    """An active game of two people; their tokens by seat."""
    ana, bo = api.player(), api.player("Bo")
    game = api.game(ana["token"], [HUMAN, HUMAN], **options)
    joined = api.call("POST", f"/v1/games/{game['id']}/join", bo["token"], json={"code": game["join_code"]})
    assert joined.status_code == 200
    loaded = api.runtime.games.load(game["id"])
    return game["id"], {loaded.seat_of(p["id"]): p["token"] for p in (ana, bo)}


def a_step(api, game_id, token):
    view = api.view(game_id, token)
    step = next(s for s in view["legal_steps"] if s["type"] != "fold")
    return [{k: step[k] for k in ("type", "card", "draw") if k in step}]


def agenda_commands(api, monkeypatch):
    """The commands the queue's Redis is sent that name the agenda (a mark, a reschedule, a forget), as they go."""
    sent = []
    client = api.runtime.dispatcher.agenda.redis
    key = api.runtime.dispatcher.agenda.key
    execute = client.execute_command

    def counted(*args, **options):
        if any(arg == key or arg == key.encode() for arg in args):
            sent.append(args[0])
        return execute(*args, **options)

    monkeypatch.setattr(client, "execute_command", counted)
    return sent


def test_a_move_in_a_game_of_people_without_a_clock_leaves_the_agenda_alone(api, monkeypatch):
    """Nothing the agenda times before the move nor after it: no mark before the append, nothing after."""
    game_id, tokens = two_humans(api)
    sent = agenda_commands(api, monkeypatch)
    seat = api.runtime.games.load(game_id).seat_to_move()
    assert api.act(game_id, tokens[seat], a_step(api, game_id, tokens[seat])).status_code == 200
    assert api.runtime.games.load(game_id).version > 0 and sent == []
    assert api.runtime.dispatcher.agenda.when(game_id) is None


def test_an_entry_left_on_the_agenda_of_a_game_of_people_is_dropped_by_the_ticker(api):
    """A stale look (an append that conflicted after its mark, a crash) is harmless: looked at once, then dropped."""
    game_id, tokens = two_humans(api)
    seat = api.runtime.games.load(game_id).seat_to_move()
    api.runtime.dispatcher.agenda.look_at(game_id, 0)
    assert api.act(game_id, tokens[seat], a_step(api, game_id, tokens[seat])).status_code == 200
    assert api.runtime.dispatcher.agenda.when(game_id) == 0  # the move left it there
    assert Ticker(api.runtime, "test").tick() == 1
    assert api.runtime.dispatcher.agenda.when(game_id) is None and api.runtime.queue.count == 0


def test_a_clocked_move_is_on_the_agenda_before_its_append_so_a_process_dying_after_it_stalls_nothing(api):
    game_id, tokens = two_humans(api, turn_timeout=60)
    runtime = api.runtime
    seat = runtime.games.load(game_id).seat_to_move()
    runtime.games.followups = DiesAfterTheAppend(runtime.dispatcher)
    runtime.dispatcher.agenda.forget(game_id)
    assert api.act(game_id, tokens[seat], a_step(api, game_id, tokens[seat])).status_code == 200
    when = runtime.dispatcher.agenda.when(game_id)
    assert when is not None and when <= int(datetime.now(UTC).timestamp() * 1000) + RECHECK_AFTER * 1000 + 1000
    runtime.dispatcher.agenda.look_at(game_id, 0)  # its time has come: the ticker notes the new turn's deadline
    assert Ticker(runtime, "test").tick() == 1
    after = runtime.games.load(game_id)
    deadline = next(d for d in due(after) if d.job == "turn_deadline")
    assert runtime.dispatcher.agenda.when(game_id) == int(deadline.at.timestamp() * 1000)


def test_a_late_after_append_does_not_undo_a_newer_appends_look(api):
    """An append's dispatch that finds nothing due drops only the look its own append noted."""
    token = api.player()["token"]
    game = api.game(token, [HUMAN, HUMAN])  # waits on its players only
    dispatcher = api.runtime.dispatcher
    loaded = api.runtime.games.load(game["id"])
    old_mark = dispatcher.before_append(game["id"])
    newer_mark = old_mark + 5000
    dispatcher.agenda.look_at(game["id"], newer_mark)  # a newer append noted the game since
    dispatcher.after_append(loaded, (), old_mark)
    assert dispatcher.agenda.when(game["id"]) == newer_mark
    dispatcher.after_append(loaded, (), newer_mark)
    assert dispatcher.agenda.when(game["id"]) is None


def test_a_retry_waiting_in_the_schedule_is_queued_once_by_two_tickers(api):
    _, _, job = waiting_on_an_ai(api)
    api.runtime.queue.remove(job)
    api.runtime.queue.schedule_job(job, datetime.now(UTC) - timedelta(seconds=1))
    first, second = Ticker(api.runtime, "first"), Ticker(api.runtime, "second")
    first.enqueue_scheduled()
    second.enqueue_scheduled()
    assert api.runtime.queue.get_job_ids() == [job.id]


def test_a_game_that_cannot_be_looked_at_does_not_stop_the_others(api, monkeypatch):
    _, broken, job_a = waiting_on_an_ai(api)
    _, fine, job_b = waiting_on_an_ai(api)
    for game, job in ((broken, job_a), (fine, job_b)):
        job.delete()
        clear_marker(api, game["id"], job)
    agenda = api.runtime.dispatcher.agenda
    agenda.look_at(broken["id"], 0)
    agenda.look_at(fine["id"], 1)
    real_load = api.runtime.games.load

    def load(game_id: str):
        if game_id == broken["id"]:
            raise ValueError("a history this service cannot fold")
        return real_load(game_id)

    monkeypatch.setattr(api.runtime.games, "load", load)
    assert Ticker(api.runtime, "test").tick() == 2
    assert [j.args[0] for j in api.runtime.queue.get_jobs()] == [fine["id"]]
    assert agenda.when(broken["id"]) == 60_000  # looked at again in a minute
