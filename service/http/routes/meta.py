"""What is not a resource of the game: the problem catalogue and the health checks."""

from __future__ import annotations

from flask import Response
from flask.views import MethodView

from engine.cards import COLORS_HIGH_TO_LOW
from service.common.texts import LANGUAGES, rule, rule_description
from service.http.common import (
    PUBLIC,
    documented_errors,
    game_service,
    health,
    json_response,
    v1,
)
from service.http.examples import example
from service.http.locale import language, localized
from service.http.problems import catalogue
from service.http.schemas import (
    HealthSchema,
    ProblemListSchema,
    RuleListSchema,
)

#: The catalogue and the rules change only with a release: any cache may keep them an hour (a request that carries a
#: token is kept by the caller's cache alone: its player's language may have decided, ``languages.mark``).
RELEASED_TEXT = {"Cache-Control": "public, max-age=3600"}


@v1.route("/problems")
class Problems(MethodView):
    @documented_errors(store=False)
    @v1.response(200, ProblemListSchema, example=example("ProblemList"))
    @v1.doc(operationId="listProblems", security=PUBLIC)
    def get(self) -> Response:
        """Every problem ``code`` this API answers with."""
        return json_response({"problems": catalogue(language())}, 200, RELEASED_TEXT)


@v1.route("/rules")
class Rules(MethodView):
    @documented_errors(store=False)
    @v1.response(200, RuleListSchema, example=example("RuleList"))
    @v1.doc(operationId="listRules", security=PUBLIC)
    def get(self) -> Response:
        """The seven rules of the canvas (docs/rules.md 3-9), strongest colour first: each one's name and what counts under
        it, as codes with their parameters and in the answer's language (``?lang=``, your setting, Accept-Language)."""
        rules = [
            {"color": str(color), "name": localized(rule(str(color))), "description": localized(rule_description(str(color)))}
            for color in COLORS_HIGH_TO_LOW
        ]
        return json_response({"language": language(), "languages": list(LANGUAGES), "rules": rules}, 200, RELEASED_TEXT)


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
