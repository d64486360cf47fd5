"""Scopes as the domain knows them: what a stored set grants, what a token may not pass on (issue 37)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.domain.scopes import FULL, SCOPES, UnknownScope, beyond, checked, granted, header_value, ordered

scope_sets = st.frozensets(st.sampled_from(sorted(SCOPES)))


def test_a_token_stored_without_scopes_may_do_everything():
    assert granted(None) == FULL
    assert granted(()) == frozenset()  # an empty set stored is an empty set: nothing but the public operations


def test_a_scope_retired_since_grants_nothing():
    assert granted(("play", "retired:scope")) == {"play"}


def test_an_unknown_scope_is_named():
    with pytest.raises(UnknownScope, match="nope"):
        checked(["play", "nope"])
    assert checked(["lobby", "play"]) == {"play", "lobby"}


@given(holder=scope_sets, wanted=scope_sets)
def test_a_token_passes_on_only_what_it_holds(holder, wanted):
    lacking = beyond(holder, wanted)
    assert set(lacking) == wanted - holder
    assert lacking == sorted(lacking)
    assert not beyond(holder, wanted & holder)  # a narrower (or equal) set always passes


@given(scopes=scope_sets)
def test_scopes_are_written_in_the_documented_order(scopes):
    written = ordered(scopes)
    assert set(written) == scopes
    assert written == [name for name in SCOPES if name in scopes]
    assert header_value(scopes) == ", ".join(written)


def test_every_scope_is_described():
    assert all(name and description for name, description in SCOPES.items())
    assert {"play", "lobby", "profile:read", "profile:write", "analysis", "notifications", "webhook", "account:delete"} <= FULL
