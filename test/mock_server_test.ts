/**
 * The standalone mock server: its control API and CORS on the handler, and
 * the `mock` command started under the runtime running the test, called over
 * HTTP on 127.0.0.1.
 *
 * @module
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { HarEntry } from "../mock/har.ts";
import { createMockServer, type JournalEntry } from "../mock/mod.ts";
import { runtimeName } from "../server/runtimes/mod.ts";
import {
  apiFixtures,
  CALLS,
  FLOWS,
  INTEGRATIONS,
  PROJECT,
  TOKENS,
} from "./support/api_fixtures.ts";
import { runBin, type RunningCli, startMockCli } from "./support/mock_cli.ts";
import { readZip } from "./support/zip_reader.ts";

const ORIGIN = "http://localhost:5173";
const URL_BASE = "http://127.0.0.1:4010";

describe("mock server handler", () => {
  const mock = createMockServer({ fixtures: apiFixtures });
  const send = (path: string, init: RequestInit = {}) =>
    mock.fetch(new Request(`${URL_BASE}${path}`, init));
  const owner = { authorization: `Bearer ${TOKENS.owner}`, origin: ORIGIN };

  it("POST /__mock/reset brings a deleted integration back", async () => {
    const path = `/v1/integration/${INTEGRATIONS.mcp}`;
    const init = { method: "DELETE", headers: owner };
    assert.equal((await send(path, init)).status, 204);
    assert.equal((await send(path, init)).status, 404);
    const reset = await send("/__mock/reset", { method: "POST" });
    assert.equal(reset.status, 204);
    assert.equal((await send(path, init)).status, 204);
  });

  it("PUT /__mock/fixtures replaces the whole state and the reset target", async () => {
    const put = await send("/__mock/fixtures", {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        projects: [{ project_id: PROJECT, name: "Acme" }],
        tokens: [{ token: "new-token", project_id: PROJECT, role: "owner" }],
      }),
    });
    assert.equal(put.status, 204);
    const messages = `/v1/call/${CALLS.first}/message`;
    assert.equal((await send(messages, { headers: owner })).status, 401);
    await send("/__mock/reset", { method: "POST" });
    const fresh = await send(messages, {
      headers: { authorization: "Bearer new-token" },
    });
    assert.equal(fresh.status, 404);
    assert.equal((await fresh.json()).error_code, "CALL_NOT_FOUND");

    await send("/__mock/fixtures", {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(apiFixtures),
    });
    assert.equal((await send(messages, { headers: owner })).status, 200);
  });

  it("PUT /__mock/fixtures refuses a bad document and changes nothing", async () => {
    const bad = await send("/__mock/fixtures", {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ projects: [{ project_id: "nope", name: "X" }] }),
    });
    assert.equal(bad.status, 400);
    const body = await bad.json();
    assert.equal(body.status, "error");
    assert.equal(body.error_code, "INVALID_FIXTURES");
    assert.match(body.message, /projects\[0\]\.project_id/);

    const notJson = await send("/__mock/fixtures", {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: "{",
    });
    assert.equal(notJson.status, 400);
    assert.match((await notJson.json()).message, /not valid JSON/);

    const messages = `/v1/call/${CALLS.first}/message`;
    assert.equal((await send(messages, { headers: owner })).status, 200);
  });

  it("PUT /__mock/fixtures names a created_at whose offset is out of range", async () => {
    const fixtures = structuredClone(apiFixtures) as {
      calls: { created_at: string }[];
    };
    fixtures.calls[1]!.created_at = "2026-03-09T10:00:00+25:00";
    const bad = await send("/__mock/fixtures", {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(fixtures),
    });
    assert.equal(bad.status, 400);
    const body = await bad.json();
    assert.equal(body.error_code, "INVALID_FIXTURES");
    assert.match(body.message, /calls\[1\]\.created_at: /);
  });

  it("the control API answers 404 and 405 like the API", async () => {
    const unknown = await send("/__mock/nothing", { method: "POST" });
    assert.equal(unknown.status, 404);
    assert.equal((await unknown.json()).error_code, "NOT_FOUND");
    const wrong = await send("/__mock/reset");
    assert.equal(wrong.status, 405);
    assert.equal(wrong.headers.get("allow"), "POST");
  });

  it("the control API answers HEAD on its GET routes, without a body", async () => {
    const get = await send("/__mock/openapi.json");
    const length = (await get.arrayBuffer()).byteLength;
    const head = await send("/__mock/openapi.json", { method: "HEAD" });
    assert.equal(head.status, 200);
    assert.equal(
      head.headers.get("content-type"),
      get.headers.get("content-type"),
    );
    assert.equal(await head.text(), "");
    const requests = await send("/__mock/requests", { method: "HEAD" });
    assert.equal(requests.status, 200);
    assert.equal(await requests.text(), "");
    assert.ok(length > 0);
  });

  it("answers a CORS preflight with what was asked for", async () => {
    const response = await send("/v1/call/message/bulk", {
      method: "OPTIONS",
      headers: {
        origin: ORIGIN,
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, content-type",
      },
    });
    assert.equal(response.status, 204);
    assert.equal(response.headers.get("access-control-allow-origin"), ORIGIN);
    assert.match(
      response.headers.get("access-control-allow-methods") ?? "",
      /\bPOST\b/,
    );
    assert.equal(
      response.headers.get("access-control-allow-headers"),
      "authorization, content-type",
    );
    assert.equal(response.headers.get("x-content-type-options"), "nosniff");
  });

  it("allows each route's own methods in a preflight, and preflights no other path", async () => {
    const preflight = (path: string, method: string) =>
      send(path, {
        method: "OPTIONS",
        headers: { origin: ORIGIN, "access-control-request-method": method },
      });
    for (
      const [path, methods] of [
        ["/v1/call/message/bulk", "POST"],
        [`/v1/call/${CALLS.first}/message`, "GET, HEAD"],
        [`/v1/integration/${INTEGRATIONS.mcp}`, "DELETE"],
        [`/v1/workflow/${CALLS.first}/trigger/test`, "POST"],
        ["/openapi.json", "GET, HEAD"],
        ["/healthz", "GET, HEAD"],
        ["/__mock/reset", "POST"],
        ["/__mock/requests", "GET, HEAD, DELETE"],
        ["/__mock/faults/f1", "DELETE"],
      ]
    ) {
      const response = await preflight(path!, "GET");
      assert.equal(response.status, 204, path);
      assert.equal(
        response.headers.get("access-control-allow-methods"),
        methods,
        path,
      );
    }
    for (const path of ["/v1/nothing", "/", "/v1/call/message/bulk/x"]) {
      const response = await preflight(path, "POST");
      assert.equal(response.status, 404, path);
      assert.equal(response.headers.get("access-control-allow-methods"), null);
      assert.equal((await response.json()).error_code, "NOT_FOUND");
    }
  });

  it("allows any origin on every response, errors included", async () => {
    const ok = await send(`/v1/call/${CALLS.first}/message`, {
      headers: owner,
    });
    assert.equal(ok.headers.get("access-control-allow-origin"), ORIGIN);
    const denied = await send(`/v1/call/${CALLS.first}/message`);
    assert.equal(denied.status, 401);
    assert.equal(denied.headers.get("access-control-allow-origin"), "*");
    assert.match(
      denied.headers.get("access-control-expose-headers") ?? "",
      /Content-Disposition/,
    );
  });

  it("allows the origin on injected faults and control answers too", async () => {
    mock.inject({ operation: "listCallMessages", status: 503, times: 1 });
    const fault = await send(`/v1/call/${CALLS.first}/message`, {
      headers: owner,
    });
    assert.equal(fault.status, 503);
    assert.equal(fault.headers.get("access-control-allow-origin"), ORIGIN);
    const preferred = await send(`/v1/call/${CALLS.first}/message`, {
      headers: { ...owner, prefer: "code=404" },
    });
    assert.equal(preferred.status, 404);
    assert.equal(preferred.headers.get("access-control-allow-origin"), ORIGIN);
    const state = await send("/__mock/requests", {
      headers: { origin: ORIGIN },
    });
    assert.equal(state.status, 200);
    assert.equal(state.headers.get("access-control-allow-origin"), ORIGIN);
    assert.equal(state.headers.get("vary"), "Origin");
  });
});

/** Resolves once the command has printed something that matches. */
async function waitForOutput(
  started: RunningCli,
  pattern: RegExp,
  from = 0,
): Promise<void> {
  const output = () => started.output().slice(from);
  for (let tries = 0; !pattern.test(output()); tries += 1) {
    if (tries === 100) assert.fail(`No ${pattern} in:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe(`mock command under ${runtimeName()}`, () => {
  const directory = mkdtempSync(join(tmpdir(), "mock-cli-"));
  const fixturesPath = join(directory, "fixtures.json");
  const badPath = join(directory, "bad.json");
  let started: RunningCli;

  before(async () => {
    writeFileSync(fixturesPath, JSON.stringify(apiFixtures));
    writeFileSync(
      badPath,
      JSON.stringify({
        ...apiFixtures,
        calls: [{
          call_id: CALLS.first,
          project_id: "99999999-9999-4999-8999-999999999999",
          created_at: "2026-03-01T10:00:00Z",
          messages: [],
        }],
      }),
    );
    started = await startMockCli([
      "mock",
      "--port",
      "0",
      "--host",
      "127.0.0.1",
      "--fixtures",
      fixturesPath,
    ]);
  });

  after(async () => {
    if (started !== undefined) await started.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  it("prints its address, how many tokens (not which) and the control API", () => {
    assert.match(started.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.match(started.output(), /Tokens: \d+ loaded \(not shown\)/);
    assert.equal(started.output().includes(TOKENS.owner), false);
    assert.match(
      started.output(),
      /Control API: http:\/\/127\.0\.0\.1:\d+\/__mock\/ \(reset, fixtures, state, requests, faults/,
    );
  });

  it("serves the API, the control API and CORS over HTTP", async () => {
    const preflight = await fetch(`${started.url}/v1/call/message/bulk`, {
      method: "OPTIONS",
      headers: {
        origin: ORIGIN,
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, content-type",
      },
    });
    await preflight.body?.cancel();
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get("access-control-allow-origin"), ORIGIN);

    const bulk = await fetch(`${started.url}/v1/call/message/bulk`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${TOKENS.owner}`,
        "content-type": "application/json",
        origin: ORIGIN,
      },
      body: JSON.stringify({ call_ids: [CALLS.first, CALLS.second] }),
    });
    assert.equal(bulk.status, 200);
    assert.equal(bulk.headers.get("access-control-allow-origin"), ORIGIN);
    const entries = readZip(new Uint8Array(await bulk.arrayBuffer()));
    assert.equal(entries.length, 2);

    const path = `${started.url}/v1/integration/${INTEGRATIONS.http}`;
    const remove = {
      method: "DELETE",
      headers: { authorization: `Bearer ${TOKENS.owner}` },
    };
    assert.equal((await fetch(path, remove)).status, 204);
    const gone = await fetch(path, remove);
    assert.equal(gone.status, 404);
    await gone.body?.cancel();
    const reset = await fetch(`${started.url}/__mock/reset`, {
      method: "POST",
    });
    assert.equal(reset.status, 204);
    assert.equal((await fetch(path, remove)).status, 204);

    const put = await fetch(`${started.url}/__mock/fixtures`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        projects: [{ project_id: PROJECT, name: "Acme" }],
        tokens: [{
          token: "swapped-token",
          project_id: PROJECT,
          role: "viewer",
        }],
      }),
    });
    assert.equal(put.status, 204);
    await waitForOutput(started, /Fixtures replaced\. Tokens: 1 loaded/);
    assert.doesNotMatch(started.output(), /swapped-token/);
  });

  it("notes injected drops and cuts in one line each, no stack trace", async () => {
    const beforeReset = started.output().length;
    const reset = await fetch(`${started.url}/__mock/reset`, {
      method: "POST",
    });
    assert.equal(reset.status, 204);
    // Its line can reach the pipe after the answer (seen on a loaded
    // machine): read past it, so that what is read below is the faults'.
    await waitForOutput(started, /Reset: back to the fixtures/, beforeReset);
    const inject = async (rule: unknown) => {
      const response = await fetch(`${started.url}/__mock/faults`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(rule),
      });
      assert.equal(response.status, 201);
      await response.arrayBuffer();
    };
    await inject({
      method: "DELETE",
      path: "/v1/integration/*",
      // Until cleared: Bun's fetch retries a reset DELETE once.
      drop_connection: true,
    });
    await inject({
      operation: "bulkDownloadTranscripts",
      cut_after_bytes: 100,
      times: 1,
    });
    const before = started.output().length;
    await assert.rejects(
      fetch(`${started.url}/v1/integration/${INTEGRATIONS.http}`, {
        method: "DELETE",
        headers: {
          authorization: `Bearer ${TOKENS.owner}`,
          connection: "close",
        },
      }).then((response) => response.arrayBuffer()),
    );
    await assert.rejects(
      fetch(`${started.url}/v1/call/message/bulk`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${TOKENS.owner}`,
          "content-type": "application/json",
          connection: "close",
        },
        body: JSON.stringify({ call_ids: [CALLS.first, CALLS.second] }),
      }).then((response) => response.arrayBuffer()),
    );
    await waitForOutput(
      started,
      /Injected fault: POST \/v1\/call\/message\/bulk: Response cut after \d+ bytes/,
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    const printed = started.output().slice(before);
    assert.doesNotMatch(printed, /^\s+at /m, "no stack trace");
    await fetch(`${started.url}/__mock/reset`, { method: "POST" });
    assert.match(
      printed,
      new RegExp(
        `^Injected fault: DELETE /v1/integration/${INTEGRATIONS.http}: connection dropped$`,
        "m",
      ),
    );
    const lines = printed.split("\n").filter((line) => line.trim() !== "");
    assert.ok(
      lines.every((line) => line.startsWith("Injected fault: ")),
      printed,
    );
  });

  it(
    "journals a POST sent with no length (curl -X POST) as one without a body",
    async () => {
      await fetch(`${started.url}/__mock/reset`, { method: "POST" });
      const { host } = new URL(started.url);
      const path = `/v1/workflow/${FLOWS.webhook}/trigger/test`;
      const head = await rawRequest(
        started.url,
        `POST ${path} HTTP/1.1\r\nHost: ${host}\r\n` +
          `Authorization: Bearer ${TOKENS.owner}\r\nConnection: close\r\n\r\n`,
      );
      // 200, or 401 once a test before replaced the tokens.
      const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(head)?.[1]);
      const journal = await fetch(`${started.url}/__mock/requests`);
      const { requests } = await journal.json();
      assert.equal(requests[0].path, path);
      assert.equal(requests[0].status, status);
      assert.equal(requests[0].body, null);
      assert.equal(requests[0].headers["content-length"], undefined);
    },
  );

  it("journals a small JSON body on a route that takes none, the connection kept", async () => {
    await fetch(`${started.url}/__mock/reset`, { method: "POST" });
    const { host } = new URL(started.url);
    const path = `/v1/workflow/${FLOWS.webhook}/trigger/test`;
    // The body read ahead, the next request on the connection is framed
    // where it starts.
    const answers = await exchange(started.url, [
      `POST ${path} HTTP/1.1\r\nHost: ${host}\r\n` +
      `Authorization: Bearer ${TOKENS.owner}\r\n` +
      `Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`,
      `GET /healthz HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
    ]);
    const statuses = [...answers.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((
      [, status],
    ) => Number(status));
    assert.equal(statuses.length, 2, answers);
    assert.equal(statuses[1], 200);
    const { requests } = await (await fetch(`${started.url}/__mock/requests`))
      .json();
    assert.deepEqual(
      requests.slice(0, 2).map((entry: JournalEntry) => [
        entry.path,
        entry.status,
        entry.body,
        entry.body_truncated,
      ]),
      [[path, statuses[0], "{}", false], ["/healthz", 200, null, false]],
    );
    const har = await (await fetch(`${started.url}/__mock/journal.har`)).json();
    const posted = har.log.entries.find((entry: HarEntry) =>
      entry.request.method === "POST"
    );
    assert.deepEqual(posted.request.postData, {
      mimeType: "application/json",
      text: "{}",
    });
    assert.equal(posted.request.bodySize, 2);
  });

  it("refuses a port that is taken, saying so", async () => {
    const port = new URL(started.url).port;
    const { code, output } = await runBin([
      "mock",
      "--port",
      port,
      "--fixtures",
      fixturesPath,
    ]);
    assert.equal(code, 1);
    assert.match(
      output,
      new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use`),
    );
  });

  it("refuses a bad fixtures file, naming the file and the path", async () => {
    const { code, output } = await runBin([
      "mock",
      "--port",
      "0",
      "--fixtures",
      badPath,
    ]);
    assert.equal(code, 1);
    assert.match(output, /calls\[0\]\.project_id: unknown project/);
    assert.ok(output.includes(badPath), output);

    const missing = await runBin([
      "mock",
      "--fixtures",
      join(directory, "none.json"),
    ]);
    assert.equal(missing.code, 1);
    assert.match(missing.output, /none\.json: cannot read file/);
  });

  it("prints usage for a wrong command line", async () => {
    const { code, output } = await runBin(["start"]);
    assert.equal(code, 2);
    assert.match(output, /Unknown command "start"/);
    // The bin's usage, listing every command (it used to show mock's only).
    assert.match(output, /Usage: callflow-api <command>[^]*\n {2}mock /);
  });
});

/**
 * Sends raw requests on one connection, each once the answer before it came
 * whole (by its `Content-Length`); resolves with all the server answers
 * until it closes.
 */
function exchange(url: string, requests: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(new URL(url).port), "127.0.0.1");
    let received = "";
    let answered = 0;
    const complete = () => {
      const head = received.lastIndexOf("HTTP/1.1 ");
      const end = received.indexOf("\r\n\r\n", head);
      const length = /\r\ncontent-length: (\d+)/i.exec(
        received.slice(head, end),
      );
      return end !== -1 && length !== null &&
        received.length >= end + 4 + Number(length[1]);
    };
    socket.on("data", (data) => {
      received += data.toString("latin1");
      if (answered < requests.length - 1 && complete()) {
        answered += 1;
        socket.write(requests[answered]!);
      }
    });
    socket.on("error", reject);
    socket.on("end", () => resolve(received));
    socket.write(requests[0]!);
  });
}

/** Sends raw bytes to a server; resolves with all it answers until it closes. */
function rawRequest(url: string, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(new URL(url).port), "127.0.0.1");
    let received = "";
    socket.on("data", (data) => received += data.toString("latin1"));
    socket.on("error", reject);
    socket.on("end", () => resolve(received));
    socket.write(request);
  });
}
