"""Which rate-limit budgets a request draws on, and by what key: its address always, its token when it carries one,
and budgets of their own for sign-ups, replay imports, challenges and analyses.  The budgets' mechanism (one Lua
script, leases) is :mod:`service.http.budgets`; this is the policy the settings switch on.
"""

from __future__ import annotations

import redis
from flask import Flask, Request

from service.application.players import hash_token
from service.common.config import Settings
from service.http.budgets import Budget, RateBudgets
from service.http.routes.reports import report_budget_key

#: Endpoints that rate limits never apply to.
UNLIMITED = frozenset(
    {
        "health.Healthz",
        "health.Readyz",
        "v1.Problems",
        "swagger_static",
        "favicon",
        "api-docs.openapi_json",
        "api-docs.openapi_swagger_ui",
        "pages.asset",  # the web client's modules and style: a page load asks for some twenty
        "pages.icon",  # and the app's icons and manifest, which a page load (or installing it) asks for too
        "pages.manifest",
    }
)


def _limited(req: Request) -> bool:
    """Whether the request is charged to the rate limits (not health checks, the docs, CORS preflights)."""
    return req.endpoint not in UNLIMITED and req.method != "OPTIONS"


def _token_key(req: Request) -> str | None:
    """The token's budget: requests that carry one."""
    header = req.headers.get("Authorization")
    if not header or not _limited(req):
        return None
    return hash_token(header.partition(" ")[2].strip())


def _address(req: Request) -> str:
    """The client's address (the nearest trusted proxy's view of it, behind ``trusted_proxy_hops``)."""
    return req.remote_addr or "unknown"


def _address_key(req: Request) -> str | None:
    return _address(req) if _limited(req) else None


def _signup_key(req: Request) -> str | None:
    if req.endpoint != "v1.Players" or req.method != "POST":
        return None
    return _address(req)


def _import_key(req: Request) -> str | None:
    """Replay imports draw on a budget of their own, per token: each keeps its file's facts for a while."""
    if req.endpoint != "v1.Replays" or req.method != "POST":
        return None
    return _token_key(req)


def _challenge_key(req: Request) -> str | None:
    """Challenges made draw on a budget of their own, per address: many accounts from one place flood inboxes."""
    if req.endpoint != "v1.Challenges" or req.method != "POST":
        return None
    return _address(req)


#: The operations that ask for a decision analysis (requestAnalysis, requestImportedAnalysis): a minute of a core each.
ANALYSIS_REQUESTS = frozenset({"v1.Analysis", "v1.ImportedAnalysis"})


def _analysis_key(req: Request) -> str | None:
    """Requests for analyses draw on a budget of their own, per token: each may cost a worker a minute of a core."""
    if req.endpoint not in ANALYSIS_REQUESTS or req.method != "POST":
        return None
    return _token_key(req)


#: The operations that stream a whole archive (exportPlayerGames): a budget of their own, per token and per address.
EXPORTS = frozenset({"v1.PlayerGamesExport"})


def _export_token_key(req: Request) -> str | None:
    """Exports draw on a budget of their own per token: each may stream thousands of replays."""
    return _token_key(req) if req.endpoint in EXPORTS else None


def _export_address_key(req: Request) -> str | None:
    """And per address, token or not (an export needs none)."""
    return _address(req) if req.endpoint in EXPORTS else None


def limit_rates(app: Flask, client: redis.Redis, settings: Settings) -> None:
    """Charge every request to its budgets (before its route), and say what is left (on its answer).  ``client`` is the
    rate limits' own Redis, handed over by the app factory (the HTTP layer reaches no store of the runtime's)."""
    budgets = _budgets(settings)
    if budgets:  # with every limit switched off, no request pays for them at all
        rate = RateBudgets(client, settings.key_prefix, budgets, _address)
        app.before_request(rate.before_request)
        app.after_request(rate.after_request)


def _budgets(settings: Settings) -> list[Budget]:
    # Each limit is one budget across every route: per route, a client at its limit on one route still had the
    # whole of it on every other.  The token's budget applies to requests that carry a token, the sign-up budget
    # to sign-ups; the address's to every request.
    return [
        Budget.of(name, text, key)
        for name, text, key in (
            ("address", settings.rate_limit_address, _address_key),
            ("token", settings.rate_limit_token, _token_key),
            ("signup", settings.rate_limit_signup, _signup_key),
            ("import", settings.rate_limit_import, _import_key),
            ("challenge", settings.rate_limit_challenge, _challenge_key),
            ("analysis", settings.rate_limit_analysis, _analysis_key),
            ("export_token", settings.rate_limit_export_token, _export_token_key),
            ("export_address", settings.rate_limit_export_address, _export_address_key),
            ("report", settings.rate_limit_report, report_budget_key),
        )
        if text
    ]
