"""Who reads a message at a table: the author always, spectators never, a held message nobody else, and a mute, a
block or ``talk_from`` turning an author away for that reader alone."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.common.errors import Refused
from service.domain.blocks import TALK_FROM
from service.domain.talk import MAX_TEXT, PHRASES, Hearing, Message, checked, readable_by

PLAYERS = ["p_a", "p_b", "p_c", "p_d"]


@st.composite
def cases(draw: st.DrawFn) -> tuple[Message, Hearing]:
    seated = draw(st.sets(st.sampled_from(PLAYERS), min_size=1))
    author = draw(st.sampled_from(sorted(seated)))
    reader = draw(st.sampled_from(PLAYERS))
    message = Message("1-0", author, 0, None, "hi", draw(st.booleans()), 0)
    hearing = Hearing(reader, seated, draw(st.sets(st.sampled_from(PLAYERS))), draw(st.sampled_from(TALK_FROM)))
    return message, hearing


@given(cases())
def test_who_reads_a_message(case: tuple[Message, Hearing]) -> None:
    message, hearing = case
    read = readable_by(message, hearing)
    if message.author_id == hearing.reader_id:
        assert read  # your own, held or not, whatever your settings
        return
    if (
        hearing.reader_id not in hearing.seated
        or message.held
        or message.author_id in hearing.kept_away
        or hearing.talk_from == "nobody"
    ):
        assert not read
    else:
        assert read  # every seated player is an opponent at Red7


def test_a_message_is_a_phrase_or_a_bounded_text() -> None:
    assert checked("good_luck", None) == ("good_luck", None)
    assert checked(None, "  hi ") == (None, "hi")
    assert checked(None, "x" * MAX_TEXT) == (None, "x" * MAX_TEXT)
    for phrase, text in ((None, None), (None, "   "), ("good_luck", "hi"), ("hello", None), (None, "x" * (MAX_TEXT + 1))):
        with pytest.raises(Refused):
            checked(phrase, text)
    assert len(PHRASES) == 4
