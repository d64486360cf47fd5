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
    MyGamesQuerySchema,
    PlayerCreateSchema,
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
    PlayerCreatedSchema,
    PlayerSchema,
    ProblemListSchema,
    ProblemSchema,
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
    "MatchTicketCreateSchema",
    "MatchTicketSchema",
    "MyGamesQuerySchema",
    "PlayerCreateSchema",
    "PlayerCreatedSchema",
    "PlayerSchema",
    "PlayerUpdateSchema",
    "ProblemListSchema",
    "ProblemSchema",
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
