"""A player's public archive of finished games (issue 40): ``listPlayerGames`` a page at a time, ``exportPlayerGames``
as a stream of replays (``service/application/archive.py`` says who sees what)."""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Iterator
from typing import Any

from flask import Response, request, stream_with_context
from flask.views import MethodView

from service.application.archive import ArchiveService
from service.domain.archive import Filters
from service.http.auth import current_player
from service.http.common import (
    NDJSON,
    PRIVATE,
    RATE_LIMIT_HEADERS,
    TEXT,
    TOKEN_OR_NONE,
    documented_errors,
    json_response,
    red7_runtime,
    response_headers,
    v1,
)
from service.http.examples import example
from service.http.locale import language
from service.http.schemas.archive import ArchiveExportQuerySchema, ArchiveQuerySchema, PlayerGamesSchema

#: How much of an export is compressed before a piece is sent (bytes of lines): small enough to stream, large enough
#: to compress well.
GZIP_FLUSH = 64 * 1024


def _archive() -> ArchiveService:
    archive = red7_runtime().archive
    assert archive is not None  # built by every runtime (service/runtime.py)
    return archive


def _ms(when: Any) -> int | None:
    return None if when is None else int(when.timestamp() * 1000)


def _filters(query: dict[str, Any]) -> Filters:
    return Filters(
        since=_ms(query.get("since")),
        until=_ms(query.get("until")),
        variant=query.get("variant"),
        action_rules=query.get("action_rules"),
        players=query.get("players"),
        rated=query.get("rated"),
        result=query.get("result"),
        opponent=_archive().resolve_opponent(query.get("opponent")),
        analysed=query.get("analysed"),
    )


def _viewer() -> str | None:
    player = current_player(required=False)
    return player.id if player else None


@v1.route("/players/<player>/archive")
class PlayerGames(MethodView):
    @documented_errors(401, 404, 422, 429)
    @v1.arguments(ArchiveQuerySchema(), location="query")
    @v1.response(200, PlayerGamesSchema, example=example("PlayerGames"))
    @v1.doc(operationId="listPlayerGames", security=TOKEN_OR_NONE)
    def get(self, query: dict[str, Any], player: str) -> Response:
        """A player's finished games (by id or handle), newest first, a page at a time, with filters; each with its
        seats, places, ratings before and after (a rated game, once applied) and links to its replay and viewer.

        The token is optional: with one, your own archive in full, hidden or not.

        Aborted and called-off games are in nobody's archive. A deleted account's id and handle answer 404
        player_not_found; in others' archives its seat keeps its id and is named "deleted player". A player who hides
        their archive (updateMe's archive_hidden) has, for everyone but themself, an archive with no game in it."""
        page = _archive().page(player, _viewer(), _filters(query), query["limit"], query.get("cursor"))
        return json_response(page, 200, PRIVATE)


def _gzipped(lines: Iterable[str]) -> Iterator[bytes]:
    """The lines gzip-compressed as they come: a piece out every :data:`GZIP_FLUSH` bytes in, the rest at the end."""
    packer = zlib.compressobj(6, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    pending = 0
    for line in lines:
        data = line.encode()
        pending += len(data)
        out = packer.compress(data)
        if pending >= GZIP_FLUSH:
            out += packer.flush(zlib.Z_SYNC_FLUSH)
            pending = 0
        if out:
            yield out
    yield packer.flush()


def _encoded(lines: Iterable[str]) -> Iterator[bytes]:
    for line in lines:
        yield line.encode()


def wants_gzip() -> bool:
    """Whether the request's Accept-Encoding takes gzip before the lines as they are (``identity``)."""
    offered = request.accept_encodings
    return bool(offered) and offered.quality("gzip") > 0 and offered.quality("gzip") >= offered.quality("identity")


def _export_example() -> str:
    """An export of one game: exportReplay's recorded document, on a line."""
    import json

    return json.dumps(example("Replay"), separators=(",", ":"), ensure_ascii=False) + "\n"


EXPORT_RESPONSE = {
    "description": "one finished game's replay a line (the JSON document exportReplay sends, each verifiable on its "
    "own and importable by importReplay), newest first; gzip-compressed when Accept-Encoding asks for it",
    "headers": {
        **response_headers(*RATE_LIMIT_HEADERS),
        "Content-Encoding": {"description": "gzip, when asked for", "schema": {"type": "string"}},
        "Content-Disposition": {"description": 'attachment; filename="red7-<player>-games.ndjson"', "schema": TEXT},
    },
}


@v1.route("/players/<player>/archive/export")
class PlayerGamesExport(MethodView):
    @documented_errors(401, 404, 406, 422, 429)
    @v1.arguments(ArchiveExportQuerySchema(), location="query")
    @v1.response(200, TEXT, content_type=NDJSON, example=_export_example(), **EXPORT_RESPONSE)  # type: ignore[arg-type]
    @v1.doc(operationId="exportPlayerGames", security=TOKEN_OR_NONE)
    def get(self, query: dict[str, Any], player: str) -> Response:
        """A player's finished games as a stream (NDJSON), the same query as listPlayerGames: a replay a line.

        The token is optional: with one, your own archive in full, hidden or not.

        The answer is streamed as the games are read, a game at a time, whatever their number; with
        Accept-Encoding: gzip, compressed as it goes. Exports draw on budgets of their own, per token
        (RED7_RATE_LIMIT_EXPORT_TOKEN) and per address (RED7_RATE_LIMIT_EXPORT_ADDRESS), each counting requests."""
        lines = _archive().export(player, _viewer(), _filters(query), query.get("limit"), language())
        gzip = wants_gzip()
        response = Response(stream_with_context(_gzipped(lines) if gzip else _encoded(lines)), mimetype=NDJSON)
        response.headers.update(PRIVATE)
        response.headers["Vary"] = "Authorization, Accept-Encoding"
        response.headers["Content-Disposition"] = f'attachment; filename="red7-{player}-games.ndjson"'
        if gzip:
            response.headers["Content-Encoding"] = "gzip"
        return response
