/**
 * The mock a test suite leans on: the request journal, each fault effect
 * (status, delay, dropped connection, cut ZIP), Prism's `Prefer: code=` and
 * the state round trip, in process through MSW and over HTTP against the
 * `mock` command; and the control API's guards (foreign origins, `Host`,
 * JSON bodies, size and depth limits). Runs under Node, Deno and Bun.
 *
 * @module
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { after, before, beforeEach, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { setupServer } from "msw/node";
import {
  createMockServer,
  type FaultRule,
  type Fixtures,
  type JournalEntry,
} from "../mock/mod.ts";
import { createMockApi } from "../mock/msw.ts";
import { runtimeName } from "../server/runtimes/mod.ts";
import { transcriptArchive } from "../src/operations/transcript_archive.ts";
import {
  apiFixtures,
  CALLS,
  FIRST_MESSAGES,
  FLOWS,
  INTEGRATIONS,
  TOKENS,
} from "./support/api_fixtures.ts";
import { type RunningCli, startMockCli } from "./support/mock_cli.ts";
import { readZip } from "./support/zip_reader.ts";

/** How a test drives a mock: in process, or over the control API. */
interface Target {
  base: string;
  inject(rule: FaultRule): Promise<void>;
  requests(): Promise<JournalEntry[]>;
  reset(): Promise<void>;
  state(): Promise<Fixtures>;
  replace(fixtures: Fixtures): Promise<void>;
}

const OWNER = { authorization: `Bearer ${TOKENS.owner}` };

function bulk(target: Target, callIds: string[]): Promise<Response> {
  return fetch(`${target.base}/v1/call/message/bulk`, {
    method: "POST",
    headers: { ...OWNER, "content-type": "application/json" },
    body: JSON.stringify({ call_ids: callIds }),
  });
}

/** The failure a client sees: a rejected fetch or a body that aborts. */
async function failure(response: Promise<Response>): Promise<string> {
  let answer: Response;
  try {
    answer = await response;
  } catch (error) {
    return `fetch rejected: ${(error as Error).name}`;
  }
  try {
    const bytes = new Uint8Array(await answer.arrayBuffer());
    assert.fail(
      `a complete ${answer.status} answer of ${bytes.length} bytes (${
        bytes.length > 0 ? readZip(bytes).length + " entries" : "empty"
      })`,
    );
  } catch (error) {
    if (error instanceof assert.AssertionError) throw error;
    return `body aborted after status ${answer.status}`;
  }
}

