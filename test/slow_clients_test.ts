/**
 * Slow, broken and hostile clients over real sockets, on the server of the
 * runtime running this file: header and body deadlines where the runtime
 * allows them, clients that go away mid-body or mid-response (one info line,
 * never an error), and the bugs found by comparing with FastAPI over HTTP (a
 * BOM in a path param, repeated Content-Type fields).
 *
 * @module
 */
import assert from "node:assert/strict";
import { connect, type Socket } from "node:net";
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
import {
  apiFixtures,
  CALLS,
  INTEGRATIONS,
  TOKENS,
} from "./support/api_fixtures.ts";
import { manyCalls } from "./support/many_calls.ts";
import { readZip } from "./support/zip_reader.ts";

/** Enough transcript data that an export is still streaming when dropped. */
const big = manyCalls({
  prefix: "5c",
  calls: 300,
  messages: 40,
  message: (call, index) => ({
    text: `${call}-${index}-${Math.sin(call * 1000 + index)}`.repeat(8),
  }),
});

/** Short deadlines, so that the test takes seconds. */
const HEADERS_MS = 1000;
const BODY_MS = 1500;
/** Bun's idle timeout also ends a body: longer than the body deadline. */
const IDLE_SECONDS = 4;
/** Node checks its deadlines once a second: allow for that and a slow CI. */
const SLACK_MS = 2500;

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** A raw connection: what it received, and when the server closed it. */
class RawClient {
  readonly socket: Socket;
  received = "";
  readonly closed: Promise<number>;
  readonly #opened = Date.now();

