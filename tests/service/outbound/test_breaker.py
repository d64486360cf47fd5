"""A receiver's circuit breaker (``service/outbound/breaker.py``): closed, open after its failures, half-open once the
cool-down is over (one probe at a time), closed again when a probe gets through; on a clock the test moves."""

from __future__ import annotations

import pytest

from service.outbound import webhooks
from service.outbound.breaker import Receivers

WHO = "hooks.example:443"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


def test_closed_then_open_after_its_failures_then_half_open_after_the_cool_down_then_closed_on_success(clock: Clock) -> None:
    breaker = Receivers(failures=2, troubled_for=60.0, known_for=60.0, monotonic=clock)
    breaker.well(WHO)
    assert breaker.state(WHO) == "closed"
    first, second = breaker.claim({WHO}), breaker.claim({WHO})
    assert first is not None and second is not None, "a receiver that answers lately takes deliveries at once"
    for token in (first, second):
        breaker.attempt({WHO}, lambda: "ok", token)
    breaker.fail(WHO)
    assert breaker.state(WHO) == "closed", "one failure of two is not enough"
    breaker.fail(WHO)
    assert breaker.state(WHO) == "open" and breaker.troubled(WHO)
    clock.now += 59.0
    assert breaker.state(WHO) == "open", "still cooling down"
    clock.now += 2.0
    assert breaker.state(WHO) == "half_open" and not breaker.troubled(WHO)
    probe = breaker.claim({WHO})
    assert probe is not None
    assert breaker.claim({WHO}) is None, "half-open: one probe at a time, the others wait for it"
    assert breaker.attempt({WHO}, lambda: 204, probe) == 204
    assert breaker.state(WHO) == "closed"
    assert breaker.claim({WHO}) is not None and breaker.claim({WHO}) is not None


def test_one_failure_opens_it_by_default_and_a_refusal_is_an_answer(clock: Clock) -> None:
    breaker = Receivers(monotonic=clock)
    assert breaker.state(WHO) == "half_open", "never heard from"
    token = breaker.claim({WHO})
    assert token is not None

    def refuses() -> None:
        raise webhooks.UndeliverableWebhook("410 Gone")

    with pytest.raises(webhooks.UndeliverableWebhook):
        breaker.attempt({WHO}, refuses, token)
    assert breaker.state(WHO) == "closed", "a 4xx is an answer, and quick"
    breaker.fail(WHO)
    assert breaker.state(WHO) == "open"
    breaker.well(WHO)
    assert breaker.state(WHO) == "closed", "a delivery of its line got through"


def test_a_delivery_under_way_too_long_opens_it_until_it_ends(clock: Clock) -> None:
    breaker = Receivers(slow_after=0.2, monotonic=clock)
    breaker.well(WHO)
    token = breaker.claim({WHO})
    assert token is not None
    clock.now += 0.1
    assert breaker.state(WHO) == "closed"
    clock.now += 0.2
    assert breaker.state(WHO) == "open"
    breaker.attempt({WHO}, lambda: None, token)
    assert breaker.state(WHO) == "closed"