/** The checks both ways of driving the mock share. */
function sharedChecks(target: () => Target): void {
  beforeEach(() => target().reset());

  it("records each request in the journal, oldest first", async () => {
    const t = target();
    const messages = await fetch(
      `${t.base}/v1/call/${CALLS.first}/message?x=1&y=2`,
      { headers: { ...OWNER, "x-trace": "t-1" } },
    );
    assert.equal(messages.status, 200);
    await messages.arrayBuffer();
    const missing = await fetch(
      `${t.base}/v1/call/${CALLS.unknown}/message`,
      { headers: OWNER },
    );
    assert.equal(missing.status, 404);
    await missing.arrayBuffer();
    const zip = await bulk(t, [CALLS.first]);
    await zip.arrayBuffer();

    const [first, second, third] = await t.requests();
    assert.equal(first!.method, "GET");
    assert.equal(first!.path, `/v1/call/${CALLS.first}/message`);
    assert.equal(first!.query, "x=1&y=2");
    assert.equal(first!.headers.authorization, "Bearer ***");
    assert.equal(first!.headers["x-trace"], "t-1");
    assert.equal(first!.status, 200);
    assert.equal(first!.error_code, null);
    assert.equal(first!.operation, "listCallMessages");
    assert.equal(typeof first!.duration_ms, "number");
    assert.ok(!Number.isNaN(Date.parse(first!.time)));
    assert.equal(second!.status, 404);
    assert.equal(second!.error_code, "CALL_NOT_FOUND");
    assert.equal(third!.operation, "bulkDownloadTranscripts");
    assert.deepEqual(JSON.parse(third!.body!), { call_ids: [CALLS.first] });
    assert.equal(third!.body_truncated, false);
    const all = JSON.stringify(await t.requests());
    assert.ok(!all.includes(TOKENS.owner), "no token in the journal");
  });

  it("answers an injected status with an ErrorResponseSchema body, times times", async () => {
    const t = target();
    await t.inject({
      operation: "testTrigger",
      status: 503,
      error_code: "SERVICE_UNAVAILABLE",
      times: 1,
    });
    const url = `${t.base}/v1/workflow/${FLOWS.schedule}/trigger/test`;
    const failed = await fetch(url, { method: "POST", headers: OWNER });
    assert.equal(failed.status, 503);
    const body = await failed.json();
    assert.equal(body.status, "error");
    assert.equal(body.error_code, "SERVICE_UNAVAILABLE");
    assert.equal(typeof body.message, "string");
    const again = await fetch(url, { method: "POST", headers: OWNER });
    assert.equal(again.status, 200);
    await again.arrayBuffer();
    const journal = await t.requests();
    assert.deepEqual(journal.map((entry) => entry.status), [503, 200]);
    assert.match(journal[0]!.fault!, /^fault-\d+$/);
  });

  it("matches a method and path pattern", async () => {
    const t = target();
    await t.inject({
      method: "DELETE",
      path: "/v1/integration/*",
      status: 500,
    });
    const url = `${t.base}/v1/integration/${INTEGRATIONS.http}`;
    const response = await fetch(url, { method: "DELETE", headers: OWNER });
    assert.equal(response.status, 500);
    assert.equal((await response.json()).error_code, "INTERNAL_SERVER_ERROR");
  });

  it("answers late after delay_ms, then normally", async () => {
    const t = target();
    await t.inject({ operation: "listCallMessages", delay_ms: 300, times: 1 });
    const started = performance.now();
    const response = await fetch(`${t.base}/v1/call/${CALLS.first}/message`, {
      headers: OWNER,
    });
    const waited = performance.now() - started;
    assert.deepEqual(await response.json(), FIRST_MESSAGES);
    assert.ok(waited >= 290, `answered after ${waited} ms`);
  });

  it("drops the connection before answering", async () => {
    const t = target();
    await t.inject({
      operation: "testTrigger",
      drop_connection: true,
      times: 1,
    });
    const url = `${t.base}/v1/workflow/${FLOWS.schedule}/trigger/test`;
    // A POST: clients may retry an idempotent request on a reset connection.
    const seen = await failure(fetch(url, { method: "POST", headers: OWNER }));
    assert.match(seen, /fetch rejected|body aborted/);
    const retry = await fetch(url, { method: "POST", headers: OWNER });
    assert.equal(retry.status, 200);
    await retry.arrayBuffer();
    const journal = await t.requests();
    assert.deepEqual(journal.map((entry) => entry.status), [null, 200]);
  });

  it("cuts a ZIP short: the client sees an aborted transfer", async () => {
    const t = target();
    for (const cut_after_bytes of [0, 100, 1_000_000]) {
      await t.inject({
        operation: "bulkDownloadTranscripts",
        cut_after_bytes,
        times: 1,
      });
      const seen = await failure(bulk(t, [CALLS.first, CALLS.second]));
      assert.match(seen, /fetch rejected|body aborted/);
    }
    const whole = await bulk(t, [CALLS.first, CALLS.second]);
    assert.equal(readZip(new Uint8Array(await whole.arrayBuffer())).length, 2);
  });

  it("honours Prefer: code= for statuses the operation defines", async () => {
    const t = target();
    const url = `${t.base}/v1/call/${CALLS.first}/message`;
    const notFound = await fetch(url, {
      headers: { ...OWNER, prefer: "code=404" },
    });
    assert.equal(notFound.status, 404);
    assert.equal((await notFound.json()).error_code, "CALL_NOT_FOUND");
    const invalid = await fetch(url, {
      headers: { ...OWNER, prefer: "code=422" },
    });
    assert.equal(invalid.status, 422);
    assert.ok(Array.isArray((await invalid.json()).detail));
    const normal = await fetch(url, {
      headers: { ...OWNER, prefer: "code=200" },
    });
    assert.deepEqual(await normal.json(), FIRST_MESSAGES);
    const undefinedCode = await fetch(url, {
      headers: { ...OWNER, prefer: "code=418" },
    });
    assert.equal(undefinedCode.status, 400);
    assert.equal(
      (await undefinedCode.json()).error_code,
      "PREFER_CODE_NOT_DEFINED",
    );
  });

  it("snapshots the state, which replaces it back", async () => {
    const t = target();
    const url = `${t.base}/v1/integration/${INTEGRATIONS.http}`;
    const deleted = await fetch(url, { method: "DELETE", headers: OWNER });
    assert.equal(deleted.status, 204);
    const state = await t.state();
    assert.ok(
      !state.integrations.some((i) => i.integration_id === INTEGRATIONS.http),
    );
    assert.ok(state.tokens.some((token) => token.token === TOKENS.owner));
    await t.reset();
    assert.notDeepEqual(await t.state(), state);
    await t.replace(state);
    assert.deepEqual(await t.state(), state);
    const gone = await fetch(url, { method: "DELETE", headers: OWNER });
    assert.equal(gone.status, 404);
    await gone.arrayBuffer();
  });
}

