"""Schemathesis against the WSGI app: every operation of ``/v1/openapi.json``, fuzzed.

Each operation gets ``FUZZ_EXAMPLES`` valid (positive) and as many invalid
(negative) requests, sent with a real player's bearer token, another
player's, an outsider's or none, and with ``game_id`` pointing now at a
generated id, now at a real game (waiting, active or finished).  Every
response goes through five checks, run one at a time so that each finding
is filed under its own check:

- ``not_a_server_error``: no 5xx (and no exception escaping the app);
- ``status_code_conformance``: the status is declared for the operation (by
  its number: flask-smorest's blanket ``default`` does not count, since the
  service documents its statuses one by one);
- ``content_type_conformance``: the content type is declared for that status;
- ``response_schema_conformance`` / ``response_headers_conformance``: body and
  declared headers match the schema; schemathesis validates only bodies of a
  declared media type, so problem bodies (``application/problem+json``) are
  also validated here against the schema declared for their status;
- ``valid_requests_are_well_formed``: a request the document calls valid is
  never refused as malformed (400, 415): the document must say what the server
  refuses before reading it (an Idempotency-Key an operation documents but
  refused, an If-Match whose schema took any string: issue 34).  Refusals of
  valid requests for what no schema says (a cursor not given out, a rule of
  the game, a handle reserved) are 4xx of their own and pass.

Beside the fuzzing, every operation with a request body is sent one without it:
refused (4xx) where the document requires a body, taken where it does not.

The fuzzing of an operation runs once per module (on fakeredis: this is a
fuzzer of the HTTP layer); the four tests per operation read its findings.
The examples are derandomized so that a run is reproducible; set
``RED7_FUZZ_EXAMPLES`` for a longer run.
"""

from __future__ import annotations

import copy
import os
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import fakeredis
import hypothesis.errors
import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from openapi_schema_validator import OAS30Validator
from schemathesis import GenerationMode
from schemathesis import checks as st_checks

from service.common.config import Settings
from service.http.app import create_app
from service.http.common import SSE_FRAME
from service.runtime import build_runtime
from tests.harness.support import HUMAN, Api, ai

try:
    from tests.harness.support import settings_for
except ImportError:  # its earlier name
    from tests.harness.support import settings_for

FUZZ_EXAMPLES = int(os.environ.get("RED7_FUZZ_EXAMPLES", "25"))
HTTP_METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")


def _operations() -> list[tuple[str, str]]:
    """(path, METHOD) of every operation in the spec, read from a throwaway embedded app at collection."""
    spec = create_app(build_runtime(Settings())).test_client().get("/v1/openapi.json").get_json()
    return [(path, method.upper()) for path, item in spec["paths"].items() for method in item if method in HTTP_METHODS]


OPERATIONS = _operations()
OPERATION_IDS = [f"{method} {path}" for path, method in OPERATIONS]


def _with_bodies() -> list[tuple[str, str, bool]]:
    """(path, METHOD, required) of every operation that takes a request body."""
    spec = create_app(build_runtime(Settings())).test_client().get("/v1/openapi.json").get_json()
    return [
        (path, method.upper(), bool(operation["requestBody"].get("required")))
        for path, item in spec["paths"].items()
        for method, operation in item.items()
        if method in HTTP_METHODS and "requestBody" in operation
    ]


WITH_BODIES = _with_bodies()


def valid_requests_are_well_formed(ctx: Any, response: Any, case: Any) -> None:
    """A request generated valid (schemathesis's positive mode) is not refused as malformed: 400 and 415 are refusals
    of what the document could have said (a header's shape, a body's media type), so a valid request getting one is a
    document that says less than the server checks."""
    if case.meta.generation.mode is GenerationMode.POSITIVE and response.status_code in (400, 415):
        if _contradicts_itself(case):
            return  # If-Match and expected_version that disagree: a rule across header and body no schema can say
        code = (response.json() or {}).get("code") if "json" in response.headers.get("content-type", [""])[0] else None
        raise AssertionError(f"a request the document calls valid was refused as malformed: {response.status_code} {code}")


def _contradicts_itself(case: Any) -> bool:
    """An action whose If-Match names versions and whose body's ``expected_version`` is none of them (the operation's
    description says this is 400 ``invalid_precondition``: the two must agree)."""
    header = (case.headers or {}).get("If-Match")
    expected = case.body.get("expected_version") if isinstance(case.body, dict) else None
    if header is None or expected is None or header.strip() == "*":
        return False
    versions = {int(number) for weak, number in re.findall(r'(W/)?"([0-9]+)"', header) if not weak}
    return expected not in versions


