"""Sign in with Red7 (issue 37 item 4): ``/oauth/authorize``, ``/oauth/token`` and ``/oauth/revoke``, spoken by
Authlib, the library of record for OAuth servers in Flask (RFC 6749's requests, errors and redirects, RFC 7636's
verifier check, RFC 7009's revocation); the state they rest on is :mod:`service.application.oauth`'s.

What RFC 9700 asks, and where it holds:

- **Public clients, PKCE S256 only**: every app authenticates at the token endpoint with ``none`` (no secret to
  keep); an authorization request without ``code_challenge``, or with a method other than ``S256`` (a missing method
  means ``plain``, RFC 7636 §4.3), is refused back to the app (:class:`_S256Only`).
- **Exact redirect URIs**: ``redirect_uri`` is required and must equal one registered, character for character; a
  foreign one is answered here, never redirected to (RFC 6749 §4.1.2.1).
- **No implicit grant, no password grant**: only ``response_type=code`` and the ``authorization_code`` and
  ``refresh_token`` grants are registered.
- **state** is handed back unchanged on every redirect, success or error.
- **Consent by the player**: ``GET /oauth/authorize`` is a page (:mod:`service.http.oauth_page`) showing the app and
  the scopes in words, in the reader's language; it approves by ``POST /oauth/authorize`` with the player's bearer
  token (the one /play keeps in this browser), which must hold ``tokens`` and every scope it grants (a token never
  makes a wider one).  The page may not be framed (clickjacking, RFC 9700 §4.16).

Not in the OpenAPI document's paths: these speak form-encoded OAuth, not the API's JSON; the document's ``oauth2``
scheme names the URLs.
"""

from __future__ import annotations

from typing import Any, ClassVar

from authlib.integrations.flask_oauth2 import AuthorizationServer
from authlib.oauth2 import OAuth2Error
from authlib.oauth2.rfc6749 import (
    AuthorizationCodeMixin,
    ClientMixin,
    InvalidGrantError,
    InvalidRequestError,
    InvalidScopeError,
    grants,
)
from authlib.oauth2.rfc7009 import RevocationEndpoint
from authlib.oauth2.rfc7636 import CodeChallenge
from flask import Blueprint, Flask, Response, request

from service.application.oauth import App, CodeGrant, OAuthService, StoredGrant
from service.common.errors import Refused
from service.domain.scopes import UnknownScope, beyond, checked, granted, ordered
from service.http.auth import caller_scopes, current_player
from service.http.common import NO_STORE, json_response, red7_runtime
from service.http.oauth_page import consent_page, refusal_page
from service.http.scoping import insufficient

oauth_pages = Blueprint("oauth", __name__, url_prefix="/oauth")


def _service() -> OAuthService:
    found = red7_runtime().oauth
    assert found is not None, "the runtime always makes the OAuth service (service/runtime.py)"
    return found


class _Client(ClientMixin):  # type: ignore[misc]  # Authlib ships no type information
    """A registered app as Authlib asks about it: public, code + refresh only, its exact redirect URIs and scopes."""

    def __init__(self, app: App) -> None:
        self.app = app
        self.client_id = app.client_id

    def get_client_id(self) -> str:
        return self.app.client_id

    def get_default_redirect_uri(self) -> None:
        return None  # redirect_uri is always required: the one asked for is the one checked

    def get_allowed_scope(self, scope: str | None) -> str | None:
        asked = (scope or "").split() or list(self.app.scopes)
        if set(asked) - set(self.app.scopes):
            return None  # invalid_scope, back to the app
        return " ".join(ordered(asked))

    def check_redirect_uri(self, redirect_uri: str) -> bool:
        return redirect_uri in self.app.redirect_uris  # exact string match (RFC 9700 §4.1.3)

    def check_client_secret(self, client_secret: str) -> bool:
        return False  # public clients have none

    def check_endpoint_auth_method(self, method: str, endpoint: str) -> bool:
        return method == "none"

    def check_response_type(self, response_type: str) -> bool:
        return response_type == "code"

    def check_grant_type(self, grant_type: str) -> bool:
        return grant_type in ("authorization_code", "refresh_token")