describe("the mock in process, through MSW", () => {
  const api = createMockApi({
    baseUrl: "https://api.callflow.test",
    fixtures: apiFixtures,
  });
  const server = setupServer(...api.handlers);
  const seen: string[] = [];
  server.events.on("request:start", ({ request }) => {
    seen.push(request.url);
  });
  before(() => server.listen({ onUnhandledRequest: "error" }));
  after(() => server.close());

  sharedChecks(() => ({
    base: api.baseUrl,
    inject: (rule) => Promise.resolve(void api.inject(rule)),
    requests: () => Promise.resolve(api.requests),
    reset: () => api.reset(),
    state: () => api.snapshot(),
    replace: (fixtures) => api.replaceFixtures(fixtures),
  }));

  it("lets the ZIP writer request nothing: every request MSW saw was the API's", () => {
    assert.ok(seen.length > 0);
    const foreign = seen.filter((url) => !url.startsWith(api.baseUrl));
    assert.deepEqual(foreign, []);
  });

  it("refuses a bad rule naming the field", () => {
    assert.throws(
      () => api.inject({ operation: "testTrigger", status: 200 }),
      /"status" must be an integer from 400 to 599/,
    );
    assert.throws(
      () => api.inject({ operation: "nope", status: 503 }),
      /"operation" must be one of/,
    );
  });
});

async function* none() {}

describe("the bulk export's ZIP", () => {
  it("is written without a single fetch", async () => {
    const original = globalThis.fetch;
    const calls: unknown[] = [];
    globalThis.fetch = ((input: unknown) => {
      calls.push(input);
      return Promise.reject(new Error("no fetch expected"));
    }) as typeof fetch;
    try {
      const zip = transcriptArchive(
        { callId: CALLS.first, messages: ['{"text":"hi"}'] },
        none(),
        { lastModified: new Date(), onError: () => {} },
      );
      const bytes = new Uint8Array(await new Response(zip).arrayBuffer());
      assert.equal(readZip(bytes)[0]!.text, '[{"text":"hi"}]');
    } finally {
      globalThis.fetch = original;
    }
    assert.deepEqual(calls, []);
  });
});