  constructor(port: number) {
    this.socket = connect(port, "127.0.0.1");
    this.socket.setNoDelay(true);
    this.socket.on("data", (data) => {
      this.received += data.toString("latin1");
    });
    this.socket.on("error", () => {});
    this.closed = new Promise((done) => {
      this.socket.on("close", () => done(Date.now() - this.#opened));
    });
  }

  /** Sends text, unless the server has closed the connection. */
  write(text: string): void {
    if (!this.socket.destroyed) this.socket.write(text);
  }

  /** Resolves with the ms until the server closed it, or `undefined`. */
  closedWithin(ms: number): Promise<number | undefined> {
    return Promise.race([this.closed, sleep(ms).then(() => undefined)]);
  }

  /** Resolves once response headers arrive; `false` if not within `ms`. */
  async answeredWithin(ms: number): Promise<boolean> {
    for (const end = Date.now() + ms; Date.now() < end; await sleep(20)) {
      if (this.received.includes("\r\n\r\n")) return true;
    }
    return false;
  }

  get statusLine(): string {
    return this.received.split("\r\n", 1)[0]!;
  }

  destroy(): void {
    this.socket.destroy();
  }
}

const bulkHead = (extra = "") =>
  "POST /v1/call/message/bulk HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
  `Authorization: Bearer ${TOKENS.owner}\r\n${extra}`;

describe(`slow and broken clients on ${runtimeName()}`, () => {
  let server: RunningServer;
  const infos: string[] = [];
  const errors: unknown[] = [];
  const consoleErrors: unknown[][] = [];
  const consoleError = console.error;

  before(async () => {
    const store = new MemoryStore();
    await store.seed(parseFixtures({
      ...apiFixtures,
      projects: [
        ...apiFixtures.projects ?? [],
        ...big.fixtures.projects ?? [],
      ],
      tokens: [...apiFixtures.tokens ?? [], ...big.fixtures.tokens ?? []],
      calls: [...apiFixtures.calls ?? [], ...big.fixtures.calls ?? []],
    }));
    server = await serve(
      createHandler({
        store,
        logError: (_id, error) => errors.push(error),
        logInfo: (_id, message) => infos.push(message),
        bodyTimeoutMs: BODY_MS,
        middleware: runtimeSteps(),
      }),
      {
        port: 0,
        hostname: "127.0.0.1",
        timeouts: {
          headersMs: HEADERS_MS,
          requestMs: BODY_MS + 3000,
          keepAliveMs: 500,
          idleSeconds: IDLE_SECONDS,
        },
      },
    );
    // Whatever the server itself prints as an error (a stack from the
    // runtime's bridge, say) must not appear either.
    console.error = (...args: unknown[]) => {
      consoleErrors.push(args);
    };
  });
  after(async () => {
    console.error = consoleError;
    await server.close();
  });

  // Deno.serve has no header deadline: a slowloris connection stays open
  // until the client leaves (documented in the README).
  it("closes connections whose headers stall or trickle in", {
    skip: runtimeName() === "deno" && "Deno.serve has no header deadline",
  }, async () => {
    const stalled = new RawClient(server.port);
    stalled.write(bulkHead());
    const trickling = new RawClient(server.port);
    const headers = bulkHead("X-Padding: " + "x".repeat(100));
    let sent = 0;
    const trickle = setInterval(
      () => trickling.write(headers[sent++] ?? "x"),
      200,
    );
    // Bun closes headers that take longer than about 10 s of its own (not
    // configurable, checked every 4 s).
    const within = runtimeName() === "bun" ? 16_000 : HEADERS_MS + SLACK_MS;
    const closedAfter = await Promise.all([
      stalled.closedWithin(within),
      trickling.closedWithin(within),
    ]);
    clearInterval(trickle);
    stalled.destroy();
    trickling.destroy();
    assert.ok(closedAfter[0] !== undefined, "the stalled one is still open");
    assert.ok(closedAfter[1] !== undefined, "the trickling one is still open");
  });

  // Deno answers, but keeps reading what the client sends after the answer
  // (it has no way to close a connection from the handler): the connection
  // ends when the client stops. Node and Bun close it.
  const closes = runtimeName() !== "deno";

  it("answers 408 to a body trickled in, and closes the connection", async () => {
    const client = new RawClient(server.port);
    client.write(
      bulkHead(
        "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n",
      ) +
        '{"call_ids": [',
    );
    const trickle = setInterval(() => client.write(" "), 200);
    const answered = await client.answeredWithin(BODY_MS + SLACK_MS);
    const closedAfter = closes ? await client.closedWithin(SLACK_MS) : 0;
    clearInterval(trickle);
    client.destroy();
    assert.ok(answered, "no answer");
    assert.match(client.statusLine, /^HTTP\/1\.1 408/);
    assert.match(client.received, /"error_code":"REQUEST_TIMEOUT"/);
    assert.ok(closedAfter !== undefined, "the connection is still open");
    assert.ok(
      infos.some((line) => /client went away: .*took longer/.test(line)),
    );
  });

  it("answers a chunked body framed with bare LF within the body deadline", async () => {
    // Deno waits for the rest of such a body forever: the handler's deadline
    // ends it. Node and Bun refuse the framing at once (400 and 505).
    const client = new RawClient(server.port);
    client.write(
      bulkHead(
        "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n",
      ) + '5\n{"cal\n0\n\n',
    );
    const answered = await client.answeredWithin(BODY_MS + SLACK_MS);
    const closedAfter = closes ? await client.closedWithin(SLACK_MS) : 0;
    client.destroy();
    assert.ok(answered, "no answer");
    assert.match(client.statusLine, /^HTTP\/1\.1 (400|408|505)/);
    assert.ok(closedAfter !== undefined, "the connection is still open");
  });

  it("notes a client that goes away mid-body in one info line, no error", async () => {
    const before = infos.length;
    for (
      const framing of ["Content-Length: 1000", "Transfer-Encoding: chunked"]
    ) {
      const client = new RawClient(server.port);
      client.write(
        bulkHead(`Content-Type: application/json\r\n${framing}\r\n\r\n`) +
          (framing.startsWith("Transfer") ? '5\r\n{"cal\r\n' : '{"call_ids":'),
      );
      await sleep(200);
      client.socket.resetAndDestroy();
      await client.closed;
    }
    for (let wait = 0; infos.length < before + 2 && wait < 40; wait += 1) {
      await sleep(50);
    }
    const lines = infos.slice(before);
    assert.equal(lines.length, 2, lines.join("\n"));
    for (const line of lines) {
      assert.match(line, /^client went away: the body was cut off: /);
      assert.doesNotMatch(line, /\n/);
    }
    assert.deepEqual(errors, []);
    assert.deepEqual(consoleErrors, []);
  });

  it("logs nothing as an error when a client leaves mid-export", async () => {
    const ids = big.callIds;
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const controller = new AbortController();
      const response = await fetch(`${server.url}/v1/call/message/bulk`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${big.token}`,
          "content-type": "application/json",
        },
        body: JSON.stringify({ call_ids: ids }),
        signal: controller.signal,
      });
      assert.equal(response.status, 200);
      const reader = response.body!.getReader();
      await reader.read();
      controller.abort();
      await reader.read().catch(() => {});
    }
    await sleep(300);
    assert.deepEqual(errors, []);
    assert.deepEqual(consoleErrors, []);
  });

  it("keeps a leading BOM in a path param: 422, nothing deleted", async () => {
    const url = `${server.url}/v1/integration/%EF%BB%BF${INTEGRATIONS.mcp}`;
    const headers = { authorization: `Bearer ${TOKENS.owner}` };
    const response = await fetch(url, { method: "DELETE", headers });
    assert.equal(response.status, 422);
    const body = await response.json();
    assert.deepEqual(body.detail[0].loc, ["path", "integration_id"]);
    assert.equal(body.detail[0].input, `\ufeff${INTEGRATIONS.mcp}`);
    const plain = `${server.url}/v1/integration/${INTEGRATIONS.mcp}`;
    const deleted = await fetch(plain, { method: "DELETE", headers });
    assert.equal(deleted.status, 204, "the integration was still there");
  });

  it("reads the first of two Content-Type fields, as Starlette does", async () => {
    const body = JSON.stringify({ call_ids: [CALLS.first] });
    const client = new RawClient(server.port);
    client.socket.on("data", () => {});
    client.write(
      bulkHead(
        "Content-Type: application/json\r\nContent-Type: application/json\r\n" +
          `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
      ) + body,
    );
    await client.closed;
    assert.match(client.statusLine, /^HTTP\/1\.1 200/);
    assert.match(client.received, /content-type: application\/zip/i);
    const zip = client.received.slice(client.received.indexOf("\r\n\r\n") + 4);
    if (!/transfer-encoding: chunked/i.test(client.received)) {
      const entries = readZip(Uint8Array.from(zip, (c) => c.charCodeAt(0)));
      assert.deepEqual(entries.map((entry) => entry.name), [
        `${CALLS.first}.json`,
      ]);
    }
  });
});
