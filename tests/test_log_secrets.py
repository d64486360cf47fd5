"""The suite's check that no secret reaches a log line (tests/harness/log_secrets.py, issue 41): a test that logs one
fails, whichever secret and however it is logged; one that logs only what is no secret passes."""

from __future__ import annotations

import logging
import secrets
import textwrap

import pytest

from tests.harness.log_secrets import WATCH, Watch

pytest_plugins = ["pytester"]


def test_a_session_whose_test_logs_a_token_fails_that_test_and_no_other(pytester):
    pytester.makeconftest('pytest_plugins = ["tests.harness.log_secrets"]')
    pytester.makepyfile(
        textwrap.dedent(
            """
            import logging
            import secrets

            log = logging.getLogger("red7.somewhere")

            def test_logs_a_token():
                token = "r7_" + secrets.token_urlsafe(32)
                log.warning("refused %s", token)

            def test_logs_a_webhook_secret_in_an_extra():
                secret = secrets.token_urlsafe(32)
                log.info("delivered", extra={"signed_with": secret})

            def test_logs_an_oauth_refresh_token_inside_a_longer_word():
                refresh = secrets.token_urlsafe(32)
                log.error("bad grant: %sX", refresh)

            def test_logs_ids_and_numbers_only():
                log.warning("game g_%s moved to version %d", secrets.token_hex(8), 7)
            """
        )
    )
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-q", "-W", "ignore::pytest.PytestAssertRewriteWarning")
    result.assert_outcomes(passed=4, errors=3)
    result.stdout.fnmatch_lines(["a secret in the logs:", "red7.somewhere logged a secret (r7_*"])
    errors = "\n".join(line for line in result.outlines if line.startswith("ERROR"))
    assert "test_logs_ids_and_numbers_only" not in errors


def test_a_process_log_is_held_to_the_look_of_our_tokens_and_tickets(tmp_path):
    watch = Watch()
    clean, leaking = tmp_path / "api-1.log", tmp_path / "worker-2.log"
    clean.write_text('{"msg": "GET /v1/games/g_0123456789abcdef 200", "request_id": "lb-7f3a"}\n')
    leaking.write_text("ok\n" + f"stream of g_1 with ticket st_{'A' * 32} opened\n")
    watch.scan_file(clean)
    assert watch.take() == []
    watch.scan_file(leaking)
    assert [leak.split(" holds")[0] for leak in watch.take()] == ["worker-2.log:2"]


def test_a_secret_planted_in_this_sessions_log_is_found(caplog):
    secret = secrets.token_urlsafe(32)  # known to the session's watch as it is made
    WATCH.take()
    logging.getLogger("red7.test").warning("about to leak %s", secret)
    leaks = WATCH.take()
    assert len(leaks) == 1 and secret[:6] in leaks[0] and secret not in leaks[0]
    with pytest.raises(AssertionError):
        assert not leaks
