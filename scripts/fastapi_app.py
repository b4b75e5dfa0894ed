"""The API as a FastAPI app: the reference that scripts/fastapi_differential.py
compares this project's API with.

Request validation is FastAPI's own: the body of POST /v1/call/message/bulk
and the UUID path parameters. The rest follows docs/behaviour.md on the data
given to `configure()` (the mock's `GET /__mock/state`): bearer authentication
as a dependency (so a missing or unknown token is answered before a bad path
parameter, as FastAPI orders a dependency's error before the parameters'), the
role checked in the endpoint (after validation), then the lookup and the
operation, with the same ErrorResponseSchema bodies. The routes that take no
body declare none, so FastAPI ignores whatever body comes. A valid bulk
request answers 200 with the canonical ids: no ZIP here.
"""

from __future__ import annotations

import copy
import re
from datetime import datetime, timezone
from uuid import UUID
from zoneinfo import ZoneInfo

from croniter import croniter
from fastapi import Depends, FastAPI, Request, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

app = FastAPI()

#: The data the app answers from, and what `reset()` goes back to.
_fixtures: dict = {"projects": [], "tokens": [], "calls": [],
                   "integrations": [], "flows": []}
_state: dict = copy.deepcopy(_fixtures)

#: Which roles hold which permission (docs/behaviour.md, Authentication).
PERMISSIONS = {
    "owner": {"transcripts:read", "workflows:test", "integrations:delete"},
    "admin": {"transcripts:read", "workflows:test", "integrations:delete"},
    "member": {"transcripts:read", "workflows:test"},
    "viewer": {"transcripts:read"},
    "billing": set(),
}
#: RFC 7235 token68, the form RFC 6750 gives bearer tokens.
BEARER = re.compile(r"Bearer +([A-Za-z0-9\-._~+/]+=*) *", re.IGNORECASE)


def configure(fixtures: dict) -> None:
    """Answers from these fixtures from now on, and resets to them."""
    global _fixtures
    _fixtures = copy.deepcopy(fixtures)
    reset()


def reset() -> None:
    """Back to the configured fixtures (undoes deletions)."""
    global _state
    _state = copy.deepcopy(_fixtures)


class ApiError(Exception):
    def __init__(self, status: int, error_code: str, message: str,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status, self.error_code, self.message = status, error_code, message
        self.headers = headers


@app.exception_handler(ApiError)
def api_error(_request: Request, error: ApiError) -> JSONResponse:
    body = {"status": "error", "error_code": error.error_code,
            "message": error.message}
    return JSONResponse(body, error.status, headers=error.headers)


def unauthorized(message: str, challenge: str) -> ApiError:
    return ApiError(401, "UNAUTHORIZED", message,
                    {"www-authenticate": challenge})


def grant(request: Request) -> dict:
    """The caller's token: a dependency, solved before the parameters."""
    header = request.headers.get("authorization")
    if header is None:
        raise unauthorized("Missing bearer token", 'Bearer realm="api"')
    match = BEARER.fullmatch(header)
    if match is None:
        raise unauthorized(
            "Malformed Authorization header: expected 'Bearer <token>'",
            'Bearer realm="api", error="invalid_request"')
    for token in _state["tokens"]:
        if token["token"] == match.group(1):
            return token
    raise unauthorized("Invalid bearer token",
                       'Bearer realm="api", error="invalid_token"')


def authorize(caller: dict, permission: str) -> None:
    if permission not in PERMISSIONS[caller["role"]]:
        raise ApiError(403, "UNAUTHORIZED_ROLE",
                       f"Role '{caller['role']}' is not allowed to perform this operation")


def find(kind: str, key: str, caller: dict, value: UUID) -> dict | None:
    return next((item for item in _state[kind] if item[key] == str(value)
                 and item["project_id"] == caller["project_id"]), None)


class BulkTranscriptRequest(BaseModel):
    call_ids: list[UUID] = Field(min_length=1, max_length=500)


@app.get("/healthz")
def healthz() -> dict:
    return {"status": "ok"}


@app.get("/readyz")
def readyz() -> dict:
    return {"status": "ok"}


@app.post("/v1/call/message/bulk")
def bulk_download(body: BulkTranscriptRequest,
                  caller: dict = Depends(grant)) -> list[str]:
    authorize(caller, "transcripts:read")
    return [str(call_id) for call_id in body.call_ids]


@app.get("/v1/call/{call_id}/message")
def call_messages(call_id: UUID, caller: dict = Depends(grant)) -> list:
    authorize(caller, "transcripts:read")
    call = find("calls", "call_id", caller, call_id)
    if call is None:
        raise ApiError(404, "CALL_NOT_FOUND", f"Call {call_id} not found")
    return call["messages"]


@app.delete("/v1/integration/{integration_id}", status_code=204)
def delete_integration(integration_id: UUID,
                       caller: dict = Depends(grant)) -> Response:
    if "integrations:delete" not in PERMISSIONS[caller["role"]]:
        # The spec's own row: a 403 whose error_code is INTERNAL_SERVER_ERROR.
        raise ApiError(403, "INTERNAL_SERVER_ERROR",
                       "Missing required permissions to delete integrations: "
                       "integrations:delete")
    integration = find("integrations", "integration_id", caller, integration_id)
    if integration is None:
        raise ApiError(404, "INTEGRATION_NOT_FOUND",
                       f"Integration {integration_id} not found")
    _state["integrations"].remove(integration)
    return Response(status_code=204)


@app.post("/v1/workflow/{flow_id}/trigger/test")
def trigger_test(flow_id: UUID, caller: dict = Depends(grant)) -> dict:
    authorize(caller, "workflows:test")
    flow = find("flows", "flow_id", caller, flow_id)
    if flow is None:
        raise ApiError(404, "FLOW_NOT_FOUND", f"Flow {flow_id} not found")
    trigger = flow["trigger"]
    if trigger["type"] == "EMPTY":
        # docs/behaviour.md: the flow's state forbids it, RFC 9110's 409.
        raise ApiError(409, "TRIGGER_NOT_CONFIGURED",
                       f"Flow {flow_id} has no trigger configured")
    return {"events": sample_events(trigger, caller["project_id"])}


def iso(moment: datetime) -> str:
    """As JavaScript's `Date.prototype.toISOString` writes it."""
    return moment.astimezone(timezone.utc).isoformat(
        timespec="milliseconds").replace("+00:00", "Z")


def sample_events(trigger: dict, project_id: str) -> list[dict]:
    if trigger["type"] == "webhook":
        return [trigger["sample_payload"]]
    if trigger["type"] == "call_ended":
        calls = sorted((call for call in _state["calls"]
                        if call["project_id"] == project_id),
                       key=lambda call: call["call_id"])
        calls.sort(key=lambda call: call["created_at"], reverse=True)
        return [{"event": "call.ended", "call_id": call["call_id"],
                 "created_at": call["created_at"],
                 "message_count": len(call["messages"])}
                for call in calls[:3]] or [{
                    "event": "call.ended",
                    "call_id": "00000000-0000-0000-0000-000000000000",
                    "created_at": iso(datetime.now(timezone.utc)),
                    "message_count": 0, "example": True}]
    # schedule: the next 3 fire times strictly after now, in its time zone.
    cron = trigger["cron"]
    start = datetime.now(ZoneInfo(trigger["timezone"]))
    times = croniter(cron, start, second_at_beginning=len(cron.split()) == 6)
    return [{"event": "schedule.fired",
             "scheduled_for": iso(times.get_next(datetime))} for _ in range(3)]
