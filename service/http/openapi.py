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

from service.http.examples import replay_component
from service.http.schemas import ReplayAtSchema
from service.http.schemas.events import EVENT_SCHEMAS, event_union
from service.http.schemas.responses import (
    OutcomeSchema,
    ReplayOptionsSchema,
    ReplaySeatSchema,
    ReplayStartSchema,
    ReplayStepSchema,
)
from service.http.schemas.vocabulary import enum_components, named_components, ref

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


def security_schemes(api_keys: bool) -> dict[str, dict[str, str]]:
    """The ways to authenticate; ``apiKey`` only on a server that has keys (nothing asks for it elsewhere)."""
    schemes = {
        "bearer": {
            "type": "http",
            "scheme": "bearer",
            "description": "a player's token, from POST /v1/players or POST /v1/players/me/tokens",
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
            operation["security"] = self._on_this_server(operation["security"])

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
