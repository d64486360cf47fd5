"""A request's id carried on by the jobs it causes into the jobs they queue (issue 41, item 2): the AI's turn a move
made due queues the notices of its own move under the move's request id, and a ``notices`` job hands a failed
delivery to its line under it too.  (From a request into its first job: tests/service/http/test_request_ids.py.)"""

from __future__ import annotations

import pytest

from service.application.followups import Due
from tests.harness.support import HUMAN, ai
from tests.workers.test_jobs import Receiver, receiver  # noqa: F401 (fixture)
from tests.workers.test_notices import hooked, run_one
from workers.runner import thread_worker

pytestmark = pytest.mark.usefixtures("jobs_installed")  # job code run here finds this test's runtime


def metas(queue) -> dict[str, dict]:
    """Each queued job's meta, by the job's name."""
    return {job.id: (job.func_name, job.meta) for job in queue.jobs}


def test_the_jobs_an_ai_turn_queues_carry_the_request_id_of_the_move_that_caused_it(api, receiver):  # noqa: F811
    token = api.player("Ana")["token"]  # her webhook: the AI's move queues a notices job for her (your turn)
    assert api.call("PATCH", "/v1/players/me", token, json={"webhook_url": receiver}).status_code == 200
    for seed in range(1, 30):  # a deal where Ana leads (no AI turn queued by the creation)
        game = api.game(token, [HUMAN, ai("greedy")], seed=seed)
        if game["turn"]["seat"] == 0:
            break
    view = api.view(game["id"], token)
    while view["legal_steps"]:
        steps = [s for s in view["legal_steps"] if s["type"] != "fold"] or view["legal_steps"]
        step = {k: steps[0][k] for k in ("type", "card", "seat", "to") if k in steps[0]}
        answer = api.act(game["id"], token, [step], headers={"X-Request-Id": "move-77"})
        assert answer.status_code == 200, answer.get_json()
        view = answer.get_json()
    queued = [job for job in api.runtime.queue.jobs if job.func_name == "ai_turn"]
    assert [job.meta.get("request_id") for job in queued] == ["move-77"]
    api.runtime.webhook_queue.empty()  # what the move itself queued: not the AI job's
    thread_worker(api.runtime, [api.runtime.queue]).work(burst=True, max_jobs=1, logging_level="CRITICAL")
    caused = metas(api.runtime.webhook_queue) | metas(api.runtime.queue)
    assert any(name == "notices" for name, _ in caused.values()), caused  # Ana's turn again, told by the AI's job
    assert all(meta.get("request_id") == "move-77" for _, meta in caused.values()), caused


def test_a_notices_job_hands_a_failed_delivery_to_its_line_under_its_request_id(api, receiver):  # noqa: F811
    ana = hooked(api, receiver)
    Receiver.status = 503
    api.runtime.dispatcher.notify([Due("notify", "g_a", 1, (ana["id"], "your_turn"))], request_id="move-88")
    run_one(api)
    retries = metas(api.runtime.webhook_queue)
    assert [name for name, _ in retries.values()] == ["notify"]
    assert [meta.get("request_id") for _, meta in retries.values()] == ["move-88"]
