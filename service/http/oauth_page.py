"""The consent page of Sign in with Red7 (``GET /oauth/authorize``): which app asks, what it may then do (each scope
in words), and Allow / Deny, in the reader's language (``?lang=``, then Accept-Language; all eight through the
catalogs).

It is a small page of its own, not a screen of /play, but it signs in the way /play does: the player's token is the
one /play keeps in this browser's localStorage (``red7.player``), read by the page's script and sent as a bearer
token with the approval (``POST /oauth/authorize``): no cookie, so no cross-site request can approve anything.  No
token in this browser: the page says to sign in at /play first.  A strict CSP with a nonce, and no framing
(``frame-ancestors 'none'``, ``X-Frame-Options: DENY``): another site cannot overlay it (RFC 9700 §4.16).
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterable
from html import escape
from urllib.parse import urlsplit

from flask import Response

from service.common.texts import message, say
from service.domain.scopes import SCOPES, ordered
from service.http.locale import language

TITLE = message("oauth.title", "%(app)s wants to use your Red7 account")
LEAD = message("oauth.lead", "If you allow it, %(app)s will be able to:")
BACK_TO = message("oauth.back_to", "You will then be sent back to %(host)s.")
ALLOW = message("oauth.allow", "Allow")
DENY = message("oauth.deny", "Deny")
SIGN_IN = message("oauth.sign_in", "Sign in on this browser first (open /play), then come back to this page.")
FAILED = message("oauth.failed", "This sign-in did not work: %(reason)s")
REFUSED = message("oauth.refused", "This sign-in request cannot be completed: %(reason)s")

#: Each scope in words, for a player deciding (its own message: the API's descriptions are for developers).
SCOPE_WORDS: dict[str, str] = {
    "play": message("oauth.scope.play", "play your games: make moves, join, leave, offer rematches, talk at the table"),
    "lobby": message("oauth.scope.lobby", "find games for you: challenges, quick match, open games and tournaments"),
    "profile:read": message("oauth.scope.profile_read", "see your profile, your games, your blocks and your notices"),
    "profile:write": message("oauth.scope.profile_write", "change your profile, blocks and mutes, and report players"),
    "analysis": message("oauth.scope.analysis", "ask for analyses of your games and import replays"),
    "notifications": message("oauth.scope.notifications", "choose where your notifications are sent"),
    "webhook": message("oauth.scope.webhook", "send all your notices to a server of its choice (a webhook)"),
    "tokens": message("oauth.scope.tokens", "list, create and revoke your tokens"),
    "moderation": message("oauth.scope.moderation", "use your moderator powers"),
    "account:delete": message("oauth.scope.account_delete", "delete your account for good"),
}
assert set(SCOPE_WORDS) == set(SCOPES), "every scope has its words for the consent page"

_STYLE = """
body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#222}
h1{font-size:1.3rem}ul{padding-left:1.2rem}button{font-size:1rem;padding:.5rem 1.2rem;margin-right:.6rem}
#allow{background:#c62828;color:#fff;border:0;border-radius:4px}.note{color:#555}
"""

_SCRIPT = """
const words = JSON.parse(document.getElementById("words").textContent);
const status = document.getElementById("status");
let token = null;
try { token = JSON.parse(localStorage.getItem("red7.player") || "null")?.token ?? null; } catch (e) { token = null; }
if (!token) { status.textContent = words.sign_in; document.getElementById("allow").disabled = true; }
async function decide(decision) {
  const headers = {"Content-Type": "application/x-www-form-urlencoded"};
  if (decision === "allow") headers.Authorization = "Bearer " + token;
  const answer = await fetch(location.pathname + location.search, {method: "POST", headers, body: "decision=" + decision});
  const body = await answer.json().catch(() => ({}));
  if (answer.ok && body.redirect_to) { location.assign(body.redirect_to); return; }
  status.textContent = words.failed.replace("%s", body.detail || body.error_description || body.error || answer.status);
}
document.getElementById("allow").addEventListener("click", () => decide("allow"));
document.getElementById("deny").addEventListener("click", () => decide("deny"));
"""


def _page(lang: str, body: str, nonce: str, status: int) -> Response:
    html = (
        f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        f'<title>Red7</title><style nonce="{nonce}">{_STYLE}</style></head><body>{body}</body></html>'
    )
    response = Response(html, status, mimetype="text/html")
    response.headers["Content-Security-Policy"] = (
        f"default-src 'none'; script-src 'nonce-{nonce}'; style-src 'nonce-{nonce}'; connect-src 'self'; "
        "form-action 'none'; frame-ancestors 'none'; base-uri 'none'"
    )
    response.headers["X-Frame-Options"] = "DENY"
    response.headers["Cache-Control"] = "no-store"
    response.headers["Referrer-Policy"] = "no-referrer"
    return response


def consent_page(app: str, scopes: Iterable[str], redirect_uri: str) -> Response:
    lang = language()
    nonce = secrets.token_urlsafe(18)
    host = urlsplit(redirect_uri).netloc or urlsplit(redirect_uri).scheme + ":"
    items = "".join(f'<li data-scope="{escape(scope)}">{escape(say(SCOPE_WORDS[scope], lang))}</li>' for scope in ordered(scopes))
    words = {"sign_in": say(SIGN_IN, lang), "failed": say(FAILED, lang, reason="%s")}
    data = json.dumps(words).replace("<", "\\u003c")
    body = (
        f'<h1 id="title">{escape(say(TITLE, lang, app=app))}</h1>'
        f'<p>{escape(say(LEAD, lang, app=app))}</p><ul id="scopes">{items}</ul>'
        f'<p class="note">{escape(say(BACK_TO, lang, host=host))}</p>'
        f'<p><button id="allow" type="button">{escape(say(ALLOW, lang))}</button>'
        f'<button id="deny" type="button">{escape(say(DENY, lang))}</button></p>'
        f'<p id="status" role="status"></p>'
        f'<script type="application/json" id="words">{data}</script>'
        f'<script nonce="{nonce}">{_SCRIPT}</script>'
    )
    return _page(lang, body, nonce, 200)


def refusal_page(reason: str) -> Response:
    lang = language()
    body = f'<h1>Red7</h1><p id="status">{escape(say(REFUSED, lang, reason=reason))}</p>'
    return _page(lang, body, secrets.token_urlsafe(18), 400)
