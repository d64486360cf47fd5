"""Settings, read once from the environment: every field of :class:`Settings` from ``RED7_<FIELD NAME>``.

The variable's name is derived from the field's, so that the two never drift apart and every setting can be
set; the README's settings table names them all (tests/service/common/test_config.py checks both).
"""

from __future__ import annotations

import logging
import math
import os
import re
import typing
from collections.abc import Mapping
from dataclasses import dataclass, fields

log = logging.getLogger("red7.settings")


@dataclass(frozen=True)
class Settings:
    """Everything the service can be told; every field has a working default.

    ``redis_url`` empty means the embedded in-memory store (nothing persists).
    """

    #: The stores' Redis: ``redis://…``, or a Redis Cluster, ``redis+cluster://host:port[,host:port…]`` (TLS:
    #: ``rediss+cluster://…``).
    redis_url: str = ""
    #: Log lines as ``text`` (readable) or ``json`` (one object a line, for a collector): read by the processes
    #: before anything else (``service.common.logformat``), and here so that it is documented like every setting.
    log_format: str = "text"
    #: Where the processes send their traces by OTLP over HTTP: an OpenTelemetry collector, ``http://host:4318``
    #: (empty: no tracing).  Read by the processes before anything else, as ``log_format`` is
    #: (``service.processes.tracing``; the ``tracing`` extra installs OpenTelemetry), and here to be documented.
    otlp_endpoint: str = ""
    #: The port each process serves its Prometheus metrics on, at ``/metrics`` (0: no metrics, nothing measured).  A
    #: port of its own, not a path of the API: reachable only where the operator lets a scraper in.
    metrics_port: int = 0
    #: The address the metrics port listens on: this host only by default (the figures say how the service is used);
    #: ``0.0.0.0`` for a scraper on another host, behind the operator's firewall.
    metrics_host: str = "127.0.0.1"
    #: The queue's Redis (RQ, job markers, the agenda, AI shares, pulses, the ticker's role): ``redis://…`` or
    #: ``redis+sentinel://host:port[,host:port…]/service_name``.  Empty: ``redis_url`` serves both (not a cluster:
    #: RQ cannot run on one).  Several, comma-separated (``redis://q0:6379/0,redis://q1:6379/0``): the queue's
    #: shards, each game's jobs on one of them (``service/jobqueue/shards.py``); see :func:`queue_urls`.
    queue_url: str = ""
    key_prefix: str = "red7:"
    queue_name: str = "red7"
    #: Service API keys; when set, creating players and games needs one (header ``X-Api-Key``).
    api_keys: tuple[str, ...] = ()
    #: Allow ``POST /games`` with an explicit 49-card deck (such games are flagged custom-dealt).
    allow_custom_decks: bool = False
    cors_origins: tuple[str, ...] = ()
    #: Rate limits (``limits`` strings, e.g. "600 per minute"); empty disables that limit (service/http/budgets.py).
    rate_limit_token: str = "600 per minute"
    rate_limit_address: str = "1200 per minute"
    rate_limit_signup: str = "30 per minute"
    #: Replay imports per token (``POST /v1/replays``): each keeps up to its file's bytes for ``imported_replay_ttl``,
    #: so this bounds what one token can have kept (100 a day: at most 100 files' bytes, 2 MiB each, a day).
    rate_limit_import: str = "100 per day"
    #: Challenges made from one address (``POST /v1/challenges``), whoever makes them: the caps per challenger and
    #: per inbox hold one account each; this holds many new accounts from one address (a flood of inboxes).
    rate_limit_challenge: str = "60 per hour"
    #: How many proxies in front of the service append to X-Forwarded-For (0: none; the header is ignored).
    trusted_proxy_hops: int = 0
    snapshot_every: int = 64
    #: Let Redis tell each process which games changed (client-side caching's broadcast tracking,
    #: service/storage/changes.py): a view of a game nobody moved is then served without a read.  Off: every
    #: view reads.  Redis servers (or proxies) without ``CLIENT TRACKING``, and clusters, read either way.
    watch_changes: bool = True
    #: A game over (finished or called off) this long, in seconds, has its stream compacted into one packed record
    #: (service/storage/events/: ~3x smaller, read as before); 0: never.  ``red7 migrate`` compacts older ones.
    compact_after: float = 3600.0
    max_body_bytes: int = 64 * 1024
    #: An imported replay file, and the events it may hold: the longest games we have seen are ~300 events in
    #: ~300 KiB, and verifying a file costs time in proportion to both (bench/replay_bench.py: the worst case).
    max_replay_bytes: int = 2 * 1024 * 1024
    max_replay_events: int = 3000
    #: How long an imported replay is kept, in seconds from its last import (0: for good).
    imported_replay_ttl: int = 30 * 24 * 3600
    long_poll_max: float = 60.0
    stream_max_seconds: float = 300.0
    stream_heartbeat: float = 15.0
    #: How long a stream ticket (``POST /v1/games/{id}/stream-tickets``) may be used to connect, in seconds.
    stream_ticket_seconds: int = 60
    idempotency_ttl: int = 24 * 3600
    #: A read re-offers the jobs of an active game quiet for this long (a lost or killed job heals).
    recover_after: float = 3.0
    #: Long-polls and streams one token, and one address, may hold open at once in one API process.
    max_waits_per_token: int = 8
    max_waits_per_address: int = 256
    #: How many unfinished games a player may be in, and how many AI seats their games in play may hold
    #: (the AI work one player can cause); 0: no limit.
    max_games_in_play: int = 100
    max_ai_seats_in_play: int = 24
    #: Rated games (issue 34): an account takes a seat in one once it is this old (seconds) and has finished this many
    #: games of any kind (service/application/rated_play.py); 0: no requirement.  Without ``REDIS_URL`` (the embedded
    #: store, whose accounts last as long as the process) both default to 0.
    rated_min_account_age: int = 24 * 3600
    rated_min_games: int = 3
    #: Aborts of rated games a player may make in ``rated_abort_window`` seconds; one more suspends them from rated
    #: play for ``rated_abort_suspension`` seconds, doubled for each suspension in the week before (at most 3 days);
    #: 0: never.
    rated_abort_limit: int = 3
    rated_abort_window: int = 24 * 3600
    rated_abort_suspension: int = 3600
    #: How long a handle a player gave up is set aside for them alone to take back, in seconds (0: freed at once).
    handle_hold_seconds: int = 7 * 24 * 3600
    #: Words names and handles may not hold, beside the eight languages' lists (service/domain/wordfilter.py); more
    #: are added for every process at once with ``red7 mod words add``.
    filter_words: tuple[str, ...] = ()
    #: The terms of use players accept: their version (empty: no terms) and the address they are read at (empty: the
    #: sample this service ships, ``/terms``).  When the version changes, every call of a player who has not accepted
    #: it is answered ``403 terms_not_accepted`` naming the address, until they accept it (``acceptTerms``).
    terms_version: str = ""
    terms_url: str = ""
    #: Reports one token may make (``createReport``; ``limits`` strings, empty: no limit).
    rate_limit_report: str = "20 per hour"
    #: Challenges a player may have sent that are still open (0: no limit); how long a challenge stays open unless its
    #: challenger asks otherwise, and the longest they may ask for (seconds: a day, two weeks).
    max_open_challenges: int = 20
    #: Challenges a player may have received and not answered yet (0: no limit): past it, more are refused
    #: (``challenge_inbox_full``), so that many accounts cannot flood one inbox.
    max_challenges_received: int = 20
    challenge_expiry: int = 24 * 3600
    max_challenge_expiry: int = 14 * 24 * 3600
    #: How many listed games waiting for players (open tables) one player may have at once; 0: no limit.
    max_listed_tables: int = 10
    #: Open quick-match tickets one player may hold across every kind of game (0: no limit); one a kind at most.
    max_match_tickets: int = 5
    #: How long a quick-match ticket waits for a game when its request does not say (seconds), and the most it may ask.
    match_ticket_seconds: int = 3600
    match_ticket_max_seconds: int = 14 * 24 * 3600
    #: AI turns one player's games may have queued or running at once (0: no limit), so that a player with
    #: many games against AIs cannot fill the queue that every other table waits in (service/jobqueue/shares.py).
    ai_turns_per_player: int = 1
    #: Connections each Redis client of a process may open (a waiting long-poll or stream holds one).
    redis_max_connections: int = 4096
    #: Replicas that must hold an append before it is acknowledged (Redis ``WAIT``); 0: the primary alone.
    wait_replicas: int = 0
    #: How long an append waits for them (ms); past it the client gets a 503 saying the write may not last.
    wait_replicas_timeout_ms: int = 1000
    #: The expert AI's thinking time per move, in seconds.
    expert_seconds: float = 1.0
    #: Jobs a ``red7 worker`` process runs at once, each in a thread of its own.  A job spends most of its time
    #: waiting: on its ~30 round trips to Redis, and on a busy host on the CPU after each.  One at a time, a
    #: process idled at a fifth of a core while ~60 turns queued behind it (64 clients, bench/load_bench.py);
    #: threads overlap those waits.  8 keep about one core busy, the most a process gets with the GIL.
    worker_threads: int = 8
    #: RQ's worker TTL (seconds): an idle job runner waits for a job in one blocking read of this less 15 s, then
    #: renews its registration (kept this plus 60 s) and waits again.  Its connections answer within the wait (see
    #: ``service.storage.connections.blocking_client``).  Lower, an idle worker sends a few more commands.
    worker_ttl: int = 420
    #: Seconds before an AI seat moves (lets a human watch the table change); 0 in tests.
    ai_delay: float = 0.0
    #: Where clients reach the API (``https://red7.example.com``): webhooks link to games with it.
    #: Empty: their ``game_url`` is only the path.  ``red7 serve`` with the embedded store fills it in.
    public_url: str = ""
    #: Let webhooks reach loopback, private and link-local addresses (a receiver on this machine or
    #: network).  Off in production, so that a player's webhook URL cannot make the workers call
    #: internal services; on by default for the embedded server, which runs on a developer's machine.
    webhook_private_hosts: bool = False
    #: Webhook deliveries one ``red7 worker`` runs at once, each in a thread of its own: as many receivers may be
    #: called at once, so that one that hangs leaves the others to the rest.
    webhook_threads: int = 4
    #: Deliveries to one receiver (host and port) on their way at once, across every worker; the rest wait in that
    #: receiver's line, retries too, where they hold up no other receiver's (0: no lines).
    webhooks_per_receiver: int = 1
    #: How long a delivery waits to connect to its receiver, and then for each read of its answer (seconds).
    webhook_connect_timeout: float = 3.0
    webhook_read_timeout: float = 5.0
    #: Vacation a player may take a year, in hours (240: ten days), a year being the calendar year in the player's time
    #: zone; declared ahead, or taken a day at a time when a correspondence deadline passes (service/domain/calendars.py).
    vacation_hours_per_year: int = 240
    #: The VAPID private key web pushes are signed with (RFC 8292): the raw P-256 key, base64url (``red7 serve
    #: --embedded`` makes a temporary one; ``red7 vapid`` prints a new one).  Empty: no web push (``getPushKey`` answers 404).
    vapid_private_key: str = ""
    #: Who the push services may contact about this server's pushes: a ``mailto:`` or ``https:`` URL (RFC 8292).
    vapid_subject: str = "mailto:admin@red7.invalid"
    #: The path of a Firebase service-account file (JSON, as the Firebase console gives it): native pushes go through
    #: FCM's HTTP v1 API with its OAuth2 token (service/outbound/fcm.py).  Empty: no native push (``createPushDevice``
    #: answers 404 ``fcm_not_configured``).
    fcm_credentials: str = ""
    #: Where FCM's HTTP v1 API is: the operator's, not held to the rule against private addresses (tests use a fake).
    fcm_endpoint: str = "https://fcm.googleapis.com"
    #: Web pushes one ``red7 worker`` sends at once, each in a thread of its own, on a queue of their own: a push
    #: service that hangs holds these threads, never a game's.
    push_threads: int = 2
    #: Decision analyses one ``red7 worker`` runs at once (issue 23), each in a process of its own at the lowest CPU
    #: priority (workers/analyst.py: an analysis takes up to a minute of a core, and must never delay an AI's turn or a
    #: deadline), whatever the number of queue shards.
    analysis_threads: int = 1
    #: CPUs an analyst's process leaves idle for everything else (the games' jobs, the API, deadlines): it steps aside
    #: while the other runnable tasks would leave fewer (workers/analyst.py); 0 on a host of analyses alone.
    analysis_spare_cpus: int = 1
    #: Whether analyses take only the CPU nothing else wants (the lowest priority, and stepping aside as above): off,
    #: they run at the priority of everything else, never stepping aside — for a machine where an analysis must end
    #: whatever else runs, such as a test suite's on a CI host busy for minutes on end.
    analysis_on_spare_cpu: bool = True
    #: Decision analyses one player's requests may have running at once, per queue shard (0: no limit); the others
    #: wait their turn, players served in turn (service/jobqueue/analysis_queue.py).
    analyses_per_player: int = 1
    #: Analyses one token may ask for (``requestAnalysis`` and ``requestImportedAnalysis`` together, per address it
    #: comes from): each may take a minute of a core.  30 an hour is more than a player finishes games in an hour.
    rate_limit_analysis: str = "30 per hour"
    #: Exports of a player's archive (``exportPlayerGames``) one token may ask for, per address it comes from, and
    #: one address may ask for whatever the token: each streams up to every finished game of a player.
    rate_limit_export_token: str = "60 per hour"
    rate_limit_export_address: str = "120 per hour"
    #: Tests of separate processes only (off: empty): the key of the stores' Redis holding an offset in milliseconds
    #: that every process adds to the wall clock, so that a test moves the time of them all (service/storage/clock.py).
    clock_offset_key: str = ""

    @property
    def push_queue_name(self) -> str:
        """The queue of web pushes: apart from the games' jobs and the webhooks, so that a slow push service delays
        neither."""
        return f"{self.queue_name}-push"

    @property
    def webhook_queue_name(self) -> str:
        """The queue of webhook deliveries: apart from the games' jobs, so that a slow receiver never delays a game."""
        return f"{self.queue_name}-webhooks"

    @property
    def embedded(self) -> bool:
        return not self.redis_url

    @property
    def queue_urls(self) -> tuple[str, ...]:
        """The queue's shards, in order (a game's shard is its place in this list): ``queue_url``'s URLs, or
        ``redis_url`` alone; none when embedded.  Raises :class:`SettingsError` for a list that cannot work."""
        if not self.queue_url:
            return (self.redis_url,) if self.redis_url else ()
        return queue_urls(self.queue_url)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: object) -> Settings:
        """The settings the environment gives: each field from ``RED7_<FIELD NAME>``, the rest their defaults.

        ``REDIS_URL`` (the name hosting platforms use) also sets ``redis_url``; the names of earlier releases
        (:data:`RENAMED`) still read, with one warning a process.  A value that does not parse stops the start
        with a :class:`SettingsError` naming the variable and the form it takes.
        """
        env = os.environ if environ is None else environ
        values: dict[str, object] = {}
        hints = typing.get_type_hints(cls)
        for item in fields(cls):
            name = variable(item.name)
            found = [
                n for n in (name, *(old for old, new in (*ALIASES.items(), *RENAMED.items()) if new == item.name)) if n in env
            ]
            if not found:
                continue
            chosen = found[0]
            if chosen in RENAMED:
                _warn_renamed(chosen, name)
            values[item.name] = _parse(chosen, env[chosen], hints[item.name])
        if "webhook_private_hosts" not in values:  # a developer's embedded server calls receivers on their machine
            values["webhook_private_hosts"] = not values.get("redis_url")
        if not values.get("redis_url"):  # the embedded store's accounts are minutes old: let them play rated games
            values.setdefault("rated_min_account_age", 0)
            values.setdefault("rated_min_games", 0)
        if isinstance(values.get("queue_url"), str) and values["queue_url"]:
            queue_urls(str(values["queue_url"]))  # a list that cannot work stops the start, naming the variable
        if isinstance(values.get("public_url"), str):
            values["public_url"] = str(values["public_url"]).rstrip("/")
        values.update(overrides)
        return cls(**values)  # type: ignore[arg-type]


