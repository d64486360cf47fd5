"""A problem's shape (RFC 9457, with the members our codes add) and the catalogue of codes (``listProblems``)."""

from __future__ import annotations

from marshmallow import Schema, fields


class FieldErrorSchema(Schema):
    field = fields.String(required=True, metadata={"description": "dotted path, e.g. seats.1.level; empty for the whole body"})
    message = fields.String(required=True)
    location = fields.String(required=True, metadata={"description": "json, query, headers"})


class ProblemSchema(Schema):
    """RFC 9457 problem details; a problem may carry more members (``current_version``, a rule's cards ...)."""

    class Meta:
        unknown = "include"

    type = fields.String(required=True)
    title = fields.String(required=True)
    status = fields.Integer(required=True)
    detail = fields.String(required=True)
    code = fields.String(required=True, metadata={"description": "stable; switch on this (GET /v1/problems lists them)"})
    instance = fields.String()
    request_id = fields.String(metadata={"description": "the request's id (its X-Request-Id header): quote it to us"})
    errors = fields.List(fields.Nested(FieldErrorSchema), metadata={"description": "invalid_request: what is wrong where"})
    current_version = fields.Integer(metadata={"description": "version_conflict: the game's version now"})
    step = fields.Integer(metadata={"description": "a rule refusal: the index of the step refused"})
    max_bytes = fields.Integer(
        metadata={"description": "payload_too_large, headers_too_large, uri_too_long: the limit broken, in bytes"}
    )
    max_fields = fields.Integer(metadata={"description": "headers_too_large: how many header fields a request may carry"})


class ProblemCodeSchema(Schema):
    code = fields.String(required=True)
    status = fields.Integer(required=True)
    title = fields.String(required=True)


class ProblemListSchema(Schema):
    problems = fields.List(fields.Nested(ProblemCodeSchema), required=True)
