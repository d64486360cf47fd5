"""The API's request and response shapes (marshmallow); the OpenAPI document is generated from them.

One module a resource, each with both directions: what its requests may carry (request schemas validate JSON and turn
it into the application's commands) and what its answers hold (response schemas document what :mod:`service.http.views`
and the routes build: the responses are rendered directly for speed, and the tests check them against these).
:mod:`.base` holds the building blocks they share, :mod:`.vocabulary` the named value sets, :mod:`.events` a schema per
event type.  The schemas' class names are the document's component names, which the generated clients are built on:
a schema may move between modules, never be renamed.
"""

from service.http.schemas.actions import ActionSchema
from service.http.schemas.base import event_number
from service.http.schemas.feeds import LONG_POLL_MOST, EventPageSchema, EventsQuerySchema, StreamQuerySchema, StreamTicketSchema
from service.http.schemas.games import (
    GameCreateSchema,
    GameListSchema,
    GameViewQuerySchema,
    GameViewSchema,
    GiveTimeSchema,
    JoinSchema,
    MyGamesQuerySchema,
    OpenGameListSchema,
    OpenGamesQuerySchema,
)
from service.http.schemas.ladders import LeaderboardQuerySchema, LeaderboardSchema
from service.http.schemas.live import LiveGameListSchema, LiveGamesQuerySchema, OEmbedQuerySchema, OEmbedSchema
from service.http.schemas.matchmaking import MatchTicketCreateSchema, MatchTicketSchema
from service.http.schemas.meta import HealthSchema, RuleListSchema
from service.http.schemas.players import (
    PlayerCreatedSchema,
    PlayerCreateSchema,
    PlayerListSchema,
    PlayerSchema,
    PlayerSearchQuerySchema,
    PlayerUpdateSchema,
    PublicPlayerSchema,
    TokenCreateSchema,
    TokenIssuedSchema,
    TokenListSchema,
)
from service.http.schemas.problems import ProblemListSchema, ProblemSchema
from service.http.schemas.push import (
    PushDeviceCreateSchema,
    PushDeviceSchema,
    PushKeySchema,
    PushSubscriptionCreateSchema,
    PushSubscriptionSchema,
)
from service.http.schemas.replays import ImportedSchema, ReplayAtSchema, ReplayQuerySchema, ReplaySchema, ViewerQuerySchema

__all__ = [
    "LONG_POLL_MOST",
    "ActionSchema",
    "EventPageSchema",
    "EventsQuerySchema",
    "GameCreateSchema",
    "GameListSchema",
    "GameViewQuerySchema",
    "GameViewSchema",
    "GiveTimeSchema",
    "HealthSchema",
    "ImportedSchema",
    "JoinSchema",
    "LeaderboardQuerySchema",
    "LeaderboardSchema",
    "LiveGameListSchema",
    "LiveGamesQuerySchema",
    "MatchTicketCreateSchema",
    "MatchTicketSchema",
    "MyGamesQuerySchema",
    "OEmbedQuerySchema",
    "OEmbedSchema",
    "OpenGameListSchema",
    "OpenGamesQuerySchema",
    "PlayerCreateSchema",
    "PlayerCreatedSchema",
    "PlayerListSchema",
    "PlayerSchema",
    "PlayerSearchQuerySchema",
    "PlayerUpdateSchema",
    "ProblemListSchema",
    "ProblemSchema",
    "PublicPlayerSchema",
    "PushDeviceCreateSchema",
    "PushDeviceSchema",
    "PushKeySchema",
    "PushSubscriptionCreateSchema",
    "PushSubscriptionSchema",
    "ReplayAtSchema",
    "ReplayQuerySchema",
    "ReplaySchema",
    "RuleListSchema",
    "StreamQuerySchema",
    "StreamTicketSchema",
    "TokenCreateSchema",
    "TokenIssuedSchema",
    "TokenListSchema",
    "ViewerQuerySchema",
    "event_number",
]
