/**
 * The API over real HTTP, on the server of the runtime running this file
 * (Deno.serve, Bun.serve or @hono/node-server): each runtime runs it.
 */
import assert from "node:assert/strict";
import { connect } from "node:net";
import { after, before, describe, it } from "node:test";
import { parseFixtures } from "../src/store/fixtures.ts";
import { createHandler } from "../src/handler.ts";
import { MemoryStore } from "../src/store/memory_store.ts";
import {
  type RunningServer,
  runtimeName,
  runtimeSteps,
  serve,
} from "../server/runtimes/mod.ts";
import type { TranscriptChunk } from "../src/store/store.ts";
import { assertError } from "./api_suite.ts";
import {
  apiFixtures,
  CALLS,
  FIRST_MESSAGES,
  FLOWS,
  INTEGRATIONS,
  TOKENS,
} from "./support/api_fixtures.ts";
import { readZip } from "./support/zip_reader.ts";

/** A store whose transcripts fail after the first chunk. */
class FailingMidwayStore extends MemoryStore {
  override async *transcripts(
    projectId: string,
    callIds: readonly string[],
  ): AsyncIterable<TranscriptChunk> {
    for await (const chunk of super.transcripts(projectId, callIds)) {
      // A large first chunk, so bytes are on the wire before the failure.
      yield {
        callId: chunk.callId,
        messages: Array(20_000).fill(chunk.messages[0]),
      };
      throw new Error("connection to storage lost");
    }
  }
}

function auth(token: string): HeadersInit {
  return { authorization: `Bearer ${token}` };
}

/** Sends raw bytes and returns the first response line. */
function rawStatusLine(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let received = "";
    socket.on("data", (data) => {
      received += data.toString("latin1");
      if (received.includes("\r\n")) {
        resolve(received.slice(0, received.indexOf("\r\n")));
        socket.destroy();
      }
    });
    socket.on("error", reject);
    socket.on("end", () => resolve(received));
    socket.write(request);
  });
}

