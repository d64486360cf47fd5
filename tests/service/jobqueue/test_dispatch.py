"""What is due after an append, and enqueueing it exactly once."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from engine import GameFinished, RoundWon, TurnStarted
from engine.events import Color, Finish
from service.application.followups import Due, due
from service.jobqueue.dispatch import receiver
from tests.harness.support import HUMAN, ai


def jobs(items: list[Due]) -> list[str]:
    return sorted(item.job for item in items)


def test_an_ai_to_move_needs_an_ai_turn(api):
    token = api.player()["token"]
    game = api.game(token, [ai("random"), ai("greedy")])
    loaded = api.runtime.games.load(game["id"])
    assert [(d.job, d.version) for d in due(loaded)] == [("ai_turn", loaded.version)]


def test_a_human_to_move_is_notified_only_when_the_turn_starts_and_gets_a_deadline(api):
    token = api.player()["token"]
    game = api.game(token, [HUMAN, HUMAN], turn_timeout=60)
    bo = api.player("Bo")["token"]
    api.call("POST", f"/v1/games/{game['id']}/join", bo, json={"code": game["join_code"]})
    loaded = api.runtime.games.load(game["id"])
    seat = loaded.seat_to_move()
    started = due(loaded, [TurnStarted(seat)])
    assert jobs(started) == ["notify", "turn_deadline"]
    notify = next(d for d in started if d.job == "notify")
    assert notify.args == (loaded.seats[seat].player_id, "your_turn")
    deadline = next(d for d in started if d.job == "turn_deadline")
    begun = datetime.fromisoformat(loaded.turn_started_at.replace("Z", "+00:00"))
    assert deadline.at == begun + timedelta(seconds=60)
    assert jobs(due(loaded)) == ["turn_deadline"]  # a re-read: no second notification


def test_round_and_game_ends_notify_every_human(api):
    ana, bo = api.player()["token"], api.player("Bo")["token"]
    game = api.game(ana, [HUMAN, HUMAN, ai()])
    api.call("POST", f"/v1/games/{game['id']}/join", bo, json={"code": game["join_code"]})
    loaded = api.runtime.games.load(game["id"])
    ends = [RoundWon(0, Color.RED), GameFinished(0, Finish.TARGET_REACHED)]
    notes = [d.args[1] for d in due(loaded, ends) if d.job == "notify"]
    assert sorted(notes) == ["game_finished", "game_finished", "round_over", "round_over"]


def test_the_same_job_is_enqueued_once(api):
    token = api.player()["token"]
    game = api.game(token, [ai("random"), ai("greedy")])
    runtime = api.runtime
    item = Due("ai_turn", game["id"], game["version"])
    assert not runtime.dispatcher.enqueue(item)  # creating the game queued it already
    assert runtime.queue.count == 1
    runtime.queue.connection.delete(
        f"{runtime.settings.key_prefix}jobs:{{{game['id']}}}:{item.job_id(runtime.dispatcher.namespace)}"
    )
    assert not runtime.dispatcher.enqueue(item)  # still queued: not again
    assert runtime.queue.count == 1


def test_a_failed_job_can_be_queued_again_so_a_stalled_game_recovers_on_read(api):
    api.runtime.games.recover_after = 0  # the game counts as quiet at once
    token = api.player()["token"]
    game = api.game(token, [ai("random"), ai("greedy")])
    runtime = api.runtime
    item = Due("ai_turn", game["id"], game["version"])
    job_id = item.job_id(runtime.dispatcher.namespace)
    job = runtime.queue.fetch_job(job_id)
    runtime.queue.remove(job)
    job.set_status("failed")
    runtime.queue.connection.delete(f"{runtime.settings.key_prefix}jobs:{{{game['id']}}}:{job_id}")
    assert runtime.queue.count == 0
    api.view(game["id"], token)  # a read re-offers what the game needs
    assert runtime.queue.count == 1
    api.run_jobs()
    assert api.view(game["id"], token)["status"] == "finished"


def test_deadlines_wait_on_the_agenda_at_their_exact_time_not_in_the_queue(api):
    token = api.player()["token"]
    game = api.game(token, [HUMAN, ai()], turn_timeout=600, seed=4)
    api.run_jobs()
    assert api.runtime.queue.count == 0
    assert api.runtime.queue.scheduled_job_registry.count == 0  # RQ's scheduler keeps whole seconds, rounded down
    deadline = datetime.fromisoformat(api.view(game["id"], token)["turn"]["deadline"].replace("Z", "+00:00"))
    assert api.runtime.dispatcher.agenda.when(game["id"]) == int(deadline.timestamp() * 1000)


@pytest.mark.parametrize(
    ("url", "line"),
    [
        ("https://Hooks.Example.com/a?x=1", "hooks.example.com:443"),
        ("http://hooks.example.com/b", "hooks.example.com:80"),
        ("https://hooks.example.com:8443/", "hooks.example.com:8443"),
        ("http://[::1]:9/", "[::1]:9"),
        ("https://bücher.example/", "xn--bcher-kva.example:443"),
    ],
)
def test_a_webhook_s_line_is_its_receiver_s_host_and_port(url, line):
    """Every URL on one host and port waits in one line, whoever's it is (a receiver that hangs hangs for all of them)."""
    assert receiver(url) == line
