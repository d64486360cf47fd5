"""The composition root: settings in, every wired-up part out.

The web app and the workers build the same :class:`Runtime`, so that an
append from either one reaches the same dispatcher ("after every append, the
same code path decides what is due next").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

import fakeredis
import redis
from redis import Redis  # for Runtime's fields: in its body, ``redis`` is the field of that name

from service.application.analysis import AnalysisService, Enqueue, game_subjects, imported_subjects
from service.application.archive import ArchiveService
from service.application.blocks import BlockService
from service.application.calendars import Calendars
from service.application.challenges import ChallengeService
from service.application.departures import GameDepartures
from service.application.followups import FollowUps, play_on_levels
from service.application.games import GameService
from service.application.imports import ImportedReplays
from service.application.live import LiveGames
from service.application.matchmaking import MatchService
from service.application.oauth import OAuthService
from service.application.player_feeds import PlayerFeeds
from service.application.players import PlayerService
from service.application.push import PushService
from service.application.push_devices import PushDeviceService
from service.application.rated_play import RatedPlay, RatedPlayRules
from service.application.ratings import RatingService
from service.application.review import MistakeReview
from service.application.safety import Safety, build_safety
from service.application.statistics import StatisticsService
from service.application.stream_tickets import StreamTickets
from service.application.tournaments import TournamentService
from service.application.turns import Turns
from service.common.config import Settings
from service.common.errors import Refused
from service.jobqueue.agenda import Agenda
from service.jobqueue.analysis_queue import AnalysisQueue, subject
from service.jobqueue.dispatch import RECHECK_AFTER, Dispatcher
from service.jobqueue.queues import JobQueue, new_queue
from service.jobqueue.shards import QueueShard, ShardedFollowUps, shard_of
from service.jobqueue.shares import Shares
from service.outbound.destinations import Destinations
from service.outbound.fcm import Fcm
from service.storage.aborts import AbortLog
from service.storage.analyses import AnalysisStore
from service.storage.archive import ArchiveStore
from service.storage.blocks import BlockStore
from service.storage.calendars import CalendarStreams
from service.storage.challenges import ChallengeIndex, ChallengeStreams
from service.storage.changes import ChangeWatch
from service.storage.clock import OffsetClock
from service.storage.connections import BadRedisUrl, blocking_client, is_cluster, queue_client, store_client, waiting_client
from service.storage.events import EventStore
from service.storage.export_lines import ExportLines
from service.storage.matchmaking import PoolStreams, TicketIndex
from service.storage.oauth import OAuthStore
from service.storage.player_feeds import PlayerFeedStore
from service.storage.players import PlayerStore
from service.storage.push import PushSubscriptions
from service.storage.push_devices import PushDevices
from service.storage.ratings import RatingStore
from service.storage.replays import ReplayStore
from service.storage.statistics import StatisticsStore
from service.storage.stream_tickets import TicketStore
from service.storage.tournaments import TournamentIndex, TournamentList, TournamentStreams
from service.storage.watchers import WatcherLeases


@dataclass
class Runtime:
    settings: Settings
    redis: Redis  # text responses: the stores (a RedisCluster when REDIS_URL names a cluster)
    raw_redis: Redis  # bytes: the queue's Redis (RQ, job markers, agenda, shares, pulses, the ticker's role); shard 0's
    store: EventStore
    players: PlayerStore
    games: GameService
    replays: ReplayStore
    queue: JobQueue  # the games' jobs: AI turns, scoring and dealing, deadlines (shard 0's: see ``shards``)
    webhook_queue: JobQueue  # webhook deliveries, worked apart (see workers.runner)
    dispatcher: Dispatcher  # shard 0's; the application's follow-ups go to ``followups`` (the game's shard's)
    tickets: StreamTickets  # stream tickets: a browser's read-only pass to its own live feed
    imports: ImportedReplays  # replay files imported: verified, their facts kept a while, told when read
    #: bytes: the queue's Redis for RQ's workers (workers.runner), whose blocking wait for a job outlasts the socket
    #: timeout of ``raw_redis``: a pool of its own with a longer one (the in-memory store has none: ``raw_redis``)
    worker_redis: Redis
    accounts: PlayerService  # players and their tokens as requests ask for them (the routes' way to the player store)
    challenges: ChallengeService  # challenges to named players: made, answered, cancelled, listed (service/domain/challenges.py)
    ratings: RatingService  # the ladders: finished rated games applied once, leaderboards, a player's ratings
    matches: MatchService  # quick match: players' tickets, and the matchmaker's pass (workers.matchmaker)
    calendars: Calendars  # players' time zones, weekends and vacations: what times their correspondence turns
    push: PushService  # the VAPID key and each device's web push subscription
    push_queue: JobQueue  # web pushes, worked apart (see workers.runner)
    analyses: AnalysisService  # finished games' decision analyses: requested, read, run by the analyse job
    imported_analyses: AnalysisService  # imported replays' decision analyses, kept while their import is
    reviews: MistakeReview  # a player's mistakes across their analysed games
    turns: Turns  # what the game's jobs decide: AI turns, a round's end, a turn run out (workers/jobs.py calls it)
    #: What time it is, for everything that keeps time (the application, the dispatcher, the ticker, the jobs): a test
    #: moves it to play days in seconds.
    clock: Callable[[], datetime] = field(default=lambda: datetime.now(UTC))
    #: The queue's shards (``RED7_QUEUE_URL`` naming several: service/jobqueue/shards.py), shard 0 the one the fields above name.
    shards: list[QueueShard] = field(default_factory=list)
    #: The application's follow-ups: the dispatcher itself for one shard, else each game's shard's (ShardedFollowUps).
    followups: FollowUps | None = None
    #: Each player's blocks, mutes and who may reach them (service/application/blocks.py).
    blocks: BlockService | None = None
    #: The word filter, the terms of use, reports and moderation (service/application/safety.py).
    safety: Safety | None = None
    #: Tournaments: made, entered, their rounds' games made and folded (service/domain/tournaments/).
    tournaments: TournamentService | None = None
    #: Each player's own feed and inbox of notices (service/application/player_feeds.py).
    feeds: PlayerFeeds | None = None

    #: Sign in with Red7: the apps, codes and grants of OAuth (service/application/oauth.py).
    oauth: OAuthService | None = None
    #: Live games to watch, and their watchers' leases (service/application/live.py).
    live: LiveGames | None = None

    #: Players' public archives of finished games: listed, exported, dumped a month at a time, rebuilt.
    archive: ArchiveService | None = None
    #: Statistics across finished games, a player's and everyone's: counted as games finish, rebuilt.
    statistics: StatisticsService | None = None

    def shard_of(self, game_id: str) -> QueueShard:
        """The queue shard that serves this game (or challenge)."""
        return self.shards[shard_of(game_id, len(self.shards))]


def _readable_by_all(tournaments: TournamentService) -> Callable[[str], bool]:
    """Whether anyone may read a game: not while it belongs to a duplicate round still running."""

    def readable(game_id: str) -> bool:
        try:
            tournaments.check_readable(game_id, None)
        except Refused:
            return False
        return True

    return readable


def _iso(clock: Callable[[], datetime]) -> Callable[[], str]:
    return lambda: clock().isoformat(timespec="milliseconds").replace("+00:00", "Z")


def connect(settings: Settings) -> tuple[redis.Redis, redis.Redis]:
    """The stores' text client and the queue's bytes client, or both on a new in-memory Redis.

    Raises :class:`BadRedisUrl` for a setting that cannot work (a cluster with no queue Redis beside it).
    """
    if settings.embedded:
        server = fakeredis.FakeServer()
        return fakeredis.FakeRedis(server=server, decode_responses=True), fakeredis.FakeRedis(server=server)
    if is_cluster(settings.redis_url) and not settings.queue_url:
        raise BadRedisUrl(
            "REDIS_URL names a Redis Cluster, which RQ cannot run on (rq/rq#862): set RED7_QUEUE_URL to a standalone "
            "Redis (redis://host:port/0) or a Sentinel (redis+sentinel://host:port/service_name) for the queue"
        )
    # Each waiting long-poll or stream holds a connection for its blocking read: redis-py 8 caps a pool at
    # 100 by default, which gevent workers reach with a few hundred waiting clients ("Too many connections").
    # A URL that sets max_connections itself keeps its own.
    connections = settings.redis_max_connections
    return (
        store_client(settings.redis_url, connections),
        queue_client(settings.queue_urls[0], connections),  # the first shard's (shard_clients: the others)
    )


#: How much longer than RQ's blocking wait for a job its workers' connections wait for a reply (s): RQ's own margin.
BLOCKING_MARGIN = 10


def worker_client(settings: Settings, raw: redis.Redis, url: str | None = None) -> redis.Redis:
    """The client of RQ's workers: the queue's Redis (``url``: a shard's; default the first), on connections that
    outlast their blocking wait for a job (RQ's ``dequeue_timeout``: the worker TTL less 15 s, at least 1 s)."""
    if settings.embedded:
        return raw  # in memory: no socket, no timeout
    wait = max(1, settings.worker_ttl - 15)
    return blocking_client(url or settings.queue_urls[0], settings.redis_max_connections, wait + BLOCKING_MARGIN)


def shard_clients(settings: Settings, first: redis.Redis) -> list[redis.Redis]:
    """Every queue shard's bytes client, ``first`` (what :func:`connect` made) for the first."""
    return [first, *(queue_client(url, settings.redis_max_connections) for url in settings.queue_urls[1:])]


def build_runtime(
    settings: Settings | None = None,
    clients: tuple[redis.Redis, redis.Redis] | None = None,
    clock: Callable[[], datetime] | None = None,
    queues: Sequence[redis.Redis] | None = None,
) -> Runtime:
    """Everything wired up; ``clock``: what time it is for all of it (a test's, to move; default: the wall clock, or
    with ``RED7_CLOCK_OFFSET_KEY`` the wall clock moved on by the offset the tests keep there: service/storage/clock.py).

    ``queues``: the queue shards' bytes clients (a test's; default: ``clients``' queue client alone when given, else
    one per URL of ``RED7_QUEUE_URL``), each served by a dispatcher of its own (service/jobqueue/shards.py).
    """
    settings = settings or Settings.from_env()
    text, raw = clients or connect(settings)
    now = clock or (OffsetClock(text, settings.clock_offset_key) if settings.clock_offset_key else lambda: datetime.now(UTC))
    store = EventStore(
        text, settings.key_prefix, replicas=settings.wait_replicas, replica_timeout_ms=settings.wait_replicas_timeout_ms
    )
    # Token lookups are cached per process; Redis's tracking of the tokens' keys says when one changed (revoked,
    # deleted with its account), so that a read needs no round trip and a revoked token fails at once everywhere.
    token_watch = ChangeWatch(text, settings.key_prefix, family="token") if settings.watch_changes else None
    players = PlayerStore(text, settings.key_prefix, watch=token_watch)
    push = PushService(
        PushSubscriptions(text, settings.key_prefix),
        settings.vapid_private_key,
        private_hosts=settings.webhook_private_hosts,
        clock=_iso(now),
        native=PushDeviceService(
            PushDevices(text, settings.key_prefix),
            Fcm(settings.fcm_credentials, settings.fcm_endpoint) if settings.fcm_credentials else None,
            clock=_iso(now),
        ),
    )
    namespace = re.sub(r"[^A-Za-z0-9_-]", "_", settings.key_prefix).strip("_") or "red7"

    def shard(index: int, connection: redis.Redis, worker_connection: redis.Redis) -> QueueShard:
        queue = new_queue(settings.queue_name, connection)
        webhook_queue = new_queue(settings.webhook_queue_name, connection)
        push_queue = new_queue(settings.push_queue_name, connection)
        dispatcher = Dispatcher(
            queue,
            Agenda(connection, settings.key_prefix),
            webhook_queue=webhook_queue,
            marker_prefix=settings.key_prefix,
            namespace=namespace,
            ai_delay=settings.ai_delay,
            webhook_of=players.webhook_url,
            per_receiver=settings.webhooks_per_receiver,
            shares=Shares(connection, settings.key_prefix, settings.ai_turns_per_player)
            if settings.ai_turns_per_player
            else None,
            push_of=push.has if settings.vapid_private_key or settings.fcm_credentials else None,
            push_queue=push_queue,
            clock=now,
            play_on_levels=play_on_levels(settings.expert_seconds, RECHECK_AFTER),
        )
        analyses = AnalysisQueue(connection, settings.key_prefix, settings.analyses_per_player)
        return QueueShard(index, connection, worker_connection, queue, webhook_queue, push_queue, dispatcher, analyses)

    if queues is not None:
        shards = [shard(n, client, client) for n, client in enumerate(queues)]
    elif clients is not None or settings.embedded:
        shards = [shard(0, raw, raw)]
    else:
        urls = settings.queue_urls
        shards = [
            shard(n, client, worker_client(settings, client, url))
            for n, (client, url) in enumerate(zip(shard_clients(settings, raw), urls, strict=True))
        ]
    first = shards[0]
    raw, dispatcher = first.connection, first.dispatcher
    queue, webhook_queue, push_queue = first.queue, first.webhook_queue, first.push_queue
    followups: FollowUps = dispatcher if len(shards) == 1 else ShardedFollowUps(shards)
    calendars = Calendars(
        CalendarStreams(
            text, settings.key_prefix, replicas=settings.wait_replicas, replica_timeout_ms=settings.wait_replicas_timeout_ms
        ),
        clock=now,
        allowance=settings.vacation_hours_per_year,
    )
    block_store = BlockStore(text, settings.key_prefix)  # one, shared by every service that seats or hears players
    games = GameService(
        store,
        players,
        allow_custom_decks=settings.allow_custom_decks,
        snapshot_every=settings.snapshot_every,
        recover_after=settings.recover_after,
        followups=followups,
        max_games_in_play=settings.max_games_in_play,
        max_ai_seats_in_play=settings.max_ai_seats_in_play,
        max_listed_tables=settings.max_listed_tables,
        calendars=calendars,
        clock=_iso(now),
        changes=ChangeWatch(text, settings.key_prefix) if settings.watch_changes else None,
        blocks=block_store,
    )
    calendars.changed.append(games.retime)
    replays = ReplayStore(text, settings.key_prefix)
    accounts = PlayerService(
        players,
        load=games.load,
        handle_hold_seconds=settings.handle_hold_seconds,
        destinations=Destinations(settings.webhook_private_hosts),
    )
    tickets = StreamTickets(TicketStore(text, settings.key_prefix, settings.stream_ticket_seconds), accounts, games.load)
    imports = ImportedReplays(replays, players, settings.imported_replay_ttl, max_events=settings.max_replay_events)
    worker_redis = first.worker_connection
    challenges = ChallengeService(
        ChallengeStreams(
            text, settings.key_prefix, replicas=settings.wait_replicas, replica_timeout_ms=settings.wait_replicas_timeout_ms
        ),
        ChallengeIndex(text, settings.key_prefix),
        players,
        accounts,
        games,
        followups=followups,
        max_open=settings.max_open_challenges,
        max_received=settings.max_challenges_received,
        expiry=settings.challenge_expiry,
        max_expiry=settings.max_challenge_expiry,
    )
    ratings = RatingService(RatingStore(text, settings.key_prefix), store, games.load, players.deleted_among)
    rated_play = RatedPlay(
        players,
        AbortLog(text, settings.key_prefix),
        RatedPlayRules(
            min_account_age=settings.rated_min_account_age,
            min_games=settings.rated_min_games,
            abort_limit=settings.rated_abort_limit,
            abort_window=settings.rated_abort_window,
            suspension=settings.rated_abort_suspension,
        ),
        clock=_iso(now),
        load=games.load,
    )
    games.rated_play = rated_play
    for each in shards:
        each.dispatcher.rated = ratings.applied
        each.dispatcher.compact_after, each.dispatcher.compacted = settings.compact_after, games.compacted
    games.tables.rating = ratings.rating  # the open tables' and quick match's rating ranges compare players' ratings
    pools = PoolStreams(
        text, settings.key_prefix, replicas=settings.wait_replicas, replica_timeout_ms=settings.wait_replicas_timeout_ms
    )
    matches = MatchService(
        pools,
        TicketIndex(text, settings.key_prefix),
        games,
        max_tickets=settings.max_match_tickets,
        expiry=settings.match_ticket_seconds,
        max_expiry=settings.match_ticket_max_seconds,
        rating_of=ratings.rating,
    )

    def queued(kind: str) -> Enqueue:
        """Queue an analysis in its asker's turn, on the shard of its subject's id (a game's, as its jobs are)."""

        def enqueue(subject_id: str, by: str, asked_ms: int) -> None:
            shards[shard_of(subject_id, len(shards))].analyses.push(by, subject(kind, subject_id), asked_ms)

        return enqueue

    analyses = AnalysisService(
        AnalysisStore(text, settings.key_prefix),
        game_subjects(games.load, lambda game: games.replay(game, None)),
        queued("game"),
        now,
    )
    imported_analyses = AnalysisService(
        AnalysisStore(text, settings.key_prefix, kind="replay"),
        imported_subjects(imports.get, imports.seconds_left),
        queued("replay"),
        now,
    )
    archive = ArchiveService(
        ArchiveStore(text, settings.key_prefix),
        players,
        accounts.find,
        games.peek,  # thousands of finished games read once each: cached nowhere
        lambda game: games.feeds.finished_replay(game, keep=False),  # an export's lines are kept in Redis instead
        analyses.done,
        ratings.store,
        AnalysisStore(text, settings.key_prefix),
        ratings.game_ids,
        ExportLines(text, settings.key_prefix),
    )
    games.lists.archived.append(archive.index)
    statistics = StatisticsService(
        StatisticsStore(text, settings.key_prefix),
        players,
        accounts.find,
        lambda game_id: [(e.number, e.payload) for e in store.read(game_id)],
        ratings.game_ids,
        ArchiveStore(text, settings.key_prefix),
        AnalysisStore(text, settings.key_prefix),
    )
    games.lists.archived.append(statistics.count)
    # What ends when an account is deleted, in this order: what could seat the player anew joins before their games.
    blocks = BlockService(block_store, players, accounts)
    blocks.on_block.append(challenges.part_ways)  # a block ends the open challenges between the two at once
    accounts.join(challenges)
    accounts.join(matches)
    accounts.join(blocks)  # both ways: nobody keeps a deleted account in their lists
    accounts.join(GameDepartures(games))
    accounts.join(push)
    accounts.join(ratings)  # the name leaves every leaderboard (its games stay rated for the others)
    accounts.join(rated_play)  # its aborts go
    accounts.join(archive)  # its archive goes; its name is erased from the others' as it is read
    accounts.join(statistics)  # its statistics go; its games stay counted in everyone's
    tournaments = TournamentService(
        TournamentStreams(
            text, settings.key_prefix, replicas=settings.wait_replicas, replica_timeout_ms=settings.wait_replicas_timeout_ms
        ),
        TournamentIndex(text, settings.key_prefix),
        TournamentList(text, settings.key_prefix),
        players,
        games,
        ratings,
        clock=_iso(now),
        look_at=lambda tournament_id, at: shards[shard_of(tournament_id, len(shards))].dispatcher.agenda.look_at(
            tournament_id, int(at.timestamp() * 1000)
        ),
    )
    for each in shards:
        each.dispatcher.folded = tournaments.folded
    calendars.vacation_cap = tournaments.vacation_cap  # a tournament round honours so much vacation, no more
    accounts.join(tournaments)  # withdrawn from each, their seats played out by AIs
    # The feeds' waits on a pool whose replies may take a heartbeat and more: an idle feed blocks in one XREAD a
    # heartbeat (not one every 4 s); a test's clients and the embedded server's in-memory one are used as they are.
    waits = None
    if clients is None and not settings.embedded:
        waits = waiting_client(text, settings.stream_heartbeat + BLOCKING_MARGIN)
    feeds = PlayerFeeds(PlayerFeedStore(text, settings.key_prefix, waits), games, challenges, matches)
    for each in shards:
        each.dispatcher.record = feeds.record  # every notice in its player's feed first, its id in its webhook and push
    accounts.join(feeds)
    oauth = OAuthService(OAuthStore(text, settings.key_prefix), accounts, clock=_iso(now))
    accounts.join(oauth)  # the apps' grants go with the account
    live = LiveGames(
        games.load,
        games.in_play,
        WatcherLeases(text, settings.key_prefix),
        rating=ratings.rating,
        hidden_among=players.live_hidden_among,
        readable=_readable_by_all(tournaments),
        now_ms=lambda: int(now().timestamp() * 1000),
    )
    return Runtime(
        settings,
        text,
        raw,
        store,
        players,
        games,
        replays,
        queue,
        webhook_queue,
        dispatcher,
        tickets,
        imports,
        worker_redis,
        accounts,
        challenges,
        ratings,
        matches,
        calendars,
        push,
        push_queue,
        analyses,
        imported_analyses,
        MistakeReview(players, games.load, analyses.done),
        Turns(
            games,
            calendars,
            ai_delay=settings.ai_delay,
            expert_seconds=settings.expert_seconds,
            play_on_levels=lambda: dispatcher.play_on_levels,  # the job system's setting (a test changes it)
        ),
        now,
        shards,
        followups,
        blocks,
        safety=build_safety(text, settings, accounts, games, ratings, [challenges, matches, GameDepartures(games)]),
        tournaments=tournaments,
        feeds=feeds,
        oauth=oauth,
        archive=archive,
        statistics=statistics,
        live=live,
    )