class _Code(AuthorizationCodeMixin):  # type: ignore[misc]
    def __init__(self, grant: CodeGrant) -> None:
        self.grant = grant
        self.code_challenge = grant.challenge
        self.code_challenge_method = grant.method

    def get_redirect_uri(self) -> str:
        return self.grant.redirect_uri

    def get_scope(self) -> str:
        return " ".join(self.grant.scopes)


class _Refresh:
    """A refresh token found to renew a grant."""

    def __init__(self, player_id: str, grant: StoredGrant) -> None:
        self.player_id, self.grant = player_id, grant

    def get_scope(self) -> str:
        return " ".join(self.grant.scopes)

    def check_client(self, client: _Client) -> bool:
        return client.client_id == self.grant.client_id  # OAuthService.refreshable found it for this app already


class _Subject:
    """Whom tokens are made for, and from what: a redeemed code, or a grant renewed."""

    def __init__(self, player_id: str, code: CodeGrant | None = None, grant: StoredGrant | None = None) -> None:
        self.player_id, self.code, self.grant = player_id, code, grant

    def get_user_id(self) -> str:
        return self.player_id


class _S256Only(CodeChallenge):  # type: ignore[misc]
    """PKCE required on every authorization request, with S256 only (RFC 9700 §2.1.1)."""

    SUPPORTED_CODE_CHALLENGE_METHOD: ClassVar[list[str]] = ["S256"]

    def validate_code_challenge(self, grant: Any, redirect_uri: str) -> None:
        data = grant.request.payload.data
        if not data.get("code_challenge"):
            raise InvalidRequestError("PKCE is required: send code_challenge with code_challenge_method=S256.")
        if data.get("code_challenge_method") != "S256":
            raise InvalidRequestError("Only code_challenge_method=S256 is supported.")
        super().validate_code_challenge(grant, redirect_uri)


class _CodeGrant(grants.AuthorizationCodeGrant):  # type: ignore[misc]
    TOKEN_ENDPOINT_AUTH_METHODS: ClassVar[list[str]] = ["none"]

    def save_authorization_code(self, code: str, req: Any) -> None:
        data = req.payload.data
        made = CodeGrant(
            req.user.id,
            req.client.client_id,
            req.payload.redirect_uri,
            tuple(req.scope.split()),
            data["code_challenge"],
            data["code_challenge_method"],
        )
        _service().keep_code(code, made)

    def query_authorization_code(self, code: str, client: _Client) -> _Code | None:
        found = _service().redeem(code, client.client_id)
        return None if found is None else _Code(found)

    def delete_authorization_code(self, authorization_code: _Code) -> None:
        pass  # redeemed (marked used) when it was read: a second redemption is seen, and revokes the grant

    def authenticate_user(self, authorization_code: _Code) -> _Subject:
        return _Subject(authorization_code.grant.player_id, code=authorization_code.grant)


class _RefreshGrant(grants.RefreshTokenGrant):  # type: ignore[misc]
    TOKEN_ENDPOINT_AUTH_METHODS: ClassVar[list[str]] = ["none"]
    INCLUDE_NEW_REFRESH_TOKEN = True  # rotation: every use hands a new one and retires the old

    def authenticate_refresh_token(self, refresh_token: str) -> _Refresh | None:
        found = _service().refreshable(refresh_token, self.request.client.client_id)
        return None if found is None else _Refresh(*found)

    def authenticate_user(self, refresh_token: _Refresh) -> _Subject:
        return _Subject(refresh_token.player_id, grant=refresh_token.grant)

    def revoke_old_credential(self, refresh_token: _Refresh) -> None:
        pass  # retired by the rotation itself (OAuthService.renew), in one compare-and-set


class _Held:
    def __init__(self, value: str) -> None:
        self.value = value

    def check_client(self, client: _Client) -> bool:
        return True  # another app's token is ignored by OAuthService.revoke, with the same answer (RFC 7009 §2.2)


class _Revocation(RevocationEndpoint):  # type: ignore[misc]
    CLIENT_AUTH_METHODS: ClassVar[list[str]] = ["none"]

    def query_token(self, token_string: str, token_type_hint: str | None) -> _Held:
        return _Held(token_string)

    def revoke_token(self, token: _Held, req: Any) -> None:
        _service().revoke(token.value, req.client.client_id)