describe("the control API's guards", () => {
  const mock = createMockServer({ fixtures: apiFixtures, fixturesLimit: 4096 });
  const send = (path: string, init: RequestInit = {}) =>
    mock.fetch(new Request(`http://127.0.0.1:4010${path}`, init));
  const json = { "content-type": "application/json" };

  it("refuses control requests from a foreign origin, preflights included", async () => {
    const reset = await send("/__mock/reset", {
      method: "POST",
      headers: { origin: "http://evil.example", "content-type": "text/plain" },
    });
    assert.equal(reset.status, 403);
    assert.equal((await reset.json()).error_code, "FORBIDDEN_ORIGIN");
    assert.equal(reset.headers.get("access-control-allow-origin"), null);
    for (const origin of ["http://evil.example", "null"]) {
      const preflight = await send("/__mock/fixtures", {
        method: "OPTIONS",
        headers: { origin, "access-control-request-method": "PUT" },
      });
      assert.equal(preflight.status, 403);
      assert.equal(preflight.headers.get("access-control-allow-origin"), null);
      assert.equal(preflight.headers.get("access-control-allow-methods"), null);
    }
    const local = await send("/__mock/fixtures", {
      method: "OPTIONS",
      headers: {
        origin: "http://localhost:5173",
        "access-control-request-method": "PUT",
      },
    });
    assert.equal(local.status, 204);
    assert.equal(
      local.headers.get("access-control-allow-origin"),
      "http://localhost:5173",
    );
  });

  it("takes JSON bodies only, so browsers must preflight", async () => {
    const plain = await send("/__mock/fixtures", {
      method: "PUT",
      headers: { "content-type": "text/plain" },
      body: JSON.stringify(apiFixtures),
    });
    assert.equal(plain.status, 415);
    assert.equal((await plain.json()).error_code, "UNSUPPORTED_MEDIA_TYPE");
    const form = await send("/__mock/faults", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "operation=testTrigger",
    });
    assert.equal(form.status, 415);
    assert.equal(
      (await send("/__mock/reset", { method: "POST" })).status,
      204,
      "a bodiless reset needs no content type",
    );
  });

  it("refuses a Host that is not a loopback name", async () => {
    const rebound = await mock.fetch(
      new Request("http://evil.example:4010/__mock/state", {
        headers: { host: "evil.example:4010" },
      }),
    );
    assert.equal(rebound.status, 403);
    assert.equal((await rebound.json()).error_code, "INVALID_HOST");
    for (const host of ["localhost:4010", "127.0.0.1", "[::1]:4010"]) {
      const response = await mock.fetch(
        new Request(`http://${host}/__mock/state`),
      );
      assert.equal(response.status, 200, host);
      await response.arrayBuffer();
    }
    const open = createMockServer({ allowAnyHost: true });
    const anyHost = await open.fetch(
      new Request("http://mock.internal:4010/healthz"),
    );
    assert.equal(anyHost.status, 200, "the API answers any Host");
    const control = await open.fetch(
      new Request("http://mock.internal:4010/__mock/state"),
    );
    assert.equal(control.status, 403, "the control API does not");
    const named = createMockServer({ allowedHosts: ["mock.internal"] });
    const allowed = await named.fetch(
      new Request("http://mock.internal:4010/__mock/state"),
    );
    assert.equal(allowed.status, 200, "a name it was told answers");
    await allowed.arrayBuffer();
  });

  it("limits the fixtures' size (413) and depth (400)", async () => {
    const big = JSON.stringify({ projects: [], padding: "x".repeat(5000) });
    const declared = await send("/__mock/fixtures", {
      method: "PUT",
      headers: json,
      body: big,
    });
    assert.equal(declared.status, 413);
    assert.equal((await declared.json()).error_code, "PAYLOAD_TOO_LARGE");
    const streamed = await send("/__mock/fixtures", {
      method: "PUT",
      headers: json,
      body: new Blob([big]).stream(),
      duplex: "half",
    } as RequestInit);
    assert.equal(streamed.status, 413);
    assert.equal(
      (await streamed.json()).message,
      "The body is over the limit of 4096 bytes",
    );
    const deepMock = createMockServer();
    const deep = await deepMock.fetch(
      new Request("http://127.0.0.1:4010/__mock/fixtures", {
        method: "PUT",
        headers: json,
        body: `{"calls":[{"messages":[${"[".repeat(20_000)}${
          "]".repeat(20_000)
        }]}]}`,
      }),
    );
    assert.equal(deep.status, 400);
    const body = await deep.json();
    assert.equal(body.error_code, "INVALID_FIXTURES");
    assert.match(body.message, /at most 100 levels/);
  });

  it("keeps permissive CORS on the API, without credentials", async () => {
    const response = await send(`/v1/call/${CALLS.first}/message`, {
      headers: { ...OWNER, origin: "http://evil.example" },
    });
    assert.equal(response.status, 200);
    assert.equal(
      response.headers.get("access-control-allow-origin"),
      "http://evil.example",
    );
    assert.equal(
      response.headers.get("access-control-allow-credentials"),
      null,
    );
    await response.arrayBuffer();
  });

  it("refuses a bad fault rule with a clear 400", async () => {
    const response = await send("/__mock/faults", {
      method: "POST",
      headers: json,
      body: JSON.stringify({ operation: "testTrigger", status: 503, tims: 1 }),
    });
    assert.equal(response.status, 400);
    const body = await response.json();
    assert.equal(body.error_code, "INVALID_FAULT");
    assert.match(body.message, /Unknown field "tims"/);
  });

  it("answers a control body cut off midway 400, not 500", async () => {
    const response = await send("/__mock/fixtures", {
      method: "PUT",
      headers: json,
      body: new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('{"projects":'));
          controller.error(new Error("connection reset"));
        },
      }),
      duplex: "half",
    } as RequestInit);
    assert.equal(response.status, 400);
    assert.equal(response.headers.get("connection"), "close");
    assert.equal((await response.json()).error_code, "BAD_REQUEST");
  });

  it("answers a malformed fault id 404, not 500", async () => {
    const response = await send("/__mock/faults/%zz", { method: "DELETE" });
    assert.equal(response.status, 404);
    const body = await response.json();
    assert.equal(body.error_code, "FAULT_NOT_FOUND");
    assert.equal(body.message, "No fault %zz");
  });

  it("keeps the first journalBodyLimit bytes of a body, whole or streamed", async () => {
    const small = createMockServer({
      fixtures: apiFixtures,
      journalBodyLimit: 8,
    });
    const url = `http://127.0.0.1:4010/v1/call/message/bulk`;
    const body = JSON.stringify({ call_ids: [CALLS.first] });
    for (
      const init of [{ body }, {
        body: new Blob([body]).stream(),
        duplex: "half",
      }]
    ) {
      const response = await small.fetch(
        new Request(url, {
          method: "POST",
          headers: { ...OWNER, ...json },
          ...init,
        } as RequestInit),
      );
      assert.equal(response.status, 200);
      await response.arrayBuffer();
    }
    const exact = await small.fetch(
      new Request(url, { method: "POST", headers: OWNER, body: "12345678" }),
    );
    await exact.arrayBuffer();
    const entries = small.requests;
    assert.deepEqual(
      entries.map((entry) => [entry.body, entry.body_truncated]),
      [
        [body.slice(0, 8), true],
        [body.slice(0, 8), true],
        ["12345678", false],
      ],
    );
    // A 422's HTTPValidationError body has no error_code.
    assert.equal(entries[2]!.status, 422);
    assert.equal(entries[2]!.error_code, null);
  });

  it("describes itself in an OpenAPI document", async () => {
    const response = await send("/__mock/openapi.json");
    const document = await response.json();
    assert.equal(document.openapi, "3.1.0");
    for (
      const path of [
        "/__mock/reset",
        "/__mock/fixtures",
        "/__mock/state",
        "/__mock/requests",
        "/__mock/faults",
        "/__mock/faults/{id}",
      ]
    ) assert.ok(path in document.paths, path);
  });
});

