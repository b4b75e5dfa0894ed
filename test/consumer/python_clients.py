"""Sends requests the way Python's `requests` and `httpx` send them by
default, for test/consumer/ordinary_clients.ts.

Reads from stdin {"base": url, "token": token, "plans": {"requests": [...],
"httpx": [...]}}, each call {"method", "path", "json"} (no "json": no body),
and writes to stdout, per client, each answer as {"status", "content_type",
"body" (base64)}. Calls go in order, on one session per client.
"""

import base64
import json
import sys

import httpx
import requests


def answer(status: int, content_type: str | None, body: bytes) -> dict:
    return {"status": status, "content_type": content_type,
            "body": base64.b64encode(body).decode()}


def main() -> None:
    order = json.load(sys.stdin)
    auth = {"Authorization": f"Bearer {order['token']}"}
    out: dict[str, list[dict]] = {"requests": [], "httpx": []}
    with requests.Session() as session:
        for call in order["plans"]["requests"]:
            # requests.post(url, json={}), requests.delete(url, json={}), ...
            options = {"json": call["json"]} if "json" in call else {}
            response = session.request(call["method"], order["base"] + call["path"],
                                       headers=auth, timeout=30, **options)
            out["requests"].append(answer(response.status_code,
                                          response.headers.get("content-type"),
                                          response.content))
    with httpx.Client(timeout=30) as client:
        for call in order["plans"]["httpx"]:
            # httpx.post(url, json={}); httpx.request("GET", url, json={}).
            options = {"json": call["json"]} if "json" in call else {}
            response = client.request(call["method"], order["base"] + call["path"],
                                      headers=auth, **options)
            out["httpx"].append(answer(response.status_code,
                                       response.headers.get("content-type"),
                                       response.content))
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
