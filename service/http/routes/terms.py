"""The terms of use: which are in force (``getTerms``), a player accepting them (``acceptTerms``), and the sample
terms page this service ships (``/terms``, a page, not an operation)."""

from __future__ import annotations

from html import escape
from typing import Any

from flask import Response, g
from flask.views import MethodView

from service.application.safety import Safety
from service.http.auth import current_player
from service.http.common import PUBLIC, TOKEN, documented_errors, json_response, red7_runtime, v1
from service.http.routes.play import pages
from service.http.schemas.safety import TERMS_EXAMPLE, TermsAcceptSchema, TermsSchema
from service.webclient import assets


def safety() -> Safety:
    found = red7_runtime().safety
    assert found is not None, "build_runtime makes one"
    return found


def _terms_json() -> dict[str, str]:
    terms = safety().terms.in_force
    return {"terms_version": terms.version, "terms_url": terms.url}


@v1.route("/terms")
class TermsInForce(MethodView):
    @documented_errors(429)
    @v1.response(200, TermsSchema, example=TERMS_EXAMPLE)
    @v1.doc(operationId="getTerms", security=PUBLIC)
    def get(self) -> Response:
        """The terms of use in force: their version and where they are read (an empty version: this server has none).
        Signing up (``createPlayer``) takes ``accept_terms`` equal to the version; a player who has not accepted it is
        answered 403 ``terms_not_accepted`` on every call until ``acceptTerms``."""
        return json_response(_terms_json(), 200, {"Cache-Control": "no-cache"})


@v1.route("/players/me/terms")
class TermsAccepted(MethodView):
    @documented_errors(400, 401, 403, 413, 415, 422, 429)
    @v1.arguments(TermsAcceptSchema(), example={"terms_version": "2026-11"})
    @v1.response(200, TermsSchema, example=TERMS_EXAMPLE)
    @v1.doc(operationId="acceptTerms", security=TOKEN)
    def post(self, body: dict[str, Any]) -> Response:
        """Accept the terms of use in force (``terms_version``: the version read; another is 422
        ``terms_version_mismatch``, naming the one in force). The only call a player who has not accepted them may
        make."""
        g.terms_exempt = True
        player = current_player()
        safety().terms.accept(player.id, body["terms_version"])
        safety().gate.forget(player.id)
        return json_response(_terms_json(), 200)


@pages.get("/terms")
def sample_terms() -> Response:
    """The sample terms (set ``RED7_TERMS_URL`` to serve your own): a page for people, as the embedded run ships it."""
    page = assets.text("terms/terms.html").replace("__RED7_TERMS_VERSION__", escape(safety().terms.version or "none"))
    return Response(page, 200, mimetype="text/html", headers={"Cache-Control": "no-cache"})