class _Server(AuthorizationServer):  # type: ignore[misc]
    def validate_requested_scope(self, scope: str | None) -> None:
        try:
            checked((scope or "").split())
        except UnknownScope:
            raise InvalidScopeError() from None


def _tokens(grant_type: str, client: _Client, user: _Subject, scope: str | None = None, **_: Any) -> dict[str, object]:
    """The token answer (RFC 6749 §5.1): an access token that is one of the player's scoped tokens, expiring, and a
    refresh token; made by the application, not by Authlib's generator."""
    service = _service()
    try:
        if user.code is not None:
            issued = service.grant_tokens(user.code)
        else:
            assert user.grant is not None
            renewed = service.renew(user.player_id, user.grant, scope.split() if scope else None)
            if renewed is None:
                raise InvalidGrantError("This refresh token was used twice at once: the grant is revoked.")
            issued = renewed
    except Refused as refused:
        raise InvalidGrantError(refused.detail) from None
    return {
        "token_type": "Bearer",
        "access_token": issued.access_token,
        "expires_in": issued.expires_in,
        "refresh_token": issued.refresh_token,
        "scope": " ".join(issued.scopes),
    }


def _query_client(client_id: str) -> _Client | None:
    app = _service().app(client_id)
    return None if app is None else _Client(app)


server = _Server(query_client=_query_client, save_token=lambda token, req: None)


def init_app(app: Flask) -> None:
    """The OAuth endpoints on ``app`` (outside the API's blueprints: no API scope check, no problem+json)."""
    server.init_app(app)
    server.register_grant(_CodeGrant, [_S256Only(required=True)])
    server.register_grant(_RefreshGrant)
    server.register_endpoint(_Revocation)
    server.register_token_generator("default", _tokens)
    app.register_blueprint(oauth_pages)


@oauth_pages.get("/authorize")
def authorize_page() -> Response:
    """The consent page: the app, what it asks for in words, Allow and Deny.  A request the app got wrong goes back
    to it with ``error`` when its redirect URI is its own; else it is shown here (never redirected to)."""
    try:
        grant = server.get_consent_grant(end_user=None)
    except OAuth2Error as error:
        if error.redirect_uri:
            return server.handle_error_response(request, error)  # type: ignore[no-any-return]
        return refusal_page(error.description or error.error)
    client: _Client = grant.client
    return consent_page(client.app.name, grant.request.scope.split(), grant.redirect_uri)


@oauth_pages.post("/authorize")
def authorize() -> Response:
    """The player's decision, from the consent page: ``decision=allow`` with the player's bearer token, or ``deny``.
    Answered with JSON ``{"redirect_to": ...}``, where the page sends the browser (the app's redirect URI with the code
    and state, or with ``error=access_denied``)."""
    allow = request.form.get("decision") == "allow"
    player = current_player() if allow else None
    try:
        grant = server.get_consent_grant(end_user=player)
    except OAuth2Error as error:
        if error.redirect_uri:
            return _redirect_json(server.handle_error_response(request, error))
        return json_response({"error": error.error, "error_description": error.description}, 400, NO_STORE)
    if player is not None:
        lacking = beyond(granted(caller_scopes()), {"tokens", *grant.request.scope.split()})
        if lacking:
            raise insufficient(lacking)  # a token never grants what it does not hold, nor mints without "tokens"
    return _redirect_json(server.create_authorization_response(grant_user=player, grant=grant))


def _redirect_json(answer: Response) -> Response:
    return json_response({"redirect_to": answer.headers["Location"]}, 200, NO_STORE)


@oauth_pages.post("/token")
def token() -> Response:
    """RFC 6749 §4.1.3 and §6: a code with its PKCE verifier, or a refresh token (rotated), for tokens."""
    return server.create_token_response()  # type: ignore[no-any-return]


@oauth_pages.post("/revoke")
def revoke() -> Response:
    """RFC 7009: a refresh or access token of the app's, and with it the whole grant; 200 whatever it was."""
    return server.create_endpoint_response(_Revocation.ENDPOINT_NAME)  # type: ignore[no-any-return]
