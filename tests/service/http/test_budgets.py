"""Rate limits charged by one script (service/http/budgets.py): one command per request at most, within their stated
error.

The stated error: a fixed window (at most ``n`` a window, ``2n`` across a window's end), a process's unspent lease
(``n / 20``) refused early in the other processes, and a token's budget counted per address it comes from.  These
run on fakeredis (slot-checked: the script's keys on one slot), the real Redis and the cluster.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.http.app import create_app
from service.runtime import build_runtime
from tests.harness.support import settings_for

pytestmark = pytest.mark.on_cluster


def counted(client: Any) -> Counter[str]:
    """Count the commands ``client`` sends from now on (its own ``execute_command`` wrapped)."""
    sent: Counter[str] = Counter()
    original = client.execute_command

    def execute_command(*args: Any, **options: Any) -> Any:
        sent[str(args[0]).upper()] += 1
        if any("limits:{" in str(arg) for arg in args):
            sent["rate limits"] += 1
        return original(*args, **options)

    client.execute_command = execute_command
    return sent


def limited_app(redis_pair, key_prefix, **limits: str):
    runtime = build_runtime(settings_for(key_prefix, **limits), clients=redis_pair)
    return runtime, create_app(runtime)


ALL_FOUR = {  # under 40 a window: a unit at a time, each request charged in Redis
    "rate_limit_token": "35 per minute",
    "rate_limit_address": "39 per minute",
    "rate_limit_signup": "30 per minute",
    "rate_limit_import": "20 per minute",
    "rate_limit_analysis": "10 per minute",
}


def test_a_request_pays_one_command_however_many_budgets_it_draws_on(redis_pair, key_prefix):
    runtime, app = limited_app(redis_pair, key_prefix, **ALL_FOUR)
    (charge_limits,) = [f for f in app.before_request_funcs[None] if getattr(f, "__name__", "") == "before_request"]
    rate = charge_limits.__self__
    sent = counted(runtime.redis)
    with app.test_request_context("/v1/games/g_1", environ_base={"REMOTE_ADDR": "10.0.0.9"}):
        rate.charge()  # the first loads the script (NOSCRIPT, SCRIPT LOAD, EVALSHA again): once per server
    assert set(sent) <= {"EVALSHA", "EVAL", "SCRIPT LOAD", "rate limits"}
    for method, path, headers, drawn in [
        ("GET", "/v1/games/g_1", {"Authorization": "Bearer t_abc"}, {"address", "token"}),
        ("POST", "/v1/replays", {"Authorization": "Bearer t_abc"}, {"address", "token", "import"}),
        ("POST", "/v1/games/g_1/analysis", {"Authorization": "Bearer t_abc"}, {"address", "token", "analysis"}),
        ("POST", "/v1/replays/r_1/analysis", {"Authorization": "Bearer t_abc"}, {"address", "token", "analysis"}),
        ("GET", "/v1/games/g_1/analysis", {"Authorization": "Bearer t_abc"}, {"address", "token"}),
        ("POST", "/v1/players", {}, {"address", "signup"}),
        ("GET", "/v1/games/g_1", {}, {"address"}),
    ]:
        sent.clear()
        with app.test_request_context(path, method=method, headers=headers, environ_base={"REMOTE_ADDR": "10.0.0.7"}):
            charges = rate.charge()
        assert {c.budget.name for c in charges} == drawn, path
        assert sent["rate limits"] == 1 and sum(sent.values()) == 2 and set(sent) <= {"EVALSHA", "EVAL", "rate limits"}, sent
        assert all(c.count == 1 for c in charges if c.budget.name in ("signup", "import")), path
        assert all(c.count <= 2 for c in charges if c.budget.name == "analysis"), "both operations draw on one budget"


def test_429_with_retry_after_when_any_budget_is_spent(redis_pair, key_prefix):
    _, app = limited_app(redis_pair, key_prefix, rate_limit_address="3 per minute", rate_limit_token="100 per minute")
    client = app.test_client()
    answers = [client.get("/v1/games/g_unknown", headers={"Authorization": "Bearer t_x"}) for _ in range(5)]
    assert [a.status_code for a in answers] == [401, 401, 401, 429, 429]  # an unknown token: 401 while within budget
    assert answers[3].get_json()["code"] == "rate_limited"
    assert 0 < int(answers[3].headers["Retry-After"]) <= 60
    assert answers[2].headers["X-RateLimit-Remaining"] == "0" and answers[2].headers["X-RateLimit-Limit"] == "3"
    for answer in answers:  # the tightest budget's, once each, on a refusal too
        assert answer.headers.getlist("X-RateLimit-Limit") == ["3"], answer.headers
        assert len(answer.headers.getlist("X-RateLimit-Remaining")) == len(answer.headers.getlist("X-RateLimit-Reset")) == 1


def test_a_window_closes_after_its_period_and_the_budget_is_whole_again(redis_pair, key_prefix):
    _, app = limited_app(redis_pair, key_prefix, rate_limit_address="2 per second")
    client = app.test_client()
    first = [client.get("/v1/games/g_unknown").status_code for _ in range(3)]
    refused = client.get("/v1/games/g_unknown")
    assert first == [404, 404, 429] and refused.headers["Retry-After"] == "1"
    time.sleep(1.1)
    assert [client.get("/v1/games/g_unknown").status_code for _ in range(3)] == [404, 404, 429]


def test_the_script_is_loaded_again_when_redis_forgot_it(redis_pair, key_prefix, backend):
    runtime, app = limited_app(redis_pair, key_prefix, rate_limit_address="3 per minute")
    client = app.test_client()
    assert client.get("/v1/games/g_unknown").status_code == 404
    if backend == "cluster":
        for node in runtime.redis.get_primaries():
            runtime.redis.get_redis_connection(node).script_flush()
    else:
        runtime.redis.script_flush()
    assert [client.get("/v1/games/g_unknown").status_code for _ in range(3)] == [404, 404, 429]


def test_a_tokens_budget_is_counted_per_address(redis_pair, key_prefix):
    """The stated error: a token used from two addresses has a budget at each; each address keeps its own."""
    _, app = limited_app(redis_pair, key_prefix, rate_limit_token="2 per minute", rate_limit_address="3 per minute")
    client = app.test_client()

    def get(address: str, token: str = "t_one") -> int:
        headers = {"Authorization": f"Bearer {token}"}
        return client.get("/v1/games/g_unknown", headers=headers, environ_base={"REMOTE_ADDR": address}).status_code

    assert [get("10.0.0.1") for _ in range(3)] == [401, 401, 429]  # the token's budget, at the first address
    assert [get("10.0.0.2") for _ in range(2)] == [401, 401]  # its budget at another
    assert [get("10.0.0.2", "t_two"), get("10.0.0.2", "t_three")] == [401, 429]  # that address's own budget: 3


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    requests=st.lists(st.tuples(st.sampled_from(["10.0.0.1", "10.0.0.2"]), st.sampled_from(["", "t_a", "t_b"])), max_size=40),
    token_limit=st.integers(1, 6),
    address_limit=st.integers(1, 10),
)
def test_limits_hold_exactly_within_one_window(redis_pair, backend, requests, token_limit, address_limit):
    """Within one window, a request is let through iff neither of its counters passes its limit: a model of the
    budgets (per address; per token and address) says which, request by request."""
    if backend != "fakeredis" and len(requests) > 15:
        requests = requests[:15]  # the real servers are slower: the same property on shorter runs
    prefix = f"red7-test:{uuid.uuid4().hex[:12]}:"
    limits = {"rate_limit_token": f"{token_limit} per hour", "rate_limit_address": f"{address_limit} per hour"}
    _, app = limited_app(redis_pair, prefix, **limits)
    client = app.test_client()
    spent: Counter[tuple[str, str]] = Counter()
    try:
        for address, token in requests:
            headers = {"Authorization": f"Bearer {token}"} if token else {}
            status = client.get("/v1/games/g_unknown", headers=headers, environ_base={"REMOTE_ADDR": address}).status_code
            spent[(address, "")] += 1
            over = spent[(address, "")] > address_limit
            if token:
                spent[(address, token)] += 1
                over = over or spent[(address, token)] > token_limit
            assert (status == 429) == over, (address, token, status, spent)
    finally:
        stores = redis_pair[0]
        for key in list(stores.scan_iter(match=f"{prefix}*", count=500)):
            stores.delete(key)


def test_a_process_spends_its_lease_without_asking_redis_and_never_more_than_the_limit(redis_pair, key_prefix):
    runtime, app = limited_app(redis_pair, key_prefix, rate_limit_address="600 per minute")
    client = app.test_client()
    sent = counted(runtime.redis)
    statuses = Counter(client.get("/v1/games/g_unknown").status_code for _ in range(650))
    assert statuses == {404: 600, 429: 50}
    # a lease of 30 at a time (the first asked twice: NOSCRIPT); the spent window refused without asking again
    assert sent["rate limits"] <= 600 // 30 + 2, sent


def test_processes_sharing_a_budget_never_let_more_than_its_limit_through(redis_pair, key_prefix):
    """Three processes (three apps, leases of their own) serving one address in turn: at most the limit goes
    through, and at most what the others leased and did not spend (2 x 100/20) is refused early."""
    apps = [limited_app(redis_pair, key_prefix, rate_limit_address="100 per minute")[1].test_client() for _ in range(3)]
    through = sum(apps[n % 3].get("/v1/games/g_unknown").status_code == 404 for n in range(200))
    assert 100 - 2 * 5 <= through <= 100


def test_a_lease_ends_with_its_window(redis_pair, key_prefix):
    _, app = limited_app(redis_pair, key_prefix, rate_limit_address="40 per second")  # leases of 2
    client = app.test_client()
    assert Counter(client.get("/v1/games/g_unknown").status_code for _ in range(45)) == {404: 40, 429: 5}
    time.sleep(1.1)
    assert Counter(client.get("/v1/games/g_unknown").status_code for _ in range(41)) == {404: 40, 429: 1}


def test_threads_taking_leases_at_once_lose_no_unit(redis_pair, key_prefix):
    """Sixteen threads of one process, each finding the lease spent at once, each take one: the process keeps them
    all, so its client is refused nothing below the limit (a lease replaced by another's lost its units)."""
    _, app = limited_app(redis_pair, key_prefix, rate_limit_address="1000 per minute")  # leases of 50
    statuses: Counter[int] = Counter()
    lock = threading.Lock()

    def run() -> None:
        client = app.test_client()
        for _ in range(60):
            status = client.get("/v1/games/g_unknown").status_code
            with lock:
                statuses[status] += 1

    threads = [threading.Thread(target=run) for _ in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert statuses[429] == 0 and statuses[404] == 960, statuses
