/**
 * The checks every deployment target passes, over any way of sending a
 * request (a socket, Miniflare's `dispatchFetch`, edge-runtime's): each
 * operation on the demo data, the bulk ZIP read back by independent readers,
 * a delete twice (204, then 404), a trigger test, and the probes.
 *
 * @module
 */
import assert from "node:assert/strict";
import { demoFixtures } from "../../src/store/demo_fixtures.ts";
import { readZip } from "../support/zip_reader.ts";

/** Sends a request to the deployment; `path` starts with `/`. */
export type Send = (path: string, init?: RequestInit) => Promise<Response>;

/** Demo ids used by the checks. */
export const DEMO = {
  calls: [
    "1f0e8d7c-6b5a-4493-8281-706f5e4d3c2b",
    "2a3b4c5d-6e7f-4801-9a2b-3c4d5e6f7a8b",
  ],
  httpIntegration: "6b7c8d9e-0f1a-4b2c-9d3e-4f5a6b7c8d9e",
  mcpIntegration: "5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d",
  webhookFlow: "a0b1c2d3-e4f5-4a6b-9c7d-8e9f0a1b2c3d",
  scheduleFlow: "c2d3e4f5-a6b7-4c8d-9e9f-0a1b2c3d4e5f",
};

function bearer(token: string): HeadersInit {
  return { authorization: `Bearer ${token}` };
}

/** The demo transcript of a call, as JSON text. */
function transcriptText(callId: string): string {
  const call = demoFixtures.calls.find((call) => call.call_id === callId);
  assert.ok(call, `demo call ${callId}`);
  return JSON.stringify(call.messages);
}

/** `/healthz` and `/readyz` answer 200 without a token. */
export async function checkProbes(send: Send): Promise<void> {
  for (const path of ["/healthz", "/readyz"]) {
    const response = await send(path);
    assert.equal(response.status, 200, path);
    assert.deepEqual(await response.json(), { status: "ok" });
  }
}

/** The bulk export is a ZIP that Python's zipfile and unzip read back. */
export async function checkBulkExport(send: Send): Promise<void> {
  const response = await send("/v1/call/message/bulk", {
    method: "POST",
    headers: {
      ...bearer("demo-viewer"),
      "content-type": "application/json",
    },
    body: JSON.stringify({ call_ids: [...DEMO.calls, DEMO.calls[0]] }),
  });
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("content-type"), "application/zip");
  assert.match(response.headers.get("x-request-id") ?? "", /\S/);
  const entries = readZip(new Uint8Array(await response.arrayBuffer()));
  assert.deepEqual(
    entries.map((entry) => [entry.name, entry.compression]),
    DEMO.calls.map((id) => [`${id}.json`, 8]),
  );
  for (const entry of entries) {
    assert.deepEqual(
      JSON.parse(entry.text),
      JSON.parse(transcriptText(entry.name.replace(".json", ""))),
    );
  }
}

/** One call's messages, and 401 without a token. */
export async function checkCallMessages(send: Send): Promise<void> {
  const path = `/v1/call/${DEMO.calls[0]}/message`;
  const response = await send(path, { headers: bearer("demo-viewer") });
  assert.equal(response.status, 200);
  assert.deepEqual(
    await response.json(),
    JSON.parse(transcriptText(DEMO.calls[0]!)),
  );
  const anonymous = await send(path);
  assert.equal(anonymous.status, 401);
  assert.equal((await anonymous.json()).error_code, "UNAUTHORIZED");
}

/** Deleting an integration: 204, then 404 `INTEGRATION_NOT_FOUND`. */
export async function checkDeleteTwice(
  send: Send,
  integrationId: string = DEMO.httpIntegration,
): Promise<void> {
  const path = `/v1/integration/${integrationId}`;
  const first = await send(path, {
    method: "DELETE",
    headers: bearer("demo-admin"),
  });
  assert.equal(first.status, 204);
  assert.equal(await first.text(), "");
  const second = await send(path, {
    method: "DELETE",
    headers: bearer("demo-admin"),
  });
  assert.equal(second.status, 404);
  assert.equal((await second.json()).error_code, "INTEGRATION_NOT_FOUND");
}

/** Trigger tests: a webhook's sample payload and a schedule's fire times. */
export async function checkTriggerTest(send: Send): Promise<void> {
  const webhook = await send(`/v1/workflow/${DEMO.webhookFlow}/trigger/test`, {
    method: "POST",
    headers: bearer("demo-member"),
  });
  assert.equal(webhook.status, 200);
  const flow = demoFixtures.flows.find((flow) =>
    flow.flow_id === DEMO.webhookFlow
  );
  assert.ok(flow?.trigger.type === "webhook");
  assert.deepEqual(await webhook.json(), {
    events: [flow.trigger.sample_payload],
  });
  const schedule = await send(
    `/v1/workflow/${DEMO.scheduleFlow}/trigger/test`,
    { method: "POST", headers: bearer("demo-member") },
  );
  assert.equal(schedule.status, 200);
  const { events } = await schedule.json() as {
    events: { event: string; scheduled_for: string }[];
  };
  assert.equal(events.length, 3);
  for (const event of events) {
    assert.equal(event.event, "schedule.fired");
    assert.ok(Date.parse(event.scheduled_for) > Date.now() - 60_000);
  }
}

/** Every check, in an order that leaves the delete for last. */
export async function checkEveryOperation(send: Send): Promise<void> {
  await checkProbes(send);
  await checkCallMessages(send);
  await checkBulkExport(send);
  await checkTriggerTest(send);
  await checkDeleteTwice(send);
  const openapi = await send("/openapi.json");
  assert.equal(openapi.status, 200);
  assert.equal((await openapi.json()).openapi, "3.1.0");
}

/**
 * A store nobody seeded: every demo token is unknown (401, a DELETE with
 * `demo-owner` included: before the fix it authenticated and got 404), and
 * the store is still ready.
 */
export async function checkNoDemoTokens(send: Send): Promise<void> {
  const ready = await send("/readyz");
  assert.equal(ready.status, 200);
  await ready.arrayBuffer();
  for (const { token } of demoFixtures.tokens) {
    const response = await send(`/v1/call/${DEMO.calls[0]}/message`, {
      headers: bearer(token),
    });
    assert.equal(response.status, 401, token);
    assert.equal((await response.json()).error_code, "UNAUTHORIZED");
  }
  const remove = await send(`/v1/integration/${DEMO.httpIntegration}`, {
    method: "DELETE",
    headers: bearer("demo-owner"),
  });
  assert.equal(remove.status, 401);
  await remove.arrayBuffer();
}
