"""The queue's shards: several queue Redis servers, each game's jobs, agenda and ticker on one of them.

One queue Redis holds everything of the job system (RQ's queues, job markers, the agenda, AI shares, pulses, the
ticker's role), so it caps the whole deployment.  ``RED7_QUEUE_URL`` may name several (``service.common.config.queue_urls``):
each is a *shard*, and each game is served by one shard, :func:`shard_of` its id.

Why not RQ on the Redis Cluster the stores run on, each shard's keys hash-tagged onto one slot?  RQ 3.0 rules it
out (``tests/service/processes/test_cluster.py``, ``test_rq_does_not_run_on_the_cluster_even_with_hash_tagged_names``): a
job's key is ``rq:job:<id>`` and a job id may hold letters, digits, ``_`` and ``-`` only (``rq.job.validate_job_id``),
so it can carry no hash tag and never shares its queue's slot; every enqueue also adds its queue to the global set
``rq:queues`` (``Queue.enqueue_job``, in the same transaction as the job), every worker registers in ``rq:workers``
and ``rq:workers:<queue>`` (``rq.worker_registration``) and asks ``rq:suspended`` before its jobs
(``rq.suspension``): global keys, each on a slot of its own, in multi-key transactions with the shard's keys; and
RQ's worker cannot be built on a cluster client at all (it sets its socket timeout through
``connection.connection_pool``, which ``RedisCluster`` has not).  So the distributed engine is the plain one: several
standalone Redis servers (or Sentinel groups), and this module's routing.

- *The shard of a game* is ``crc32(id) mod N`` (:func:`shard_of`): the same in every process and release, whatever
  Python's hash seed.  Changing the list of shards moves games to other shards.  What heals them is what heals a queue
  Redis that lost its data: each shard's agenda marker names the shard's place and the number of shards
  (:func:`layout`), so after a change every shard's ticker finds its marker stale and puts every game of the stores'
  index of games in play that now hashes to it back on its agenda (``workers.ticker.Ticker.seed``); a game left on an
  old shard's agenda is dropped from it at its next look, and its jobs still queued there run once, idempotent by
  version.  Restart every worker and API process together with the new list (two lists at once would send one game's
  follow-ups to two shards: harmless, as any job may run twice, but twice the work).
- *A shard* (:class:`QueueShard`) is a bundle: its connection, its three RQ queues (games, webhooks, pushes), its
  :class:`~service.jobqueue.dispatch.Dispatcher` (with that shard's agenda, job markers, AI shares and pulses) and its queue of
  decision analyses (:mod:`service.jobqueue.analysis_queue`: players in turn; a worker's analysts take from every shard's in
  turn).
- *The application's follow-ups* go to :class:`ShardedFollowUps`, which sends each call to the dispatcher of the
  game's shard; a job queued on a shard makes its follow-ups on the same shard, as they are keyed by the same id.
  A move's notices job, and each delivery it hands to its receiver's line, go to the game's shard; a challenge's
  (no game) to its id's; a game's analysis to its game's, an imported replay's to its id's.
- *Fair shares* (``service.jobqueue.shares``) are per player *per shard*: a player's games spread over the shards, and each
  shard lets their games have ``RED7_AI_TURNS_PER_PLAYER`` AI turns on their way, so a player has at most that times
  the number of shards at once.  Every worker serves every shard, so the fairness that matters — one player's games
  never fill the queue another's table waits in — holds on each shard.
- *A receiver's line of webhook deliveries* (``Dispatcher.line_of``, RQ's rate limit) is kept per shard too: a
  receiver gets at most ``RED7_WEBHOOKS_PER_RECEIVER`` deliveries at once from each shard.
- *A shard lost* stalls only its games: its runners, pulse and ticker in every worker back off and reconnect (as
  after a Redis restart), while the other shards' go on; it comes back empty or not, and its ticker reseeds its games.
- *What no game keys*: the matchmaker's role is held on the first shard that answers (:mod:`workers.matchmaker`), so
  quick match goes on while any shard does.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass

import redis

from service.application.followups import Due
from service.domain.game import Game
from service.jobqueue.agenda import Agenda
from service.jobqueue.analysis_queue import AnalysisQueue
from service.jobqueue.dispatch import Dispatcher
from service.jobqueue.queues import JobQueue


def shard_of(game_id: str, count: int) -> int:
    """Which of ``count`` shards serves the game (or challenge) ``game_id``: CRC-32 of its id, mod ``count``.

    Stable across processes, hosts and releases (never Python's ``hash``, salted per process); ids are random, so the
    games spread evenly.
    """
    return zlib.crc32(game_id.encode()) % count if count > 1 else 0


def layout(index: int, count: int) -> str:
    """What a shard's agenda marker says of its place besides the run of its Redis (``""`` for one queue Redis, as
    before shards): a marker written under another list of shards is stale, and the agenda is rebuilt."""
    return f"/shard-{index}-of-{count}" if count > 1 else ""


@dataclass
class QueueShard:
    """One queue Redis and what lives on it: the queues, and the dispatcher that keeps its agenda, markers and shares."""

    index: int
    #: bytes: RQ, job markers, the agenda, shares, pulses, the ticker's role (the runtime's ``raw_redis`` for shard 0)
    connection: redis.Redis
    #: bytes: the same Redis for RQ's workers' blocking wait for a job (see ``service.runtime.worker_client``)
    worker_connection: redis.Redis
    queue: JobQueue
    webhook_queue: JobQueue
    push_queue: JobQueue
    dispatcher: Dispatcher
    #: The decision analyses asked for of its games (and imported replays): players in turn (service/jobqueue/analysis_queue.py)
    analyses: AnalysisQueue

    @property
    def agenda(self) -> Agenda:
        return self.dispatcher.agenda

    @property
    def queues(self) -> list[JobQueue]:
        """Its RQ queues in the order a worker takes jobs from them: the games' first."""
        return [self.queue, self.webhook_queue, self.push_queue]


