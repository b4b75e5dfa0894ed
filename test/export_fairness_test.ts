/**
 * Fair export capacity over real sockets, on the server of the runtime
 * running this file: clients that never read, from two projects, cannot hold
 * every export slot (a project's share shrinks as more projects export), so
 * a third project still exports; and a client that trickles, reading a
 * little more often than the stall deadline but below the minimum rate, is
 * cut as a stalled one is and its slot freed.
 *
 * @module
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { FinishedRequest } from "../src/telemetry/finished_request.ts";
import { createHandler, type HandlerOptions } from "../src/handler.ts";
import { MemoryStore } from "../src/store/memory_store.ts";
import type { TranscriptChunk } from "../src/store/store.ts";
import { type RunningServer, serve } from "../server/runtimes/mod.ts";
import {
  bulkExportRequest,
  type ManyCalls,
  manyCalls,
  noise,
} from "./support/many_calls.ts";
import { RawExport } from "./support/raw_export.ts";
import { readZip } from "./support/zip_reader.ts";

/** 6 MB of transcripts, which the store sends ten times over. */
const bigProject = (prefix: string) =>
  manyCalls({
    prefix,
    calls: 60,
    messages: 50,
    message: (call, index) => ({ text: noise(call * 1000 + index, 2000) }),
  });
const a = bigProject("fa");
const b = bigProject("fb");
const c = manyCalls({ prefix: "fc", calls: 2, messages: 2 });

/**
 * A store that sends each of a big project's calls ten times over: a ZIP of
 * about 38 MB, far more than the sockets' buffers hold, without holding it
 * in memory.
 */
class RepeatingStore extends MemoryStore {
  override async *transcripts(
    projectId: string,
    ids: readonly string[],
  ): AsyncGenerator<TranscriptChunk> {
    const times = projectId === c.project ? 1 : 10;
    for await (const chunk of super.transcripts(projectId, ids)) {
      for (let i = 0; i < times; i += 1) yield chunk;
    }
  }
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

let store: MemoryStore;
before(async () => {
  store = new RepeatingStore();
  for (const project of [a, b, c]) await store.seed(project.fixtures);
});

/** Serves a handler over the shared store for the enclosing `describe`. */
function serverWith(
  options: Partial<HandlerOptions>,
  finished: FinishedRequest[] = [],
): () => RunningServer {
  let server: RunningServer | undefined;
  before(async () => {
    const handler = createHandler({
      store,
      logError: () => {},
      onRequestFinished: (request) => finished.push(request),
      ...options,
    });
    server = await serve(handler, { port: 0, hostname: "127.0.0.1" });
  });
  after(() => server?.close());
  return () => server!;
}

/** An export for `project` over `port` that reads its first KiB only. */
async function neverReading(port: number, project: ManyCalls) {
  const raw = new RawExport(port, project.token, project.callIds, 1024);
  assert.ok(await raw.receivedAtLeast(1024), "the export did not start");
  assert.match(raw.head, /^HTTP\/1.1 200/);
  return raw;
}

/** The status of an export asked for over fetch, its body read whole. */
async function exportStatus(url: string, project: ManyCalls) {
  const request = bulkExportRequest(project.token, project.callIds);
  const response = await fetch(new URL("/v1/call/message/bulk", url), {
    method: "POST",
    headers: request.headers,
    body: await request.text(),
  });
  const body = new Uint8Array(await response.arrayBuffer());
  if (response.status === 200) {
    assert.equal(readZip(body).length, project.callIds.length);
  }
  return response.status;
}

describe("two projects that never read", () => {
  // The default 16 slots and a long stall deadline: nothing is cut here.
  const running = serverWith({ exportStallTimeoutMs: 60_000 });

  it("cannot hold every slot: a third project still exports", {
    timeout: 60_000,
  }, async () => {
    const { port, url } = running();
    const held: RawExport[] = [];
    for (const project of [a, b]) {
      // Each asks for more than its share; the share is what it gets.
      for (let i = 0; i < 9; i += 1) {
        const raw = new RawExport(port, project.token, project.callIds, 1024);
        await raw.receivedAtLeast(12, 5000);
        if (/^HTTP\/1.1 200/.test(raw.head)) held.push(raw);
        else raw.socket.destroy();
      }
    }
    assert.equal(held.length, 8 + 5, "a alone: 8; b beside a: 5");
    assert.equal(await exportStatus(url, c), 200);
    assert.equal(await exportStatus(url, a), 503, "a is past its share");
    for (const raw of held) raw.socket.destroy();
  });
});

describe("a client that trickles below the minimum rate", () => {
  // The server is handed a pull only when the kernel's send buffer has a
  // third of its room free again (about 1.3 MB): at the trickle's 512 KiB/s
  // that is every 2.5 s or so, within the stall deadline.
  const STALL_MS = 4000;
  const TRICKLE = 512 * 1024;
  const finished: FinishedRequest[] = [];
  // One slot; 2 MiB/s at least, over windows of the stall deadline: the
  // trickler reads 512 KiB/s.
  const strict = serverWith({
    maxConcurrentExports: 1,
    exportStallTimeoutMs: STALL_MS,
    exportMinBytesPerSecond: 2 * 1024 * 1024,
  }, finished);
  const lenient = serverWith({
    maxConcurrentExports: 1,
    exportStallTimeoutMs: STALL_MS,
    exportMinBytesPerSecond: 0,
  });

  it("is cut and its slot freed", { timeout: 60_000 }, async () => {
    const { port, url } = strict();
    const trickler = await neverReading(port, a);
    const stop = trickler.trickle(TRICKLE);
    try {
      let status = 503;
      for (const end = Date.now() + 30_000; Date.now() < end;) {
        status = await exportStatus(url, c);
        if (status === 200) break;
        await sleep(200);
      }
      assert.equal(status, 200, "the trickler still held the only slot");
    } finally {
      stop();
    }
    assert.equal(await trickler.rest(), undefined, "its ZIP was not cut");
    const cut = finished.find((request) => request.aborted !== undefined);
    assert.equal(cut?.aborted, "client");
  });

  it("without a minimum rate, keeps its slot past the stall deadline", {
    timeout: 60_000,
  }, async () => {
    const { port, url } = lenient();
    const trickler = await neverReading(port, a);
    const stop = trickler.trickle(TRICKLE);
    try {
      await sleep(2.5 * STALL_MS);
      assert.equal(await exportStatus(url, c), 503);
    } finally {
      stop();
      trickler.socket.destroy();
    }
  });

  it(
    "a client reading at full speed is not cut",
    { timeout: 60_000 },
    async () => {
      const { url } = strict();
      assert.equal(await exportStatus(url, b), 200);
    },
  );
});
