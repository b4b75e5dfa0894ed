/**
 * The journal as HAR 1.2 (`GET /__mock/journal.har`, `har()`): a journal
 * holding every kind of answer (200, 204, 401, 403, 404, 413, 422, 429, an
 * export ZIP, a faulted request, a dropped connection) validates against
 * the `har-schema` package's HAR 1.2 schemas, says what the journal says,
 * and is read by httpsnippet (Kong's, which checks each request with
 * `har-validator-compiled` and turns it into code). The live page's routes
 * are guarded as the other control routes are, and left out with `ui:
 * false`.
 *
 * @module
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { HTTPSnippet } from "httpsnippet";
import { setupServer } from "msw/node";
import { MAX_BODY_BYTES } from "../src/http/mod.ts";
import type { Har, HarEntry } from "../mock/har.ts";
import { createMockApi } from "../mock/msw.ts";
import {
  controlOpenApiDocument,
  createMockServer,
  type MockServer,
} from "../mock/mod.ts";
import {
  apiFixtures,
  CALLS,
  FLOWS,
  INTEGRATIONS,
  TOKENS,
} from "./support/api_fixtures.ts";
import { harProblems } from "./support/har_check.ts";
import { readZip } from "./support/zip_reader.ts";

const BASE = "http://127.0.0.1:4010";
const owner = { authorization: `Bearer ${TOKENS.owner}` };
const json = { ...owner, "content-type": "application/json" };

/** What each request of {@linkcode everyAnswer} should be answered. */
const EXPECTED = [
  [200, "listCallMessages", null],
  [204, "deleteIntegration", null],
  [401, "listCallMessages", "UNAUTHORIZED"],
  [403, "deleteIntegration", "INTERNAL_SERVER_ERROR"], // as the spec says
  [404, "listCallMessages", "CALL_NOT_FOUND"],
  [413, "bulkDownloadTranscripts", "PAYLOAD_TOO_LARGE"],
  [422, "bulkDownloadTranscripts", null],
  [429, "listCallMessages", "TOO_MANY_FAILED_AUTHENTICATIONS"],
  [200, "bulkDownloadTranscripts", null],
  [503, "testTrigger", "SERVICE_UNAVAILABLE"],
  [0, "deleteIntegration", null],
] as const;

/** Sends one request of each kind through a handler; returns the ZIP. */
async function everyAnswer(
  fetch: (url: string, init?: RequestInit) => Promise<Response>,
  inject: (rule: Record<string, unknown>) => unknown,
): Promise<Uint8Array> {
  const send = async (path: string, init: RequestInit = {}) => {
    try {
      const response = await fetch(`${BASE}${path}`, init);
      return new Uint8Array(await response.arrayBuffer());
    } catch {
      return new Uint8Array(); // the dropped connection
    }
  };
  const messages = `/v1/call/${CALLS.first}/message`;
  await send(`${messages}?page=1`, { headers: owner });
  await send(`/v1/integration/${INTEGRATIONS.http}`, {
    method: "DELETE",
    headers: owner,
  });
  await send(messages);
  await send(`/v1/integration/${INTEGRATIONS.mcp}`, {
    method: "DELETE",
    headers: { authorization: `Bearer ${TOKENS.viewer}` },
  });
  await send(`/v1/call/${CALLS.unknown}/message`, { headers: owner });
  await send("/v1/call/message/bulk", {
    method: "POST",
    headers: json,
    body: JSON.stringify({ call_ids: ["x".repeat(MAX_BODY_BYTES)] }),
  });
  await send("/v1/call/message/bulk", {
    method: "POST",
    headers: json,
    body: JSON.stringify({ call_ids: [] }),
  });
  await send(messages, { headers: { ...owner, prefer: "code=429" } });
  const zip = await send("/v1/call/message/bulk", {
    method: "POST",
    headers: json,
    body: JSON.stringify({ call_ids: [CALLS.first, CALLS.second] }),
  });
  inject({ operation: "testTrigger", status: 503, times: 1 });
  await send(`/v1/workflow/${FLOWS.webhook}/trigger/test`, {
    method: "POST",
    headers: owner,
  });
  inject({ operation: "deleteIntegration", drop_connection: true, times: 1 });
  await send(`/v1/integration/${INTEGRATIONS.mcp}`, {
    method: "DELETE",
    headers: owner,
  });
  return zip;
}