/** A raw HTTP request, so that the `Host` header can be set. */
function rawGet(url: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { headers: { host } }, (response) => {
      response.resume();
      resolve(response.statusCode!);
    });
    request.on("error", reject);
    request.end();
  });
}

describe(`the mock command's control API under ${runtimeName()}`, () => {
  const directory = mkdtempSync(join(tmpdir(), "mock-control-"));
  let cli: RunningCli;
  const control = async (
    method: string,
    path: string,
    body?: unknown,
  ): Promise<Response> => {
    const response = await fetch(`${cli.url}/__mock/${path}`, {
      method,
      ...(body === undefined ? {} : {
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      }),
    });
    assert.ok(response.status < 300, `${method} ${path}: ${response.status}`);
    return response;
  };

  before(async () => {
    const fixtures = join(directory, "fixtures.json");
    writeFileSync(fixtures, JSON.stringify(apiFixtures));
    cli = await startMockCli([
      "mock",
      "--port",
      "0",
      "--fixtures",
      fixtures,
      "--verbose",
    ]);
  });

  after(async () => {
    await cli.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  sharedChecks(() => ({
    base: cli.url,
    inject: async (rule) => {
      const response = await control("POST", "faults", rule);
      assert.equal(response.status, 201);
      await response.arrayBuffer();
    },
    requests: async () =>
      ((await (await control("GET", "requests")).json()) as {
        requests: JournalEntry[];
      }).requests,
    reset: async () => void (await control("POST", "reset")),
    state: async () => (await control("GET", "state")).json(),
    replace: async (fixtures) =>
      void (await control("PUT", "fixtures", fixtures)),
  }));

  it("lists and clears faults and the journal", async () => {
    await control("POST", "faults", { operation: "testTrigger", status: 503 });
    const listed = await (await control("GET", "faults")).json();
    assert.equal(listed.faults.length, 1);
    assert.equal(listed.faults[0].remaining, null);
    await control("DELETE", `faults/${listed.faults[0].id}`);
    assert.deepEqual(
      (await (await control("GET", "faults")).json()).faults,
      [],
    );
    await control("DELETE", "requests");
    assert.deepEqual(
      (await (await control("GET", "requests")).json()).requests,
      [],
    );
  });

  it("refuses a foreign Host and origin over the socket", async () => {
    assert.equal(await rawGet(`${cli.url}/__mock/state`, "evil.example"), 403);
    assert.equal(
      await rawGet(`${cli.url}/__mock/state`, new URL(cli.url).host),
      200,
    );
    const reset = await fetch(`${cli.url}/__mock/reset`, {
      method: "POST",
      headers: { origin: "http://evil.example", "content-type": "text/plain" },
      body: "{}",
    });
    assert.equal(reset.status, 403);
    await reset.arrayBuffer();
  });

  it("prints its version and, with --help, the control API", () => {
    const cli = fileURLToPath(new URL("../server/cli.ts", import.meta.url));
    const runCli = (...args: string[]) =>
      execFileSync(
        process.execPath,
        runtimeName() === "deno"
          ? ["run", "--allow-all", cli, ...args]
          : [cli, ...args],
        { encoding: "utf8" },
      );
    const { version } = JSON.parse(
      readFileSync(new URL("../package.json", import.meta.url), "utf8"),
    );
    assert.equal(runCli("--version").trim(), version);
    // The bin's --help lists the commands; the mock's own lists its API.
    const help = runCli("mock", "--help");
    for (
      const route of [
        "POST   /__mock/reset",
        "GET    /__mock/requests",
        "POST   /__mock/faults",
        "GET    /__mock/openapi.json",
        "--verbose",
        "--version",
      ]
    ) assert.ok(help.includes(route), route);
  });

  it("prints one line per request with --verbose", async () => {
    const response = await fetch(`${cli.url}/v1/call/${CALLS.first}/message`, {
      headers: OWNER,
    });
    await response.arrayBuffer();
    for (let tries = 0; tries < 100; tries += 1) {
      if (/GET \/v1\/call\/\S+\/message 200 \d+ms/.test(cli.output())) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.match(cli.output(), /GET \/v1\/call\/\S+\/message 200 \d+ms/);
    assert.match(cli.output(), /POST \/v1\/workflow\/\S+ dropped \d+ms/);
  });
});