CHECKS: dict[str, Callable[..., Any]] = {
    "not_a_server_error": st_checks.not_a_server_error,
    "status_code_conformance": st_checks.status_code_conformance,
    "content_type_conformance": st_checks.content_type_conformance,
    "response_schema_conformance": st_checks.response_schema_conformance,
    "response_headers_conformance": st_checks.response_headers_conformance,
    "valid_requests_are_well_formed": valid_requests_are_well_formed,
}


@dataclass
class Finding:
    check: str
    status: int | None
    title: str
    message: str
    request: str

    def key(self) -> tuple[str, int | None, str]:
        return self.check, self.status, self.title


@dataclass
class Fuzz:
    app: Any
    runtime: Any
    schema: Any
    spec: dict[str, Any]
    tokens: dict[str, str | None]
    games: dict[str, str]
    findings: dict[tuple[str, str], list[Finding]] = field(default_factory=dict)
    requests: dict[tuple[str, str], int] = field(default_factory=dict)


@pytest.fixture(scope="module")
def fuzz() -> Fuzz:
    """A fresh app on its own fakeredis, seeded with players and games in every status."""
    server = fakeredis.FakeServer()
    clients = (fakeredis.FakeRedis(server=server, decode_responses=True), fakeredis.FakeRedis(server=server))
    prefix = f"red7-test:{uuid.uuid4().hex[:12]}:"
    # Short streams and long polls: a fuzzed request must not hang on a live game.
    settings_ = settings_for(prefix, stream_max_seconds=0.1, stream_heartbeat=0.05, long_poll_max=0.1)
    runtime = build_runtime(settings_, clients=clients)
    app = create_app(runtime)
    api = Api(app, runtime)
    ana, bo, cy = api.player("Ana"), api.player("Bo"), api.player("Cy")
    waiting = api.game(ana["token"], [HUMAN, HUMAN])
    active = api.game(ana["token"], [HUMAN, HUMAN], seed=7)
    joined = api.call("POST", f"/v1/games/{active['id']}/join", bo["token"], json={"code": active["join_code"]})
    assert joined.status_code == 200
    finished = api.game(ana["token"], [HUMAN, ai("random")], variant="basic", seed=3)
    api.run_jobs()
    assert api.act(finished["id"], ana["token"], [{"type": "fold"}]).status_code == 200
    api.run_jobs()
    games = {"waiting": waiting["id"], "active": active["id"], "finished": finished["id"]}
    statuses = {name: api.view(game_id)["status"] for name, game_id in games.items()}
    assert statuses == {"waiting": "waiting", "active": "active", "finished": "finished"}, statuses
    spec = app.test_client().get("/v1/openapi.json").get_json()
    schema = schemathesis.openapi.from_dict(_events_for_schemathesis(spec))
    schema.app = app
    return Fuzz(
        app=app,
        runtime=runtime,
        schema=schema,
        spec=spec,
        tokens={"creator": ana["token"], "seated": bo["token"], "outsider": cy["token"], "anonymous": None},
        games=games,
    )


def _events_for_schemathesis(spec: dict[str, Any]) -> dict[str, Any]:
    """The document as schemathesis reads an event stream: before OpenAPI 3.2 it takes a text/event-stream
    ``schema`` for one *event*, while the document (rightly, for client generators) says the body is text.  So the
    fuzzer is handed the schema of one event as an SSE parser reads it (``SSE_FRAME``), and checks each one."""
    copied = copy.deepcopy(spec)
    stream = copied["paths"]["/v1/games/{game_id}/stream"]["get"]["responses"]["200"]["content"]["text/event-stream"]
    assert stream["schema"]["type"] == "string"  # the document's own
    stream["schema"] = SSE_FRAME
    return copied


# --- problem bodies: validated against the schema declared for their status ------------------------------


def _declared_json_schema(fz: Fuzz, path: str, method: str, status: int) -> dict[str, Any] | None:
    responses = fz.spec["paths"][path][method.lower()]["responses"]
    declared = responses.get(str(status)) or responses.get(f"{str(status)[0]}XX") or responses.get("default")
    while declared and "$ref" in declared:
        declared = fz.spec["components"]["responses"][declared["$ref"].rsplit("/", 1)[-1]]
    if not declared:
        return None
    content = declared.get("content") or {}
    media = content.get("application/problem+json") or content.get("application/json")
    return media.get("schema") if media else None


def _problem_findings(fz: Fuzz, path: str, method: str, response: Any, request: str) -> list[Finding]:
    if response.headers.get("content-type", [""])[0].split(";")[0].strip() != "application/problem+json":
        return []
    out = []
    try:
        body = response.json()
    except ValueError:
        return [Finding("response_schema_conformance", response.status_code, "problem body is not JSON", "", request)]
    if not isinstance(body, dict) or body.get("status") != response.status_code:
        out.append(
            Finding(
                "response_schema_conformance",
                response.status_code,
                "problem status differs from HTTP status",
                str(body)[:300],
                request,
            )
        )
    schema = _declared_json_schema(fz, path, method, response.status_code)
    if schema is not None:
        root = {**schema, "components": fz.spec.get("components", {})}
        errors = sorted(OAS30Validator(root).iter_errors(body), key=str)
        if errors:
            out.append(
                Finding(
                    "response_schema_conformance",
                    response.status_code,
                    "problem body breaks its declared schema",
                    f"{errors[0].message} (schema {schema})",
                    request,
                )
            )
    return out