/** The checks every HAR of {@linkcode everyAnswer}'s journal passes. */
function assertEveryAnswer(har: Har, zip: Uint8Array, origin: string) {
  assert.deepEqual(harProblems(har), []);
  const { entries } = har.log;
  assert.deepEqual(
    entries.map((entry) => [
      entry.response.status,
      entry._operationId,
      entry._errorCode,
    ]),
    EXPECTED,
  );
  const [ok, deleted, , forbidden, , tooLarge, invalid, , exported] = entries;
  assert.equal(
    ok!.request.url,
    `${origin}/v1/call/${CALLS.first}/message?page=1`,
  );
  assert.deepEqual(ok!.request.queryString, [{ name: "page", value: "1" }]);
  assert.deepEqual(JSON.parse(ok!.response.content.text!).length > 0, true);
  assert.equal(ok!._role, "owner");
  assert.match(ok!._projectId!, /^11111111-/);
  assert.equal(forbidden!._role, "viewer");
  // No token in the file: the scheme stays, the credentials go.
  const text = JSON.stringify(har);
  for (const token of Object.values(TOKENS)) {
    assert.ok(!text.includes(token), `token ${token} in the HAR`);
  }
  assert.deepEqual(
    ok!.request.headers.find((header) => header.name === "authorization"),
    { name: "authorization", value: "Bearer ***" },
  );
  assert.equal(deleted!.response.content.size, 0);
  assert.equal(deleted!.response.statusText, "No Content");
  // The journal keeps 64 KiB of a request's body: the rest is cut.
  assert.equal(tooLarge!.request.postData!.text.length, 65_536);
  assert.match(tooLarge!.request.comment!, /cut/);
  assert.equal(
    JSON.parse(invalid!.response.content.text!).detail[0].type,
    "too_short",
  );
  // The ZIP: base64, byte for byte what the client got.
  const content = exported!.response.content;
  assert.equal(content.mimeType, "application/zip");
  assert.equal(content.encoding, "base64");
  assert.equal(content.size, zip.byteLength);
  const bytes = Uint8Array.from(atob(content.text!), (c) => c.charCodeAt(0));
  assert.deepEqual(bytes, zip);
  assert.equal(readZip(bytes).length, 2);
  const [faulted, dropped] = entries.slice(-2) as [HarEntry, HarEntry];
  assert.match(faulted._fault!, /^fault-\d+$/);
  assert.equal(entries[7]!._fault, "prefer");
  assert.equal(dropped.response.status, 0);
  assert.match(dropped.response._error!, /dropped by fault fault-\d+/);
  for (const entry of entries) {
    const { send, wait, receive } = entry.timings;
    assert.equal(entry.time, send + wait + receive);
    assert.ok(wait >= 0 && receive >= 0);
    assert.ok(entry._seq > 0);
  }
}

describe("the journal as HAR 1.2", () => {
  it("holds every kind of answer from the standalone mock, and validates", async () => {
    const mock = createMockServer({ fixtures: apiFixtures });
    const zip = await everyAnswer(
      (url, init) => mock.fetch(new Request(url, init)),
      (rule) => mock.inject(rule),
    );
    const response = await mock.fetch(
      new Request(`${BASE}/__mock/journal.har`),
    );
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("cache-control"), "no-store");
    const har = await response.json() as Har;
    assertEveryAnswer(har, zip, BASE);
    assert.equal(har.log.entries[0]!.serverIPAddress, "127.0.0.1");
    assert.deepEqual(await mock.har(), har);
  });

  it("is what createMockApi's har() returns under MSW's setupServer", async () => {
    const api = createMockApi({
      baseUrl: "https://api.example.com",
      fixtures: apiFixtures,
    });
    const server = setupServer(...api.handlers);
    server.listen({ onUnhandledRequest: "error" });
    let zip: Uint8Array;
    try {
      zip = await everyAnswer(
        (url, init) =>
          fetch(url.replace(BASE, "https://api.example.com"), init),
        (rule) => api.inject(rule),
      );
    } finally {
      server.close();
    }
    const har = await api.har();
    assertEveryAnswer(har, zip, "https://api.example.com");
    // A name, not an address: no serverIPAddress.
    assert.equal(har.log.entries[0]!.serverIPAddress, undefined);
  });

  it("leaves out an answer's body past the journal's limit, with its size", async () => {
    const mock = createMockServer({
      fixtures: apiFixtures,
      journalBodyLimit: 100,
    });
    const response = await mock.fetch(
      new Request(`${BASE}/v1/call/message/bulk`, {
        method: "POST",
        headers: json,
        body: JSON.stringify({ call_ids: [CALLS.first, CALLS.second] }),
      }),
    );
    const zip = new Uint8Array(await response.arrayBuffer());
    const har = await mock.har();
    assert.deepEqual(harProblems(har), []);
    const { content, bodySize } = har.log.entries[0]!.response;
    assert.equal(content.text, undefined);
    assert.match(content.comment!, /over the journal's limit of 100 bytes/);
    // A streamed ZIP says no length: the size is unknown.
    assert.equal(content.size, -1);
    assert.equal(bodySize, -1);
    assert.ok(zip.byteLength > 100);
    // A JSON answer over the limit: left out too, its size known.
    const messages = await mock.fetch(
      new Request(`${BASE}/v1/call/${CALLS.first}/message`, {
        headers: owner,
      }),
    );
    const length = (await messages.arrayBuffer()).byteLength;
    assert.ok(length > 100);
    const answer = (await mock.har()).log.entries[1]!.response;
    assert.equal(answer.content.text, undefined);
    assert.equal(answer.content.size, length);
    assert.equal(answer.bodySize, length);
  });

  it("gives the requests after ?after= (up to ?limit=), as HAR or rows", async () => {
    const mock = createMockServer({ fixtures: apiFixtures });
    const get = async (query = "") =>
      await (await mock.fetch(
        new Request(`${BASE}/__mock/journal.har${query}`),
      )).json();
    for (let i = 0; i < 3; i += 1) {
      await mock.fetch(new Request(`${BASE}/healthz`));
    }
    const all = await get();
    assert.equal(all.log._seq, 3);
    const later = await get("?after=2");
    assert.deepEqual(
      later.log.entries.map((entry: HarEntry) => entry._seq),
      [3],
    );
    mock.clearRequests();
    const cleared = await get("?after=3");
    assert.equal(cleared.log._clears, all.log._clears + 1);
    assert.deepEqual(cleared.log.entries, []);
    await mock.fetch(new Request(`${BASE}/healthz?x=1`));
    const one = await get("?after=3&limit=1");
    assert.deepEqual(
      one.log.entries.map((entry: HarEntry) => entry._seq),
      [4],
    );
    // The live page's rows: a few fields each.
    const rows = await (await mock.fetch(
      new Request(`${BASE}/__mock/rows?after=3`),
    )).json();
    assert.deepEqual(rows, {
      seq: 4,
      clears: cleared.log._clears,
      rows: [{
        seq: 4,
        time: one.log.entries[0].startedDateTime,
        method: "GET",
        target: "/healthz?x=1",
        status: 200,
        error_code: null,
        duration_ms: one.log.entries[0].timings.wait,
        operation: "healthz",
        fault: null,
        role: null,
        project_id: null,
      }],
    });
    for (
      const query of [
        "journal.har?after=x",
        "journal.har?limit=-1",
        "rows?after=1e3",
      ]
    ) {
      const bad = await mock.fetch(new Request(`${BASE}/__mock/${query}`));
      assert.equal(bad.status, 400, query);
      assert.equal((await bad.json()).error_code, "BAD_REQUEST");
    }
  });

  it("is read by httpsnippet: each request as curl and as fetch", async () => {
    const mock = createMockServer({ fixtures: apiFixtures });
    await everyAnswer(
      (url, init) => mock.fetch(new Request(url, init)),
      (rule) => mock.inject(rule),
    );
    const har = await mock.har();
    // httpsnippet checks each request against HAR 1.2 before it converts.
    const snippet = new HTTPSnippet(
      har as unknown as ConstructorParameters<typeof HTTPSnippet>[0],
    );
    assert.equal(snippet.requests.length, EXPECTED.length);
    const curl = snippet.convert("shell", "curl") as string[];
    assert.equal(curl.length, EXPECTED.length);
    assert.match(
      curl[0]!,
      new RegExp(
        `curl --request GET \\\\\\n  --url '${BASE}/v1/call/${CALLS.first}/message\\?page=1'`,
      ),
    );
    assert.match(curl[6]!, /--data '\{"call_ids":\[\]\}'/);
    const fetches = snippet.convert("javascript", "fetch") as string[];
    assert.match(fetches[1]!, /method: 'DELETE'/);
  });
});