def variable(field_name: str) -> str:
    """The environment variable that sets a field: ``RED7_`` and the field's name in capitals."""
    return f"RED7_{field_name.upper()}"


#: Other names a field is read from, without a warning: ``REDIS_URL`` is what hosting platforms set.
ALIASES: dict[str, str] = {"REDIS_URL": "redis_url"}

#: Names of earlier releases (variable -> field): still read, with a warning that names the new variable.
RENAMED: dict[str, str] = {
    "RED7_QUEUE": "queue_name",
    "RED7_MAX_GAMES_PER_PLAYER": "max_games_in_play",
    "RED7_MAX_AI_SEATS_PER_PLAYER": "max_ai_seats_in_play",
    "RED7_WAIT_TIMEOUT_MS": "wait_replicas_timeout_ms",
}

_warned: set[str] = set()


def _warn_renamed(old: str, new: str) -> None:
    if old not in _warned:
        _warned.add(old)
        log.warning("%s is the name of an earlier release: set %s instead (it is read for now)", old, new)


class SettingsError(ValueError):
    """A setting whose value does not parse: the message names the variable and the form it takes."""


_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off", "")


def _parse(name: str, raw: str, kind: object) -> object:
    """``raw`` as the field's type: text, a whole number or a number (never negative), yes/no, a comma list."""
    text = raw.strip()
    if kind is str:
        return raw
    if kind is bool:
        if text.lower() in _TRUE + _FALSE:
            return text.lower() in _TRUE
        raise SettingsError(f"{name}={raw!r}: expected 1/true/yes/on or 0/false/no/off")
    if kind == tuple[str, ...]:
        return tuple(part.strip() for part in raw.split(",") if part.strip())
    if kind in (int, float):
        try:
            number = int(text) if kind is int else float(text)
        except ValueError:
            number = -1
        if number < 0 or (kind is float and not math.isfinite(number)):
            form = "a whole number, 0 or more (e.g. 8)" if kind is int else "a number of seconds, 0 or more (e.g. 1.5)"
            raise SettingsError(f"{name}={raw!r}: expected {form}")
        return number
    raise TypeError(f"no parser for settings of type {kind!r}")  # a field added with a type this does not know


