"""Settings, read once from the environment (``RED7_*`` and ``REDIS_URL``)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field


def _list(value: str | None) -> tuple[str, ...]:
    return tuple(item.strip() for item in (value or "").split(",") if item.strip())


def _bool(value: str | None, default: bool = False) -> bool:
    return default if value is None else value.strip().lower() in ("1", "true", "yes", "on")


@dataclass(frozen=True)
class Settings:
    """Everything the service can be told; every field has a working default.

    ``redis_url`` empty means the embedded in-memory store (nothing persists).
    """

    #: The stores' Redis: ``redis://…``, or a Redis Cluster, ``redis+cluster://host:port[,host:port…]`` (TLS:
    #: ``rediss+cluster://…``).
    redis_url: str = ""
    #: The queue's Redis (RQ, job markers, the agenda, AI shares, pulses, the ticker's role): ``redis://…`` or
    #: ``redis+sentinel://host:port[,host:port…]/service_name``.  Empty: ``redis_url`` serves both (not a cluster:
    #: RQ cannot run on one).
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
    #: How many proxies in front of the service append to X-Forwarded-For (0: none; the header is ignored).
    trusted_proxy_hops: int = 0
    snapshot_every: int = 64
    max_body_bytes: int = 64 * 1024
    #: An imported replay file, and the events it may hold: the longest games we have seen are ~300 events in
    #: ~300 KiB, and verifying a file costs time in proportion to both (bench/replay_bench.py: the worst case).
    max_replay_bytes: int = 2 * 1024 * 1024
    max_replay_events: int = 3000
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
    #: AI turns one player's games may have queued or running at once (0: no limit), so that a player with
    #: many games against AIs cannot fill the queue that every other table waits in (workers/shares.py).
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
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def webhook_queue_name(self) -> str:
        """The queue of webhook deliveries: apart from the games' jobs, so that a slow receiver never delays a game."""
        return f"{self.queue_name}-webhooks"

    @property
    def embedded(self) -> bool:
        return not self.redis_url

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None, **overrides: object) -> Settings:
        env = os.environ if environ is None else environ
        values: dict[str, object] = {
            "redis_url": env.get("REDIS_URL", ""),
            "queue_url": env.get("RED7_QUEUE_URL", ""),
            "key_prefix": env.get("RED7_KEY_PREFIX", "red7:"),
            "queue_name": env.get("RED7_QUEUE", "red7"),
            "api_keys": _list(env.get("RED7_API_KEYS")),
            "allow_custom_decks": _bool(env.get("RED7_ALLOW_CUSTOM_DECKS")),
            "cors_origins": _list(env.get("RED7_CORS_ORIGINS")),
            "rate_limit_token": env.get("RED7_RATE_LIMIT_TOKEN", cls.rate_limit_token),
            "rate_limit_address": env.get("RED7_RATE_LIMIT_ADDRESS", cls.rate_limit_address),
            "rate_limit_signup": env.get("RED7_RATE_LIMIT_SIGNUP", cls.rate_limit_signup),
            "trusted_proxy_hops": int(env.get("RED7_TRUSTED_PROXY_HOPS", cls.trusted_proxy_hops)),
            "expert_seconds": float(env.get("RED7_EXPERT_SECONDS", cls.expert_seconds)),
            "worker_threads": int(env.get("RED7_WORKER_THREADS", cls.worker_threads)),
            "worker_ttl": int(env.get("RED7_WORKER_TTL", cls.worker_ttl)),
            "ai_delay": float(env.get("RED7_AI_DELAY", cls.ai_delay)),
            "max_replay_bytes": int(env.get("RED7_MAX_REPLAY_BYTES", cls.max_replay_bytes)),
            "max_replay_events": int(env.get("RED7_MAX_REPLAY_EVENTS", cls.max_replay_events)),
            "stream_ticket_seconds": int(env.get("RED7_STREAM_TICKET_SECONDS", cls.stream_ticket_seconds)),
            "max_waits_per_token": int(env.get("RED7_MAX_WAITS_PER_TOKEN", cls.max_waits_per_token)),
            "max_waits_per_address": int(env.get("RED7_MAX_WAITS_PER_ADDRESS", cls.max_waits_per_address)),
            "max_games_in_play": int(env.get("RED7_MAX_GAMES_PER_PLAYER", cls.max_games_in_play)),
            "max_ai_seats_in_play": int(env.get("RED7_MAX_AI_SEATS_PER_PLAYER", cls.max_ai_seats_in_play)),
            "ai_turns_per_player": int(env.get("RED7_AI_TURNS_PER_PLAYER", cls.ai_turns_per_player)),
            "redis_max_connections": int(env.get("RED7_REDIS_MAX_CONNECTIONS", cls.redis_max_connections)),
            "wait_replicas": int(env.get("RED7_WAIT_REPLICAS", cls.wait_replicas)),
            "wait_replicas_timeout_ms": int(env.get("RED7_WAIT_TIMEOUT_MS", cls.wait_replicas_timeout_ms)),
            "public_url": env.get("RED7_PUBLIC_URL", "").rstrip("/"),
            "webhook_private_hosts": _bool(env.get("RED7_WEBHOOK_PRIVATE_HOSTS"), default=not env.get("REDIS_URL")),
            "webhook_threads": int(env.get("RED7_WEBHOOK_THREADS", cls.webhook_threads)),
            "webhooks_per_receiver": int(env.get("RED7_WEBHOOKS_PER_RECEIVER", cls.webhooks_per_receiver)),
            "webhook_connect_timeout": float(env.get("RED7_WEBHOOK_CONNECT_TIMEOUT", cls.webhook_connect_timeout)),
            "webhook_read_timeout": float(env.get("RED7_WEBHOOK_READ_TIMEOUT", cls.webhook_read_timeout)),
        }
        values.update(overrides)
        return cls(**values)  # type: ignore[arg-type]