# --- the fuzzing --------------------------------------------------------------------------------------------


def _run(fz: Fuzz, path: str, method: str) -> list[Finding]:
    """Fuzz one operation (once per module) and return its distinct findings."""
    if (path, method) in fz.findings:
        return fz.findings[(path, method)]
    operation = fz.schema[path][method]
    found: dict[tuple[str, int | None, str], Finding] = {}
    sent = 0

    def record(finding: Finding) -> None:
        found.setdefault(finding.key(), finding)

    def one(case: Any, who: str, target: str, revalidate: bool) -> None:
        nonlocal sent
        headers = dict(case.headers or {})
        token = fz.tokens[who]
        if token and (path, method) == ("/v1/players/me", "DELETE"):
            # A player of its own to delete: the seeded ones deleted, every operation fuzzed after would only meet 401.
            token = fz.app.test_client().post("/v1/players", json={"name": "Gone"}).get_json()["token"]
        if token:
            headers["Authorization"] = f"Bearer {token}"
        if case.path_parameters and "game_id" in case.path_parameters and target != "generated":
            case.path_parameters["game_id"] = fz.games[target]
            if revalidate and method == "GET" and path == "/v1/games/{game_id}":
                # What a client does with the ETag it was given.
                headers["If-None-Match"] = f'"{fz.runtime.store.version(fz.games[target])}"'
        case.headers = headers
        sent += 1
        try:
            response = case.call()
        except Exception as exc:  # an exception escaping the app (e.g. inside a streamed body)
            record(
                Finding(
                    "not_a_server_error",
                    None,
                    f"exception escaped the app: {type(exc).__name__}",
                    str(exc)[:500],
                    _describe(case),
                )
            )
            return
        request = _describe(case)
        documented = fz.spec["paths"][path][method.lower()]["responses"]
        for name, check in CHECKS.items():
            if name == "not_a_server_error" and response.status_code == 501 and "501" in documented:
                continue  # a 501 the document declares is an answer the spec asks for (getOEmbed's format=xml)
            try:
                case.validate_response(response, checks=[check])
            except BaseException as group:  # schemathesis raises a FailureGroup (a BaseExceptionGroup)
                if not isinstance(group, BaseExceptionGroup) and not isinstance(group, AssertionError):
                    raise
                for failure in getattr(group, "exceptions", [group]):
                    title = getattr(failure, "title", type(failure).__name__)
                    record(Finding(name, response.status_code, title, str(getattr(failure, "message", failure))[:500], request))
        declared = fz.spec["paths"][path][method.lower()]["responses"]
        status = response.status_code
        if str(status) not in declared and f"{str(status)[0]}XX" not in declared:
            # flask-smorest adds a 'default' (its own Error schema) to every operation, so schemathesis
            # counts any status as declared; the service documents its statuses one by one.
            record(
                Finding(
                    "status_code_conformance",
                    status,
                    "status not declared (only the generic 'default' covers it)",
                    f"declared: {sorted(declared)}",
                    request,
                )
            )
        for finding in _problem_findings(fz, path, method, response, request):
            record(finding)

    for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):

        @settings(
            max_examples=FUZZ_EXAMPLES,
            deadline=None,
            derandomize=True,
            database=None,
            phases=[Phase.explicit, Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
        @given(
            case=operation.as_strategy(generation_mode=mode),
            who=st.sampled_from(["creator", "seated", "outsider", "anonymous"]),
            target=st.sampled_from(["generated", "waiting", "active", "finished"]),
            revalidate=st.booleans(),
        )
        def fuzz_mode(case: Any, who: str, target: str, revalidate: bool) -> None:
            one(case, who, target, revalidate)

        try:
            fuzz_mode()
        except hypothesis.errors.Unsatisfiable:
            if mode is GenerationMode.POSITIVE:
                raise
            # Nothing to make invalid (no parameters, no body): negative mode has no cases.
    fz.findings[(path, method)] = list(found.values())
    fz.requests[(path, method)] = sent
    return fz.findings[(path, method)]


def _describe(case: Any) -> str:
    try:
        return case.as_curl_command()
    except Exception:
        return f"{case.method} {case.formatted_path} body={getattr(case, 'body', None)!r}"


def _report(findings: list[Finding]) -> str:
    return "\n\n".join(f"[{f.check}] {f.status}: {f.title}\n{f.message}\nrequest: {f.request}" for f in findings)


def _findings_of(fuzz: Fuzz, path: str, method: str, *checks: str) -> list[Finding]:
    return [f for f in _run(fuzz, path, method) if f.check in checks]


@pytest.mark.parametrize(("path", "method"), OPERATIONS, ids=OPERATION_IDS)
def test_fuzzed_requests_never_get_a_server_error(fuzz, path, method):
    findings = _findings_of(fuzz, path, method, "not_a_server_error")
    # An operation without parameters has only 4 callers x 4 targets x 2 revalidations = 32 distinct
    # cases, and hypothesis stops once it has tried them all.
    assert fuzz.requests[(path, method)] >= min(FUZZ_EXAMPLES, 32)
    assert not findings, _report(findings)


@pytest.mark.parametrize(("path", "method"), OPERATIONS, ids=OPERATION_IDS)
def test_fuzzed_responses_have_declared_status_codes(fuzz, path, method):
    findings = _findings_of(fuzz, path, method, "status_code_conformance")
    assert not findings, _report(findings)


@pytest.mark.parametrize(("path", "method"), OPERATIONS, ids=OPERATION_IDS)
def test_fuzzed_responses_have_declared_content_types(fuzz, path, method):
    findings = _findings_of(fuzz, path, method, "content_type_conformance")
    assert not findings, _report(findings)


@pytest.mark.parametrize(("path", "method"), OPERATIONS, ids=OPERATION_IDS)
def test_fuzzed_responses_match_their_schemas(fuzz, path, method):
    findings = _findings_of(fuzz, path, method, "response_schema_conformance", "response_headers_conformance")
    assert not findings, _report(findings)


@pytest.mark.parametrize(("path", "method"), OPERATIONS, ids=OPERATION_IDS)
def test_fuzzed_valid_requests_are_never_refused_as_malformed(fuzz, path, method):
    findings = _findings_of(fuzz, path, method, "valid_requests_are_well_formed")
    assert not findings, _report(findings)


#: Operations whose body the document declares optional although a request without one is refused (422): importReplay,
#: whose body in two formats made openapi-python-client 0.29.1 write a module that does not import when required.
BODY_OPTIONAL_IN_NAME_ONLY = {("/v1/replays", "POST")}


@pytest.mark.parametrize(("path", "method", "required"), WITH_BODIES, ids=[f"{m} {p}" for p, m, _ in WITH_BODIES])
def test_a_request_without_its_body_is_answered_as_the_document_says(fuzz, path, method, required):
    """``PATCH /v1/players/me`` with no body answered 200 while the document requires one (issue 34): every operation
    with a body is sent none, on each seeded game; a required body missing is a 4xx, an optional one is taken."""
    client = fuzz.app.test_client()
    for target in ("waiting", "active", "finished"):
        url = path.replace("{game_id}", fuzz.games[target])
        url = re.sub(r"\{[a-z_]+\}", "x_0000000000000000", url)  # any other id: one that is nobody's
        response = client.open(url, method=method, headers={"Authorization": f"Bearer {fuzz.tokens['seated']}"})
        code = response.get_json().get("code") if response.is_json else None
        assert response.status_code < 500, response.get_data(as_text=True)
        if required or (path, method) in BODY_OPTIONAL_IN_NAME_ONLY:
            assert 400 <= response.status_code < 500, (target, response.status_code, response.get_json())
        else:
            assert code not in ("invalid_request", "malformed_json", "unsupported_media_type"), (target, response.get_json())


# --- what the fuzzer may miss in few examples, pinned --------------------------------------------------------

HUGE = 2**64 - 1  # a valid JSON/OpenAPI integer (>= 0, no maximum declared), past any Redis stream id


def test_a_huge_event_cursor_is_not_a_server_error(fuzz):
    client = fuzz.app.test_client()
    game_id = fuzz.games["active"]
    response = client.get(f"/v1/games/{game_id}/events?after={HUGE}")
    assert response.status_code < 500, response.get_data(as_text=True)
    if response.status_code == 200:
        assert response.get_json()["events"] == []


def test_a_huge_stream_cursor_is_refused_before_the_stream_starts(fuzz):
    client = fuzz.app.test_client()
    game_id = fuzz.games["finished"]
    for kwargs in ({"query_string": {"after": HUGE}}, {"headers": {"Last-Event-ID": str(HUGE)}}):
        try:
            response = client.get(f"/v1/games/{game_id}/stream", **kwargs)
            body = response.get_data(as_text=True)  # a stream's body runs only while it is read
        except Exception as exc:
            pytest.fail(f"GET /stream {kwargs}: the stream broke after its 200 headers were sent: {exc!r}")
        assert response.status_code < 500, body
