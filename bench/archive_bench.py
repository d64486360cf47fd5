"""Archive export benchmark: one player's finished games streamed by ``exportPlayerGames``, its time and what the
server's resident memory grows by while it streams.

    python -m bench.archive_bench [--games 10000] [--gzip] [--cold]

The store: a redis-server at ``REDIS_URL`` if one answers (the bench's keys under a prefix of its own, deleted at the
end), else fakeredis.  ``--games`` finished games of one player (copies, under ids and times of their own, of a few
dozen games the engine's random bots played: stored as the service stores them, each indexed in the player's
archive, with its export line kept as a game's last append keeps it: ``service/storage/export_lines.py``; the copy's
line is the template's with its id and hash made anew, and the first copy of each template's is checked equal to the
line the service makes afresh; ``--cold``: no line kept, so the export makes each, as before lines were kept).  The
server is the app on werkzeug's threaded server in this process; the client reads the stream over a
socket, a line at a time, and checks each line is a replay (every 100th verified through today's engine; the tests
verify every line).  Memory: this process's resident set (``VmRSS``) sampled while the stream runs, less the same
just before it starts.  Targets (issue 40): 10,000 games in at most 30 s, the resident set growing at most 50 MB.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import multiprocessing
import os
import threading
import time
import uuid
import zlib
from typing import Any

import fakeredis
import redis
import requests
from werkzeug.serving import make_server

from engine import Variant
from replays.build import DEFAULT, canonical
from replays.verify import verify_replay
from service.application.archive import line_of
from service.domain.archive import entry_of
from service.http.app import create_app
from service.runtime import build_runtime
from service.storage.archive import ArchiveStore
from service.storage.export_lines import ExportLines
from tests.harness.archive import START_MS, payloads
from tests.harness.support import settings_for

TEMPLATES = 24


def rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def clients(prefix: str) -> tuple[redis.Redis, redis.Redis, str]:
    url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    try:
        text = redis.Redis.from_url(url, decode_responses=True)
        text.ping()
        return text, redis.Redis.from_url(url), f"redis-server at {url}"
    except redis.RedisError:
        server = fakeredis.FakeServer()
        return fakeredis.FakeRedis(server=server, decode_responses=True), fakeredis.FakeRedis(server=server), "fakeredis"


@dataclasses.dataclass(frozen=True)
class Template:
    """A template game's export line and the canonical text its hash is over, made once."""

    game_id: str
    hash: str
    line: str
    canonical: str

    @classmethod
    def of(cls, document: dict[str, Any]) -> Template:
        return cls(document["game_id"], document["hash"], line_of(document), canonical(document).decode())

    def copy_line(self, game_id: str) -> str:
        """The export line of the copy ``game_id``: the template's id (a JSON string of its own wherever it is
        written) replaced, in the line and in the canonical text its hash is over, so making 10,000 takes seconds."""
        old, new = f'"{self.game_id}"', f'"{game_id}"'
        digest = "sha256:" + hashlib.sha256(self.canonical.replace(old, new).encode()).hexdigest()
        return self.line.replace(old, new).replace(self.hash, digest)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--gzip", action="store_true", help="ask for the stream gzip-compressed")
    parser.add_argument("--cold", action="store_true", help="keep no export line: the export makes every one")
    args = parser.parse_args()
    prefix = f"bench-archive:{uuid.uuid4().hex[:8]}:"
    text, raw, where = clients(prefix)
    runtime = build_runtime(settings_for(prefix), clients=(text, raw))
    assert runtime.archive is not None
    try:
        started = time.perf_counter()
        ana = runtime.accounts.sign_up("Ana", handle="bench_ana").player
        bo = runtime.accounts.sign_up("Bo", handle="bench_bo").player
        templates = []
        archive = ArchiveStore(runtime.redis, prefix)
        lines = ExportLines(runtime.redis, prefix)
        for n in range(TEMPLATES):
            every: list[tuple[str, str] | str] = [(ana.id, "Ana"), (bo.id, "Bo"), "greedy", "random"]
            seats = every[: 2 + n % 3]
            envelopes = payloads(
                seats, variant=Variant(("basic", "advanced")[n % 2]), action_rules=bool(n % 4 > 1), rated=False, seed=n, at_ms=0
            )
            runtime.store.append(f"g_tpl{n:02d}", 0, envelopes)
            template = runtime.games.load(f"g_tpl{n:02d}")
            replayed = runtime.archive.replay(template)
            templates.append((envelopes, entry_of(template), replayed, Template.of(replayed[0])))
        for g in range(args.games):
            envelopes, entry, (_, seated, deleted), template = templates[g % TEMPLATES]
            game_id = f"g_bench{g:06d}"
            runtime.store.append(game_id, 0, envelopes)
            assert entry is not None
            archive.add(dataclasses.replace(entry, game_id=game_id, finished_ms=START_MS + g * 1000), [ana.id])
            if not args.cold:
                lines.put(game_id, seated, deleted, DEFAULT, template.copy_line(game_id))
                if g < TEMPLATES:
                    assert lines.get_many([game_id], DEFAULT)[game_id].line() == runtime.archive.fresh_line(game_id)
        for n in range(TEMPLATES):  # the templates are nobody's archive: only the copies are streamed
            runtime.redis.delete(runtime.store.events_key(f"g_tpl{n:02d}"))
        kept = "none kept (--cold)" if args.cold else "each game's export line kept"
        print(f"store: {where}; {args.games} finished games of one player made in {time.perf_counter() - started:.1f} s; {kept}")
        server = make_server("127.0.0.1", 0, create_app(runtime), threaded=True)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        url = f"http://127.0.0.1:{server.server_port}/v1/players/{ana.id}/archive/export"
        stream(url, args)
        server.shutdown()
    finally:
        if where != "fakeredis":
            for key in text.scan_iter(match=f"{prefix}*", count=1000):
                text.delete(key)