describe(`HTTP server on ${runtimeName()}`, () => {
  let server: RunningServer;
  let failing: RunningServer;
  const logged: unknown[] = [];

  before(async () => {
    const store = new MemoryStore();
    await store.seed(parseFixtures(apiFixtures));
    server = await serve(createHandler({ store, middleware: runtimeSteps() }), {
      port: 0,
      hostname: "127.0.0.1",
    });
    const failingStore = new FailingMidwayStore();
    await failingStore.seed(parseFixtures(apiFixtures));
    failing = await serve(
      createHandler({
        store: failingStore,
        logError: (_id, error) => logged.push(error),
        middleware: runtimeSteps(),
      }),
      { port: 0, hostname: "127.0.0.1" },
    );
  });
  after(async () => {
    await server.close();
    await failing.close();
  });

  it("listens on 127.0.0.1 at the port it reports", () => {
    assert.equal(server.url, `http://127.0.0.1:${server.port}`);
    assert.ok(server.port > 0);
  });

  it("streams a bulk export that independent ZIP readers accept", async () => {
    const response = await fetch(`${server.url}/v1/call/message/bulk`, {
      method: "POST",
      headers: { ...auth(TOKENS.viewer), "content-type": "application/json" },
      body: JSON.stringify({
        call_ids: [CALLS.second, CALLS.silent, CALLS.first],
      }),
    });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "application/zip");
    assert.equal(
      response.headers.get("content-disposition"),
      'attachment; filename="transcripts.zip"',
    );
    const entries = readZip(new Uint8Array(await response.arrayBuffer()));
    assert.deepEqual(entries.map((e) => e.name), [
      `${CALLS.second}.json`,
      `${CALLS.first}.json`,
    ]);
    assert.deepEqual(JSON.parse(entries[1]!.text), FIRST_MESSAGES);
  });

  it("answers 401 with a Bearer challenge", async () => {
    const response = await fetch(
      `${server.url}/v1/call/${CALLS.first}/message`,
    );
    assert.match(response.headers.get("www-authenticate") ?? "", /^Bearer/);
    await assertError(response, 401, "UNAUTHORIZED");
  });

  it("answers HEAD with the GET's status and headers over HTTP, no body", async () => {
    for (
      const [path, headers] of [
        ["/healthz", {}],
        ["/openapi.json", {}],
        [`/v1/call/${CALLS.first}/message`, auth(TOKENS.viewer)],
        [`/v1/call/${CALLS.first}/message`, {}],
      ] as const
    ) {
      const get = await fetch(`${server.url}${path}`, { headers });
      const length = (await get.arrayBuffer()).byteLength;
      const head = await fetch(`${server.url}${path}`, {
        method: "HEAD",
        headers,
      });
      assert.equal(head.status, get.status, path);
      assert.equal(await head.text(), "");
      assert.equal(head.headers.get("content-length"), String(length), path);
      assert.equal(
        head.headers.get("content-type"),
        get.headers.get("content-type"),
      );
    }
  });

  it("answers 422 in FastAPI's format", async () => {
    const response = await fetch(`${server.url}/v1/call/message/bulk`, {
      method: "POST",
      headers: { ...auth(TOKENS.owner), "content-type": "application/json" },
      body: '{"call_ids": []}',
    });
    assert.equal(response.status, 422);
    assert.equal((await response.json()).detail[0].type, "too_short");
  });

  it("refuses a declared 2 MB body with 413 before it is sent", async () => {
    const statusLine = await rawStatusLine(
      server.port,
      "POST /v1/call/message/bulk HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
        `Authorization: Bearer ${TOKENS.owner}\r\nContent-Type: application/json\r\n` +
        "Content-Length: 2000000\r\n\r\n{",
    );
    assert.match(statusLine, /^HTTP\/1\.1 413/);
  });

  it("refuses a sent body over 1 MiB with 413", async () => {
    const response = await fetch(`${server.url}/v1/call/message/bulk`, {
      method: "POST",
      headers: { ...auth(TOKENS.owner), "content-type": "application/json" },
      body: JSON.stringify({
        call_ids: [CALLS.first],
        pad: "x".repeat(1024 * 1024),
      }),
    });
    await assertError(response, 413, "PAYLOAD_TOO_LARGE");
  });

  it("deletes an integration with 204 and no body", async () => {
    const response = await fetch(
      `${server.url}/v1/integration/${INTEGRATIONS.http}`,
      {
        method: "DELETE",
        headers: auth(TOKENS.admin),
      },
    );
    assert.equal(response.status, 204);
    assert.equal(await response.text(), "");
    const again = await fetch(
      `${server.url}/v1/integration/${INTEGRATIONS.http}`,
      {
        method: "DELETE",
        headers: auth(TOKENS.admin),
      },
    );
    await assertError(again, 404, "INTEGRATION_NOT_FOUND");
  });

  it("runs a trigger test", async () => {
    const response = await fetch(
      `${server.url}/v1/workflow/${FLOWS.webhook}/trigger/test`,
      {
        method: "POST",
        headers: auth(TOKENS.member),
      },
    );
    assert.equal(response.status, 200);
    assert.deepEqual((await response.json()).events, [{
      order: { id: 7, items: ["a", "b"] },
      ok: true,
    }]);
  });

  it("answers 405 with Allow and echoes X-Request-Id", async () => {
    const response = await fetch(`${server.url}/v1/call/message/bulk`, {
      headers: { "x-request-id": "trace-1" },
    });
    assert.equal(response.headers.get("allow"), "POST");
    assert.equal(response.headers.get("x-request-id"), "trace-1");
    await assertError(response, 405, "METHOD_NOT_ALLOWED");
  });

  it("aborts the response when the export fails midway, never ending a truncated ZIP", async () => {
    // The connection is cut: before the headers arrive or while the body is
    // read, depending on how much the runtime has flushed; never a clean end.
    const outcome = await fetch(`${failing.url}/v1/call/message/bulk`, {
      method: "POST",
      headers: { ...auth(TOKENS.owner), "content-type": "application/json" },
      body: JSON.stringify({ call_ids: [CALLS.first, CALLS.second] }),
    }).then(
      (response) =>
        response.arrayBuffer().then(
          () => `ended cleanly with ${response.status}`,
          () => "aborted",
        ),
      () => "aborted",
    );
    assert.equal(outcome, "aborted");
    assert.ok(
      logged.some((error) =>
        (error as Error).message === "connection to storage lost"
      ),
      "the failure is logged",
    );
  });
});
