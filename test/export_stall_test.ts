/**
 * The export stall deadline over real sockets, on the server of the runtime
 * running this file (Deno's has no deadlines of its own): a client that
 * stops reading is cut once it has read nothing for the deadline, and its
 * slot goes to the next export; a slow client that keeps reading is not.
 *
 * @module
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { FinishedRequest } from "../src/telemetry/finished_request.ts";
import { createHandler } from "../src/handler.ts";
import { bunExportTimeouts } from "../server/runtimes/bun.ts";
import { MemoryStore } from "../src/store/memory_store.ts";
import {
  type RunningServer,
  runtimeName,
  serve,
} from "../server/runtimes/mod.ts";
import { manyCalls, noise } from "./support/many_calls.ts";
import { RawExport } from "./support/raw_export.ts";
import { serverSideStates, SOCKET_STATES } from "./support/socket_states.ts";
import { readZip } from "./support/zip_reader.ts";

/** About 12 MB of transcripts: a ZIP far larger than the socket buffers. */
const big = manyCalls({
  prefix: "5e",
  calls: 120,
  messages: 50,
  message: (call, index) => ({ text: noise(call * 1000 + index, 2000) }),
});

const STALL_MS = 1000;
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

let server: RunningServer;
let store: MemoryStore;
const finished: FinishedRequest[] = [];
before(async () => {
  store = new MemoryStore();
  await store.seed(big.fixtures);
  const handler = createHandler({
    store,
    logError: () => {},
    maxConcurrentExports: 1,
    exportStallTimeoutMs: STALL_MS,
    onRequestFinished: (request) => finished.push(request),
    // As the servers' app adds it: Bun's idle timeout off the export.
    middleware: [bunExportTimeouts],
  });
  server = await serve(handler, { port: 0, hostname: "127.0.0.1" });
});
after(() => server?.close());

/** Asks for an export until one is served, for at most `ms`. */
async function exportServedWithin(ms: number): Promise<Response | undefined> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(100)) {
    const response = await fetch(new URL("/v1/call/message/bulk", server.url), {
      method: "POST",
      headers: {
        authorization: `Bearer ${big.token}`,
        "content-type": "application/json",
      },
      body: JSON.stringify({ call_ids: big.callIds.slice(0, 2) }),
    });
    if (response.status === 200) return response;
    assert.equal(response.status, 503);
    await response.arrayBuffer();
  }
  return undefined;
}

describe("the export stall deadline over HTTP", () => {
  it("cuts a client that stops reading and gives its slot to the next export", {
    timeout: 60_000,
  }, async () => {
    const stalled = new RawExport(server.port, big.token, big.callIds, 1024);
    assert.ok(await stalled.receivedAtLeast(1024), "the export did not start");
    const paused = Date.now();
    assert.match(stalled.head, /^HTTP\/1.1 200/);

    const next = await exportServedWithin(30_000);
    const waited = Date.now() - paused;
    assert.ok(next, "the stalled export still held the only slot after 30 s");
    assert.ok(waited >= STALL_MS - 100, `slot freed after only ${waited} ms`);
    assert.equal(readZip(new Uint8Array(await next.arrayBuffer())).length, 2);

    // Reading again, the stalled client gets what was buffered, then the
    // cut: the connection ends before the chunked body's last chunk.
    assert.equal(await stalled.rest(), undefined);
    // The access log blames the client, not the server.
    const cut = finished.find((request) => request.aborted !== undefined);
    assert.equal(cut?.aborted, "client");
    assert.equal(cut?.status, 200);
  });

  it("closes the connection of a client that reads nothing", {
    timeout: 60_000,
    skip: !SOCKET_STATES && "needs ss (iproute2)",
  }, async () => {
    const stalled = new RawExport(server.port, big.token, big.callIds, 1024);
    assert.ok(await stalled.receivedAtLeast(1024), "the export did not start");
    const clientPort = stalled.socket.localPort!;
    const states = () => serverSideStates(server.port, clientPort);
    assert.deepEqual(states(), ["ESTAB"]);
    // The client reads nothing from here on, and never closes.
    const deadline = Date.now() + STALL_MS + 8000;
    while (states().includes("ESTAB") && Date.now() < deadline) {
      await sleep(100);
    }
    if (runtimeName() === "deno") {
      // Deno.serve cannot close a connection whose write is blocked (no
      // per-connection close; an errored body, request.signal or even the
      // server's abort leave it): it ends once the client reads again.
      // docs/operating.md says so; when this fails, Deno learnt it.
      assert.deepEqual(states(), ["ESTAB"]);
      assert.equal(await stalled.rest(), undefined);
      assert.ok(!states().includes("ESTAB"), `still ${states()}`);
    } else {
      // The server's side is closed (FIN queued after what is buffered,
      // or gone) while the client still reads nothing.
      assert.ok(!states().includes("ESTAB"), `still ${states()}`);
    }
    stalled.socket.destroy();
  });

  it("does not cut a slow client that keeps reading", {
    timeout: 60_000,
  }, async () => {
    const response = await fetch(new URL("/v1/call/message/bulk", server.url), {
      method: "POST",
      headers: {
        authorization: `Bearer ${big.token}`,
        "content-type": "application/json",
      },
      body: JSON.stringify({ call_ids: big.callIds }),
    });
    assert.equal(response.status, 200);
    const reader = response.body!.getReader();
    const chunks: Uint8Array<ArrayBuffer>[] = [];
    // Three times the deadline in bursts: reading for 50 ms, then nothing
    // for 40 % of the deadline...
    for (const end = Date.now() + 3 * STALL_MS; Date.now() < end;) {
      for (const burst = Date.now() + 50; Date.now() < burst;) {
        const { value } = await reader.read();
        if (value) chunks.push(value);
      }
      await sleep(STALL_MS * 0.4);
    }
    // ...then the rest at full speed: the ZIP is whole.
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
    }
    const zip = new Uint8Array(await new Blob(chunks).arrayBuffer());
    assert.equal(readZip(zip).length, big.callIds.length);
  });
});
