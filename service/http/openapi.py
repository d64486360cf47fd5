"""What the OpenAPI document says beyond each route's decorators, for the client generators that read it.

Frontend teams generate clients from ``/v1/openapi.json`` (the tests generate two: openapi-python-client and
openapi-typescript), so the document names everything they name types and functions after:

- every value set is a named enum and every nullable member ``anyOf: [{$ref}, NULL]``
  (:mod:`service.http.schemas.vocabulary`; this plugin puts that converter in apispec's place);
- every event type is a schema, and ``Event`` their union discriminated by ``type``
  (:mod:`service.http.schemas.events`), so a feed is typed event by event;
- every operation has a stable ``operationId`` (declared with ``@v1.doc(operationId=...)``; camelCase verbs,
  listed in the README) and its own ``security``: what the route itself asks for, on *this* server
  (``X-Api-Key`` is asked for only when the server has keys, so the requirement is dropped otherwise);
- a schema's defaults are said in its members' descriptions, not as ``default`` (:func:`defaults_in_words`), so
  openapi-typescript's default options keep a member the request may leave out optional.

A route without an operationId, a summary or a security declaration fails the app's start: the document is
what clients are built from, and a generated name would change whenever a path does.
"""

from __future__ import annotations

import json
from typing import Any

from apispec import APISpec, BasePlugin
from apispec.ext.marshmallow import MarshmallowPlugin

from service.domain.scopes import SCOPES
from service.http.examples import replay_component
from service.http.problems import PROBLEM_JSON, problem, scope_code
from service.http.schemas import ReplayAtSchema
from service.http.schemas.events import EVENT_SCHEMAS, event_union
from service.http.schemas.replays import (
    OutcomeSchema,
    ReplayOptionsSchema,
    ReplaySeatSchema,
    ReplayStartSchema,
    ReplayStepSchema,
)
from service.http.schemas.vocabulary import enum_components, named_components, ref
from service.http.scopes import FIELD_SCOPES, OPERATION_SCOPES

LICENSE = {"name": "MIT", "url": "https://opensource.org/licenses/MIT"}
#: Relative: the document is served by the API it describes, so a client resolves the paths against the
#: address it fetched the document from (whatever host, port or proxy that was).
SERVERS = [{"url": "/", "description": "this server: the origin this document was fetched from"}]
INFO_DESCRIPTION = (
    "Red7 as a service. Errors are RFC 9457 problem+json with a stable `code` (`GET /v1/problems` lists them). "
    "Sign up with `POST /v1/players` (it answers a bearer token, shown once); send it as `Authorization: Bearer "
    "<token>`. Reads of a game (its view, events, stream, replay) need no token: without one you see what a "
    "spectator sees, with yours you see your hand too. Texts for people (a problem's title and detail, the rules, "
    "a legal step's and a replay step's description) come in the language `?lang=` names, else the player's "
    "`language` setting, else the best of `Accept-Language`, else English (`x-languages` lists them); the answer "
    "says which in `Content-Language`. Each such text also comes as a stable `code` with its `params`."
)


#: Where an app signs a player in (issue 37 item 4, service/http/oauth.py): relative, as the servers are.  PKCE (S256)
#: is required and there is no client secret: every app is a public client (docs/oauth.md).
OAUTH_FLOWS = {
    "authorizationCode": {
        "authorizationUrl": "/oauth/authorize",
        "tokenUrl": "/oauth/token",
        "refreshUrl": "/oauth/token",
        "scopes": dict(SCOPES),
    }
}


