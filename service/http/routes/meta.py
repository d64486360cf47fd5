"""What is not a resource of the game: the problem catalogue and the health checks."""

from __future__ import annotations

from flask import Response
from flask.views import MethodView

from service.http.common import (
    PUBLIC,
    documented_errors,
    game_service,
    health,
    json_response,
    v1,
)
from service.http.examples import example
from service.http.languages import language
from service.http.problems import catalogue
from service.http.schemas import (
    HealthSchema,
    ProblemListSchema,
)


@v1.route("/problems")
class Problems(MethodView):
    @documented_errors(store=False)
    @v1.response(200, ProblemListSchema, example=example("ProblemList"))
    @v1.doc(operationId="listProblems", security=PUBLIC)
    def get(self) -> Response:
        """Every problem ``code`` this API answers with."""
        return json_response({"problems": catalogue(language())})


# --- health ------------------------------------------------------------------------------


@health.route("/healthz")
class Healthz(MethodView):
    @documented_errors(store=False)
    @health.response(200, HealthSchema, example={"status": "ok"})
    @health.doc(operationId="getHealth", security=PUBLIC)
    def get(self) -> Response:
        """The process is up."""
        return json_response({"status": "ok"})


@health.route("/readyz")
class Readyz(MethodView):
    @documented_errors()
    @health.response(200, HealthSchema, example={"status": "ready"})
    @health.doc(operationId="getReadiness", security=PUBLIC)
    def get(self) -> Response:
        """The event store (Redis) answers."""
        game_service().check_store()
        return json_response({"status": "ready"})
