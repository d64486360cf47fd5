"""The API's request and response shapes (marshmallow); the OpenAPI document is generated from them.

Request schemas (:mod:`.requests`) validate and turn JSON into the
application's commands.  Response schemas (:mod:`.responses`) document what
the views in :mod:`service.http.views` build (the responses are rendered
directly for speed, and the tests check them against these schemas).
"""

from service.http.schemas.matches import MatchTicketCreateSchema, MatchTicketSchema
from service.http.schemas.requests import (
    ActionSchema,
    EventsQuerySchema,
    GameCreateSchema,
    JoinSchema,
    LeaderboardQuerySchema,
    MyGamesQuerySchema,
    OpenGamesQuerySchema,
    PlayerCreateSchema,
    PlayerSearchQuerySchema,
    PlayerUpdateSchema,
    ReplayQuerySchema,
    StreamQuerySchema,
    TokenCreateSchema,
    event_number,
)
from service.http.schemas.responses import (
    EventPageSchema,
    GameListSchema,
    GameViewSchema,
    HealthSchema,
    ImportedSchema,
    LeaderboardSchema,
    OpenGameListSchema,
    PlayerCreatedSchema,
    PlayerListSchema,
    PlayerSchema,
    ProblemListSchema,
    ProblemSchema,
    PublicPlayerSchema,
    ReplayAtSchema,
    ReplaySchema,
    StreamTicketSchema,
    TokenIssuedSchema,
    TokenListSchema,
)

__all__ = [
    "ActionSchema",
    "EventPageSchema",
    "EventsQuerySchema",
    "GameCreateSchema",
    "GameListSchema",
    "GameViewSchema",
    "HealthSchema",
    "ImportedSchema",
    "JoinSchema",
    "LeaderboardQuerySchema",
    "LeaderboardSchema",
    "MatchTicketCreateSchema",
    "MatchTicketSchema",
    "MyGamesQuerySchema",
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
    "ReplayAtSchema",
    "ReplayQuerySchema",
    "ReplaySchema",
    "StreamQuerySchema",
    "StreamTicketSchema",
    "TokenCreateSchema",
    "TokenIssuedSchema",
    "TokenListSchema",
    "event_number",
]