describe("the new control routes are guarded as the others", () => {
  const mock: MockServer = createMockServer();
  const routes = ["journal.har", "rows", "", "ui.js", "ui.css"];

  it("serves the page's files to the mock's own pages", async () => {
    for (const path of routes) {
      const response = await mock.fetch(
        new Request(`${BASE}/__mock/${path}`, {
          headers: { origin: BASE },
        }),
      );
      assert.equal(response.status, 200, path);
      await response.body?.cancel();
    }
    const page = await mock.fetch(new Request(`${BASE}/__mock/`));
    assert.match(
      page.headers.get("content-security-policy")!,
      /default-src 'none'; script-src 'self'/,
    );
    assert.match(await page.text(), /<table id="journal">/);
  });

  it("refuses a foreign Origin and a foreign Host", async () => {
    for (const path of routes) {
      for (const method of ["GET", "HEAD", "OPTIONS"]) {
        const foreign = await mock.fetch(
          new Request(`${BASE}/__mock/${path}`, {
            method,
            headers: { origin: "https://evil.example" },
          }),
        );
        assert.equal(foreign.status, 403, `${method} ${path}`);
        assert.equal(
          foreign.headers.get("access-control-allow-origin"),
          null,
        );
        await foreign.body?.cancel();
      }
      const rebound = await mock.fetch(
        new Request(`http://evil.example:4010/__mock/${path}`),
      );
      assert.equal(rebound.status, 403, path);
      assert.equal((await rebound.json()).error_code, "INVALID_HOST");
    }
  });

  it("are in the control API's OpenAPI document", () => {
    for (const path of routes) {
      assert.ok(
        controlOpenApiDocument.paths[`/__mock/${path}`]?.get !== undefined,
        path,
      );
    }
  });

  it("leaves the page out with ui: false", async () => {
    const bare = createMockServer({ ui: false });
    for (const path of ["", "ui.js", "ui.css"]) {
      const response = await bare.fetch(new Request(`${BASE}/__mock/${path}`));
      assert.equal(response.status, 404, path);
      await response.body?.cancel();
    }
    const har = await bare.fetch(new Request(`${BASE}/__mock/journal.har`));
    assert.equal(har.status, 200);
    await har.body?.cancel();
  });
});