def stream(url: str, args: argparse.Namespace) -> None:
    """Read the export from a client process of its own (so this process, the server's, holds the server alone and
    its resident set is the server's), sampling this process's resident set meanwhile."""
    peak, stop = [0.0], threading.Event()

    def sample() -> None:
        while not stop.is_set():
            peak[0] = max(peak[0], rss_mb())
            time.sleep(0.05)

    base = rss_mb()
    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    context = multiprocessing.get_context("spawn")
    with context.Pool(1) as pool:
        cpu = time.process_time()
        lines, verified, wire, encoding, elapsed, client_cpu = pool.apply(read, (url, args.gzip))
        cpu = time.process_time() - cpu  # this process's: the server's alone (the client is the pool's)
    stop.set()
    sampler.join()
    growth = max(0.0, peak[0] - base)
    assert lines == args.games, (lines, args.games)
    print(
        f"exportPlayerGames: {lines} games streamed in {elapsed:.1f} s ({lines / elapsed:.0f} games/s; target <= 30 s "
        f"for 10,000), {wire / 1e6:.1f} MB on the wire ({encoding}), {verified} lines verified"
    )
    print(
        f"CPU: the server {cpu:.1f} s ({cpu / lines * 1000:.2f} ms a game), the client {client_cpu:.1f} s; "
        f"the rest of the {elapsed:.1f} s is waiting (the machine's other load, the socket)"
    )
    print(
        f"server's resident memory: {base:.0f} MB before, {peak[0]:.0f} MB at most while streaming: grew {growth:.1f} MB "
        "(target <= 50 MB)"
    )


def read(url: str, gzip: bool) -> tuple[int, int, int, str, float, float]:
    """The client: the export read over a socket a line at a time, each line checked (lines, verified, bytes on the
    wire, encoding, seconds, its CPU seconds)."""
    headers = {"Accept-Encoding": "gzip" if gzip else "identity"}
    started, cpu = time.perf_counter(), time.process_time()
    lines = verified = wire = 0
    seen: set[bytes] = set()
    with requests.get(url, headers=headers, stream=True, timeout=300) as response:
        response.raise_for_status()
        encoding = response.headers.get("Content-Encoding", "identity")
        unpack = zlib.decompressobj(16 + zlib.MAX_WBITS) if encoding == "gzip" else None
        pending = b""
        for chunk in response.raw.stream(64 * 1024, decode_content=False):
            wire += len(chunk)
            pending += unpack.decompress(chunk) if unpack else chunk
            *whole, pending = pending.split(b"\n")
            for line in whole:
                # Every line: one JSON object naming a game of its own; every 100th parsed whole and verified through
                # today's engine (parsing a ~180 KB replay takes ~35 ms here, more than the server spends on it, so
                # parsing each would time the client; tests/service/http/test_api_archive.py verifies every line).
                start = line.index(b'"game_id":"') + 11
                game_id = line[start : line.index(b'"', start)]
                assert line.startswith(b"{") and line.endswith(b"}") and game_id not in seen, game_id
                seen.add(game_id)
                if lines % 100 == 0:
                    document = json.loads(line)
                    assert verify_replay(document).ok, document["game_id"]
                    verified += 1
                lines += 1
    return lines, verified, wire, encoding, time.perf_counter() - started, time.process_time() - cpu


if __name__ == "__main__":
    main()
