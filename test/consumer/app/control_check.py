"""A consumer in another language: drives the packed package's `mock`
command over HTTP with Python 3's standard library only (urllib, zipfile):
the request journal, a fault, reset, and a ZIP read back.

Usage: python3 control_check.py http://127.0.0.1:4010
"""
import io
import json
import sys
import urllib.error
import urllib.request
import zipfile

BASE = sys.argv[1]
OWNER = {"Authorization": "Bearer consumer-owner"}
CALL = "5d1f8a8e-2b7c-4f3e-8f00-6a7d5c4b3a21"
FLOW = "9c5d2e3f-6a1b-4d7c-8d44-0e1b9a8f7e65"


def call(method, path, body=None, headers=None):
    data = None if body is None else json.dumps(body).encode()
    all_headers = dict(headers or {})
    if data is not None:
        all_headers["Content-Type"] = "application/json"
    request = urllib.request.Request(
        BASE + path, data=data, method=method, headers=all_headers
    )
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


# Reset: a clean slate (fixtures, journal, faults).
status, _ = call("POST", "/__mock/reset")
assert status == 204, status

# A fault: the next trigger test answers 503, then the API answers again.
status, body = call(
    "POST",
    "/__mock/faults",
    {"operation": "testTrigger", "status": 503,
     "error_code": "SERVICE_UNAVAILABLE", "times": 1},
)
assert status == 201, (status, body)
status, body = call("POST", f"/v1/workflow/{FLOW}/trigger/test", headers=OWNER)
assert status == 503, status
assert json.loads(body)["error_code"] == "SERVICE_UNAVAILABLE", body
status, _ = call("POST", f"/v1/workflow/{FLOW}/trigger/test", headers=OWNER)
assert status == 200, status

# A ZIP read back with zipfile.
status, body = call(
    "POST", "/v1/call/message/bulk", {"call_ids": [CALL]}, headers=OWNER
)
assert status == 200, status
with zipfile.ZipFile(io.BytesIO(body)) as archive:
    assert archive.testzip() is None
    assert archive.namelist() == [f"{CALL}.json"], archive.namelist()
    messages = json.loads(archive.read(f"{CALL}.json"))
    assert messages[0] == {"role": "agent", "text": "Hello"}, messages

# The journal: what this script sent, oldest first, the token masked.
status, body = call("GET", "/__mock/requests")
requests = json.loads(body)["requests"]
assert [r["status"] for r in requests] == [503, 200, 200], requests
assert [r["operation"] for r in requests] == [
    "testTrigger", "testTrigger", "bulkDownloadTranscripts"
], requests
assert requests[0]["headers"]["authorization"] == "Bearer ***", requests[0]
assert json.loads(requests[2]["body"]) == {"call_ids": [CALL]}

# Reset clears the journal.
status, _ = call("POST", "/__mock/reset")
assert status == 204, status
status, body = call("GET", "/__mock/requests")
assert json.loads(body)["requests"] == [], body
print("python consumer ok")