class ShardedFollowUps:
    """The application's :class:`~service.application.followups.FollowUps` over several shards: each call goes to the
    dispatcher of the shard of the game it is about (:func:`shard_of`)."""

    def __init__(self, shards: Sequence[QueueShard]) -> None:
        self.shards = list(shards)

    def shard(self, game_id: str) -> QueueShard:
        return self.shards[shard_of(game_id, len(self.shards))]

    def dispatcher(self, game_id: str) -> Dispatcher:
        return self.shard(game_id).dispatcher

    def before_append(self, game_id: str) -> int | None:
        return self.dispatcher(game_id).before_append(game_id)

    def after_append(
        self, game: Game, items: Sequence[Due], mark: int | None, *, playing_on: bool = False, request_id: str | None = None
    ) -> None:
        self.dispatcher(game.id).after_append(game, items, mark, playing_on=playing_on, request_id=request_id)

    def reoffer(self, game: Game, items: Sequence[Due], seen: int | None = None) -> bool:
        return self.dispatcher(game.id).reoffer(game, items, seen)

    def turn_finished(self, game: Game, version: int) -> list[str]:
        """The owner's games waiting on the game's shard (its line holds only games of that shard)."""
        return self.dispatcher(game.id).turn_finished(game, version)

    def offer_place(self, game: Game, items: Sequence[Due]) -> bool:
        return self.dispatcher(game.id).offer_place(game, items)

    def notify(self, items: Sequence[Due], *, request_id: str | None = None) -> None:
        """Each notification on the shard of what it is about (a game, or a challenge)."""
        by_shard: dict[int, list[Due]] = {}
        for item in items:
            by_shard.setdefault(shard_of(item.game_id, len(self.shards)), []).append(item)
        for index, mine in by_shard.items():
            self.shards[index].dispatcher.notify(mine, request_id=request_id)
