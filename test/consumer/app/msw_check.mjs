// A consumer's test, run in a fresh project where the packed package and msw
// (2 or 3, as EXPECTED_MSW_MAJOR says) are installed from tarballs: MSW's
// setupServer against plain fetch, covering each operation.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { after, before, beforeEach, describe, it } from "node:test";
import { setupServer } from "msw/node";
import { FixturesError } from "@callflow/api/mock";
import { createMockApi } from "@callflow/api/mock/msw";

const fixtures = JSON.parse(readFileSync("fixtures.json", "utf8"));
const BASE = "https://api.example.com";
const OWNER = { authorization: "Bearer consumer-owner" };
const CALL = "5d1f8a8e-2b7c-4f3e-8f00-6a7d5c4b3a21";
const SILENT_CALL = "6e2a9b9f-3c8d-4a4f-9a11-7b8e6d5c4b32";
const INTEGRATION = "7a3b0c1d-4e9f-4b5a-8b22-8c9f7e6d5c43";
const FLOW = "9c5d2e3f-6a1b-4d7c-8d44-0e1b9a8f7e65";

const api = createMockApi({
  baseUrl: BASE,
  fixtures,
  now: () => new Date("2026-03-10T12:00:00Z"),
});
const server = setupServer(...api.handlers);

/** Names of the entries of a ZIP, after `unzip -t` has tested it. */
function zipEntries(bytes) {
  const directory = mkdtempSync(join(tmpdir(), "consumer-zip-"));
  const path = join(directory, "transcripts.zip");
  try {
    writeFileSync(path, bytes);
    execFileSync("unzip", ["-tq", path], { stdio: "pipe" });
    return execFileSync("unzip", ["-Z1", path], { encoding: "utf8" })
      .trim().split("\n");
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

describe("the published mock under MSW setupServer", () => {
  before(() => server.listen({ onUnhandledRequest: "error" }));
  after(() => server.close());
  beforeEach(() => api.reset());

  it("runs on the expected MSW major version", () => {
    const require = createRequire(import.meta.url);
    const { version } = require("msw/package.json");
    assert.equal(version.split(".")[0], process.env.EXPECTED_MSW_MAJOR);
  });

  it("bulk download returns a ZIP of the calls with messages", async () => {
    const response = await fetch(`${BASE}/v1/call/message/bulk`, {
      method: "POST",
      headers: { ...OWNER, "content-type": "application/json" },
      body: JSON.stringify({ call_ids: [CALL, SILENT_CALL] }),
    });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "application/zip");
    const bytes = new Uint8Array(await response.arrayBuffer());
    assert.deepEqual(zipEntries(bytes), [`${CALL}.json`]);
  });

  it("call messages returns the transcript", async () => {
    const response = await fetch(`${BASE}/v1/call/${CALL}/message`, {
      headers: OWNER,
    });
    assert.deepEqual(await response.json(), fixtures.calls[0].messages);
  });

  it("delete integration deletes it until reset", async () => {
    const url = `${BASE}/v1/integration/${INTEGRATION}`;
    const init = { method: "DELETE", headers: OWNER };
    assert.equal((await fetch(url, init)).status, 204);
    assert.deepEqual(api.store.integrationTools(INTEGRATION).tools, []);
    const again = await fetch(url, init);
    assert.equal(again.status, 404);
    assert.equal((await again.json()).error_code, "INTEGRATION_NOT_FOUND");
    await api.reset();
    assert.equal((await fetch(url, init)).status, 204);
  });

  it("trigger test returns the schedule's next fire times", async () => {
    const response = await fetch(`${BASE}/v1/workflow/${FLOW}/trigger/test`, {
      method: "POST",
      headers: OWNER,
    });
    assert.equal(response.status, 200);
    const { events } = await response.json();
    assert.deepEqual(events.map((event) => event.scheduled_for), [
      "2026-03-11T02:00:00.000Z",
      "2026-03-12T02:00:00.000Z",
      "2026-03-13T02:00:00.000Z",
    ]);
  });

  it("errors are the real ones", async () => {
    const invalid = await fetch(`${BASE}/v1/call/message/bulk`, {
      method: "POST",
      headers: { ...OWNER, "content-type": "application/json" },
      body: JSON.stringify({ call_ids: ["nope"] }),
    });
    assert.equal(invalid.status, 422);
    assert.equal((await invalid.json()).detail[0].type, "uuid_parsing");
    const viewer = await fetch(`${BASE}/v1/workflow/${FLOW}/trigger/test`, {
      method: "POST",
      headers: { authorization: "Bearer consumer-viewer" },
    });
    assert.equal(viewer.status, 403);
    assert.equal((await viewer.json()).error_code, "UNAUTHORIZED_ROLE");
  });

  it("helpers add data a test needs", async () => {
    const { token } = await api.addToken({ role: "member" });
    const { call_id } = await api.addCall({ messages: [{ text: "added" }] });
    await api.addMessages(call_id, [{ text: "more" }]);
    const response = await fetch(`${BASE}/v1/call/${call_id}/message`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.deepEqual(await response.json(), [{ text: "added" }, {
      text: "more",
    }]);
    const flow = await api.addFlow({
      trigger: { type: "webhook", sample_payload: { ok: true } },
    });
    const test = await fetch(
      `${BASE}/v1/workflow/${flow.flow_id}/trigger/test`,
      {
        method: "POST",
        headers: { authorization: `Bearer ${token}` },
      },
    );
    assert.deepEqual(await test.json(), { events: [{ ok: true }] });
    const integration = await api.addIntegration({ kind: "mcp" });
    assert.equal(api.store.hasIntegration(integration.integration_id), true);
    await assert.rejects(api.addCall({ call_id: "nope" }), FixturesError);
  });

  it("journals requests and injects faults", async () => {
    api.inject({ operation: "listCallMessages", status: 503, times: 1 });
    const failed = await fetch(`${BASE}/v1/call/${CALL}/message`, {
      headers: OWNER,
    });
    assert.equal(failed.status, 503);
    assert.equal((await failed.json()).error_code, "SERVICE_UNAVAILABLE");
    api.inject({ operation: "testTrigger", drop_connection: true, times: 1 });
    await assert.rejects(
      fetch(`${BASE}/v1/workflow/${FLOW}/trigger/test`, {
        method: "POST",
        headers: OWNER,
      }),
    );
    api.inject({
      operation: "bulkDownloadTranscripts",
      cut_after_bytes: 50,
      times: 1,
    });
    await assert.rejects(async () => {
      const response = await fetch(`${BASE}/v1/call/message/bulk`, {
        method: "POST",
        headers: { ...OWNER, "content-type": "application/json" },
        body: JSON.stringify({ call_ids: [CALL] }),
      });
      await response.arrayBuffer();
    });
    assert.deepEqual(api.requests.map((entry) => entry.status), [
      503,
      null,
      200,
    ]);
  });
});