#: The schemes a queue shard's URL may have (a Redis Cluster is none of them: RQ cannot run on one).
QUEUE_SCHEMES = ("redis://", "rediss://", "unix://", "redis+sentinel://")

#: Where one shard's URL ends and the next begins: a comma followed by a scheme (or by nothing: an empty item).  A
#: Sentinel URL's own commas (between its sentinels' ``host:port``) are followed by neither, so they stay inside it.
_NEXT_URL = re.compile(r",(?=\s*(?:[A-Za-z][A-Za-z0-9+.-]*://|,|$))")


def queue_urls(raw: str) -> tuple[str, ...]:
    """``RED7_QUEUE_URL`` as the queue's shards: one URL (today's form), or several separated by commas, each
    ``redis://``, ``rediss://``, ``unix://`` or ``redis+sentinel://host:port[,host:port…]/service_name[/db]``.

    Refused, naming the variable: an empty item, another scheme (a Redis Cluster: RQ cannot run on one), and the same
    URL twice (two shards on one Redis database would share RQ's keys: each shard is a server, or a database, of its
    own).  The order matters: a game's shard is its place in the list (``service.jobqueue.shards.shard_of``).
    """
    name = variable("queue_url")
    items = [item.strip() for item in _NEXT_URL.split(raw.strip())]
    for item in items:
        if not item:
            raise SettingsError(f"{name}={raw!r}: an empty URL in the list (URLs are separated by commas)")
        if not item.startswith(QUEUE_SCHEMES):
            raise SettingsError(
                f"{name}={raw!r}: {item!r} is not a queue's Redis; each URL starts with one of {', '.join(QUEUE_SCHEMES)}"
                " (RQ cannot run on a Redis Cluster)"
            )
    twice = sorted({item for item in items if items.count(item) > 1})
    if twice:
        raise SettingsError(f"{name}={raw!r}: {', '.join(twice)} named twice (each shard is a Redis, or a database, of its own)")
    return tuple(items)