def security_schemes(api_keys: bool) -> dict[str, dict[str, Any]]:
    """The ways to authenticate; ``apiKey`` only on a server that has keys (nothing asks for it elsewhere).

    ``oauth2`` names every scope and says which each operation needs; a token is sent the same way whatever made it
    (``bearer``), so each operation that asks for a token takes either (:meth:`Red7Document.operation_helper`)."""
    schemes: dict[str, dict[str, Any]] = {
        "bearer": {
            "type": "http",
            "scheme": "bearer",
            "description": "a player's token, from POST /v1/players or POST /v1/players/me/tokens; it may do what its "
            "scopes allow (X-OAuth-Scopes on every answer says which; a sign-up's token has them all)",
        },
        "oauth2": {
            "type": "oauth2",
            "description": "the scopes a token may hold (docs/tokens.md); each operation names the one it needs. "
            "Apps the operator registered sign players in with the authorization code flow and PKCE S256, as public "
            "clients (no secret); access tokens last an hour, refresh tokens rotate; revoke at /oauth/revoke "
            "(RFC 7009; docs/oauth.md)",
            "flows": OAUTH_FLOWS,
        },
    }
    if api_keys:
        schemes["apiKey"] = {
            "type": "apiKey",
            "in": "header",
            "name": "X-Api-Key",
            "description": "a service key: this server asks for one to create players and games",
        }
    return schemes


def defaults_in_words(schema: dict[str, Any]) -> None:
    """Move each member's ``default`` into its description (``default: "advanced"``), in place.

    A default in a schema is always a request's: apispec takes it from a field's ``load_default``, what the server
    assumes when a request leaves the member out. openapi-typescript (7.x) cannot tell a request's component from a
    response's, and by default (``defaultNonNullable``) types a member with a ``default`` as always present: a
    client would have to send ``variant``, ``action_rules``, ``timeout_action`` and a token's ``label``. Said in
    words, the default still shows in the docs, and every generator types the member as one a request may omit
    (openapi-python-client leaves it unset, and the server applies the default). Parameters keep their ``default``:
    no generator makes a parameter required for it, and none is a component.
    """
    for member in (schema.get("properties") or {}).values():
        if "default" in member:
            said = f"default: {json.dumps(member.pop('default'))}"
            member["description"] = f"{member['description']} ({said})" if member.get("description") else said


def _lone_reference(parameter: dict[str, Any]) -> None:
    """A parameter's schema that is only ``allOf: [{$ref}]`` becomes the reference itself, in place: apispec moves a
    query parameter's description out of its schema, leaving the ``allOf`` that carried it beside a reference with
    nothing to carry (linters warn of a composition of one)."""
    schema = parameter.get("schema")
    if isinstance(schema, dict) and set(schema) == {"allOf"} and len(schema["allOf"]) == 1:
        parameter["schema"] = schema["allOf"][0]


class Red7Document(BasePlugin):
    """apispec plugin: the shared components, the converter for nullable and enum members, per-server security."""

    def __init__(self, *, api_keys: bool) -> None:
        self.api_keys = api_keys

    def init_spec(self, spec: APISpec) -> None:
        super().init_spec(spec)
        marshmallow = next(p for p in spec.plugins if isinstance(p, MarshmallowPlugin))
        converter = marshmallow.converter
        assert converter is not None  # set by MarshmallowPlugin.init_spec, which runs first
        converter.attribute_functions = [f for f in converter.attribute_functions if f != converter.field2nullable]
        converter.add_attribute_function(named_components)  # type: ignore[no-untyped-call]
        for name, enum in enum_components().items():
            spec.components.schema(name, enum)
        for component, schema in EVENT_SCHEMAS.values():
            spec.components.schema(component, schema=schema)
        spec.components.schema("Event", event_union())
        spec.components.schema(
            "Perspective",
            {
                "description": 'Whose eyes a replay sees the game through: "full" (a finished game: everything), '
                '"spectator" (no hand), or {"seat": n} (that seat, as far as it has seen)',
                "oneOf": [{"type": "string", "enum": ["full", "spectator"]}, ref("SeatPerspective")],
            },
        )
        spec.components.schema(
            "SeatPerspective",
            {"type": "object", "required": ["seat"], "properties": {"seat": {"type": "integer", "minimum": 0, "maximum": 3}}},
        )
        spec.components.schema("ReplayOptions", schema=ReplayOptionsSchema)
        spec.components.schema("ReplaySeat", schema=ReplaySeatSchema)
        spec.components.schema("Outcome", schema=OutcomeSchema)
        spec.components.schema("ReplayStep", schema=ReplayStepSchema)
        spec.components.schema("ReplayStart", schema=ReplayStartSchema)
        spec.components.schema(
            "ReplayAtStep",
            {"description": "a step of the replay; at=0: the start", "oneOf": [ref("ReplayStep"), ref("ReplayStart")]},
        )
        spec.components.schema("ReplayAt", schema=ReplayAtSchema)
        spec.components.example("Replay", replay_component())

    def schema_helper(self, name: str, definition: dict[str, Any], **_: Any) -> None:
        """Every component, as apispec's marshmallow plugin made it (it runs first), with its defaults in words."""
        defaults_in_words(definition)

    def operation_helper(self, path: str | None = None, operations: dict[str, Any] | None = None, **_: Any) -> None:
        for method, operation in (operations or {}).items():
            where = f"{method.upper()} {path}"
            if not operation.get("operationId"):
                raise ValueError(f"{where} has no operationId: declare one with @v1.doc(operationId=...)")
            if not operation.get("summary"):
                raise ValueError(f"{where} has no summary: give its view a docstring")
            if "security" not in operation:
                raise ValueError(f"{where} leaves its security to the document's default: declare it")
            operation["security"] = with_scope(self._on_this_server(operation["security"]), operation)
            for parameter in operation.get("parameters") or []:
                _lone_reference(parameter)

    def _on_this_server(self, security: list[dict[str, list[str]]]) -> list[dict[str, list[str]]]:
        """A requirement as this server enforces it: without API keys, ``apiKey`` is asked of nobody."""
        if self.api_keys:
            return security
        out: list[dict[str, list[str]]] = []
        for alternative in security:
            kept = {scheme: scopes for scheme, scopes in alternative.items() if scheme != "apiKey"}
            if kept and kept not in out:
                out.append(kept)
        return out


