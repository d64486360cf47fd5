"""Each finished game's export line kept once (``service/storage/export_lines.py``): equal, byte for byte, to a line
made afresh from the stream (analysis included, in the default language and another); kept as the game is indexed;
made again when a player of the game was deleted since (never a deleted name sent); dropped with a deleted account's
games; made again and compared by the rebuild.  On fakeredis and the real Redis."""

from __future__ import annotations

import json

import pytest

from replays.build import DEFAULT, in_language
from replays.verify import verify_replay
from service.application.archive import line_of, with_analysis
from service.domain.archive import Filters
from service.storage.export_lines import ExportLines, pack, unpack
from tests.harness.archive import Made, many_games, mark_analysed


@pytest.fixture
def made(runtime) -> Made:
    return many_games(runtime, people=4, games=12)


def kept_lines(runtime) -> ExportLines:
    return ExportLines(runtime.redis, runtime.settings.key_prefix)


def test_a_kept_line_equals_a_line_made_afresh_and_the_export_sends_them(runtime, made):
    archive, lines = runtime.archive, kept_lines(runtime)
    kept = lines.get_many(made.games, DEFAULT)
    assert set(kept) == set(made.games)  # each kept as it was indexed (finished)
    for game_id in made.games:
        game = runtime.games.load(game_id)
        document, seated, deleted = runtime.games.feeds.finished_replay(game, keep=False)
        assert kept[game_id].line() == line_of(document)  # without its analysis
        assert kept[game_id].seated == frozenset(seated) and kept[game_id].deleted == deleted == frozenset()
        fresh = archive.fresh_line(game_id)
        assert fresh is not None and with_analysis(kept[game_id].line(), archive.analysis_of(game_id)) == fresh
        assert verify_replay(json.loads(fresh)).ok
    for player, _ in made.players:
        sent = list(archive.export(player, player, Filters()))
        entries = [e.game_id for e in archive.entries(player, Filters())]
        assert sent == [archive.fresh_line(g) for g in entries] and sent


def test_the_analysis_is_put_where_exportreplay_has_it(runtime, made):
    game_id = next(g for g in made.games if g not in made.analysed)
    mark_analysed(runtime, game_id)
    line = runtime.archive.fresh_line(game_id)
    assert line is not None and json.loads(line)["analysis"] == {}
    document = runtime.games.replay(runtime.games.load(game_id), None)
    assert line == line_of({**document, "analysis": {}})
    assert verify_replay(json.loads(line)).ok  # outside the hash


def test_another_language_is_made_once_then_kept_beside_the_default(runtime, made):
    archive, lines = runtime.archive, kept_lines(runtime)
    player = made.players[0][0]
    sent = list(archive.export(player, player, Filters(), language="pl"))
    assert sent
    for line in sent:
        document = json.loads(line)
        game = runtime.games.load(document["game_id"])
        plain = runtime.games.feeds.finished_replay(game, keep=False)[0]
        assert line == with_analysis(line_of(in_language(plain, "pl")), archive.analysis_of(game.id))
        assert verify_replay(document).ok
        assert lines.languages(game.id) == ["en", "pl"]
    assert list(archive.export(player, player, Filters(), language="pl")) == sent  # from the kept lines now


def test_a_deleted_players_name_is_never_sent_from_a_line_kept_before(runtime, made):
    archive, lines = runtime.archive, kept_lines(runtime)
    gone, gone_handle = made.players[1]
    shared = [g for g in made.games if runtime.games.load(g).seat_of(gone) is not None]
    other = next(p for p, _ in made.players if p != gone and any(runtime.games.load(g).seat_of(p) is not None for g in shared))
    before = {g: lines.get_many([g], DEFAULT)[g] for g in shared}
    runtime.accounts.delete(runtime.accounts.get(gone))
    assert lines.get_many(shared, DEFAULT) == {}  # dropped with the account's games
    for game_id, kept in before.items():  # as if a reader had kept one again just before the deletion's mark
        lines.put(game_id, kept.seated, kept.deleted, DEFAULT, kept.line())
    sent = "".join(archive.export(other, other, Filters()))
    assert f"Name {gone_handle}" not in sent and gone in sent
    remade = lines.get_many(shared, DEFAULT)
    assert all(k.deleted == frozenset({gone}) for g, k in remade.items() if g in sent)
    assert all(verify_replay(json.loads(line)).ok for line in sent.splitlines())


def test_the_rebuild_makes_the_lines_again_and_compares(runtime, made):
    archive, lines = runtime.archive, kept_lines(runtime)
    assert archive.rebuild().identical
    first, second, third = made.games[:3]
    kept = lines.get_many([first], DEFAULT)[first]
    lines.put(first, kept.seated, kept.deleted, DEFAULT, kept.line().replace('"steps"', '"steps" ', 1))
    runtime.redis.delete(lines.key(second))
    lines.put("g_nowhere", {"p_x"}, set(), DEFAULT, "{}\n")
    report = archive.rebuild()
    assert not report.identical
    assert report.lines_different == [f"{first}:en", "g_nowhere:*"] and report.lines_missing == [f"{second}:en"]
    assert archive.rebuild(write=True).lines_written == 2
    assert archive.rebuild().identical and lines.get_many(["g_nowhere"], DEFAULT) == {}
    assert lines.get_many([third], DEFAULT)[third].line() == line_of(
        runtime.games.feeds.finished_replay(runtime.games.load(third), keep=False)[0]
    )


def test_a_put_is_idempotent_and_another_deletion_replaces_every_language(runtime):
    lines = kept_lines(runtime)
    lines.put("g_1", {"p_a", "p_b"}, set(), "en", '{"a":1}\n')
    lines.put("g_1", {"p_a", "p_b"}, set(), "en", '{"a":1}\n')
    lines.put("g_1", {"p_a", "p_b"}, set(), "pl", '{"a":2}\n')
    assert lines.languages("g_1") == ["en", "pl"]
    assert lines.get_many(["g_1"], "pl")["g_1"].line() == '{"a":2}\n'
    lines.put("g_1", {"p_a", "p_b"}, {"p_b"}, "en", '{"a":3}\n')
    assert lines.languages("g_1") == ["en"]
    assert lines.get_many(["g_1"], "en")["g_1"].deleted == frozenset({"p_b"})
    assert lines.get_many(["g_1", "g_2"], "pl")["g_1"].packed is None and "g_2" not in lines.get_many(["g_2"], "en")
    assert unpack(pack("é" * 1000)) == "é" * 1000
