"""The API's validation as FastAPI itself does it: the reference that
scripts/fastapi_differential.py compares src/validation/ with.

Only what the spec validates: the body of POST /v1/call/message/bulk and the
UUID path parameters. Valid requests answer 200 with the canonical ids (no
store, no auth: the differential check sends a valid token to the real API).
"""

from uuid import UUID

from fastapi import FastAPI
from pydantic import BaseModel, Field

app = FastAPI()


class BulkTranscriptRequest(BaseModel):
    call_ids: list[UUID] = Field(min_length=1, max_length=500)


@app.post("/v1/call/message/bulk")
def bulk_download(body: BulkTranscriptRequest) -> list[str]:
    return [str(call_id) for call_id in body.call_ids]


@app.get("/v1/call/{call_id}/message")
def call_messages(call_id: UUID) -> str:
    return str(call_id)


@app.delete("/v1/integration/{integration_id}")
def delete_integration(integration_id: UUID) -> str:
    return str(integration_id)


@app.post("/v1/workflow/{flow_id}/trigger/test")
def trigger_test(flow_id: UUID) -> str:
    return str(flow_id)