def with_scope(security: list[dict[str, list[str]]], operation: dict[str, Any]) -> list[dict[str, list[str]]]:
    """A requirement with the operation's scope (:mod:`service.http.scopes`): each alternative that takes the bearer
    token is also met by an ``oauth2`` token with the scope, so a generated client sends either.  An operation whose
    token is optional declares no requirement (a generator would make it mandatory): its scope is said in
    ``x-scopes`` and in its description, as every operation's is."""
    scope = OPERATION_SCOPES.get(operation["operationId"])
    if scope is None:
        return security
    operation["x-scopes"] = [scope]
    _document_refusal(operation, scope)
    extra = FIELD_SCOPES.get(operation["operationId"], {})
    also = "".join(f" To change `{member}`, `{needs}` too." for member, needs in extra.items())
    said = f"Scope: `{scope}`.{also}"
    operation["description"] = f"{operation['description']}\n\n{said}" if operation.get("description") else said
    out = list(security)
    for alternative in security:
        if "bearer" in alternative:
            scoped = {
                ("oauth2" if name == "bearer" else name): ([scope] if name == "bearer" else needs)
                for name, needs in alternative.items()
            }
            out.append(scoped)
    return out


def _document_refusal(operation: dict[str, Any], scope: str) -> None:
    """The operation's 403 says a token without its scope meets it, with ``WWW-Authenticate`` (a 403 documented for
    other refusals keeps its own example; one made here takes the rate limit's headers, if the route has one)."""
    responses = operation.setdefault("responses", {})
    key = next((k for k in ("403", 403) if k in responses), "403")  # as apispec holds it at this point
    refused = responses.get(key)
    if refused is None:
        limited = responses.get("429") or responses.get(429) or {}  # its X-RateLimit-*, not its Retry-After
        kept = {name: header for name, header in limited.get("headers", {}).items() if name != "Retry-After"}
        code = scope_code(scope)
        example = problem(code, 403, f"This token lacks the scope {scope}.", scope=scope, scopes=[scope])
        refused = {
            "description": "Forbidden: problem details (RFC 9457)",
            "headers": kept,
            "content": {PROBLEM_JSON: {"schema": ref("Problem"), "example": example}},
        }
    headers = {**refused.get("headers", {}), "WWW-Authenticate": {"$ref": "#/components/headers/WWW-Authenticate"}}
    responses[key] = {**refused, "headers": headers}  # a copy: a documented response may be shared
