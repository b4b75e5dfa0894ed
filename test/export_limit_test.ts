/**
 * The bound on concurrent bulk exports: in the handler, and over real HTTP on
 * the server of the runtime running this file, where a client that goes away
 * must give its slot back.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createHandler, type HandlerOptions } from "../src/handler.ts";
import { MemoryStore } from "../src/store/memory_store.ts";
import { type RunningServer, serve } from "../server/runtimes/mod.ts";
import type { TranscriptChunk } from "../src/store/store.ts";
import { bulkExportRequest, manyCalls } from "./support/many_calls.ts";
import { readZip } from "./support/zip_reader.ts";

const { token: TOKEN, call, callIds, fixtures } = manyCalls({
  prefix: "e1",
  calls: 40,
  messages: 20,
});

/** A store that takes 200 ms per call of an export: 8 s for all 40. */
class SlowStore extends MemoryStore {
  override async *transcripts(
    projectId: string,
    ids: readonly string[],
  ): AsyncGenerator<TranscriptChunk> {
    for await (const chunk of super.transcripts(projectId, ids)) {
      yield chunk;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/** A second project, to show the share of each. */
const other = manyCalls({ prefix: "e2", calls: 40, messages: 20 });

let store: MemoryStore;
before(async () => {
  store = new MemoryStore();
  await store.seed(fixtures);
  await store.seed(other.fixtures);
});

function handlerWith(options: Partial<HandlerOptions> = {}) {
  return createHandler({ store, logError: () => {}, ...options });
}

/** Asserts the refusal: 503 TOO_MANY_EXPORTS with Retry-After. */
async function assertRefused(response: Response, max: number): Promise<void> {
  assert.equal(response.status, 503);
  assert.equal(response.headers.get("retry-after"), "1");
  assert.equal(response.headers.get("content-type"), "application/json");
  assert.ok(response.headers.get("x-request-id"));
  assert.deepEqual(await response.json(), {
    status: "error",
    error_code: "TOO_MANY_EXPORTS",
    message:
      `The server is streaming its maximum of ${max} exports at once; retry shortly`,
  });
}

describe("Concurrent exports", () => {
  it("refuses the export past the limit with 503 and Retry-After, until one ends", async () => {
    // One project here: its share is the whole server's.
    const handler = handlerWith({
      maxConcurrentExports: 2,
      maxExportsPerProject: 2,
    });
    const running = [
      await handler(bulkExportRequest(TOKEN, callIds)),
      await handler(bulkExportRequest(TOKEN, callIds)),
    ];
    assert.deepEqual(running.map((response) => response.status), [200, 200]);
    await assertRefused(await handler(bulkExportRequest(TOKEN, callIds)), 2);

    // A cancelled download frees its slot...
    await running[0]!.body!.cancel();
    const next = await handler(bulkExportRequest(TOKEN, callIds));
    assert.equal(next.status, 200);
    await assertRefused(await handler(bulkExportRequest(TOKEN, callIds)), 2);
    // ...and so does one read to its end, whole.
    assert.equal(
      readZip(new Uint8Array(await running[1]!.arrayBuffer())).length,
      callIds.length,
    );
    const last = await handler(bulkExportRequest(TOKEN, [call(3)]));
    assert.equal(last.status, 200);
    await Promise.all([next.body!.cancel(), last.body!.cancel()]);
  });

  it("refuses only exports: other requests still answer at the limit", async () => {
    const handler = handlerWith({ maxConcurrentExports: 1 });
    const running = await handler(bulkExportRequest(TOKEN, callIds));
    const messages = await handler(
      new Request(`http://api.test/v1/call/${call(1)}/message`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      }),
    );
    assert.equal(messages.status, 200);
    await messages.arrayBuffer();
    await running.body!.cancel();
  });

  it("holds no slot for an export answered 404, 401 or 422", async () => {
    const handler = handlerWith({ maxConcurrentExports: 1 });
    const missing = await handler(bulkExportRequest(TOKEN, [call(999)]));
    assert.equal(missing.status, 404);
    await missing.arrayBuffer();
    const anonymous = await handler(bulkExportRequest("nobody", callIds));
    assert.equal(anonymous.status, 401);
    await anonymous.arrayBuffer();
    const bad = await handler(bulkExportRequest(TOKEN, ["not-a-uuid"]));
    assert.equal(bad.status, 422);
    await bad.arrayBuffer();
    const response = await handler(bulkExportRequest(TOKEN, callIds));
    assert.equal(response.status, 200);
    await response.body!.cancel();
  });

  it("holds no slot for an export whose store failed", async () => {
    class Failing extends MemoryStore {
      override transcripts(): AsyncIterable<never> {
        return (async function* () {
          yield* [];
          throw new Error("storage lost");
        })();
      }
    }
    const failing = new Failing();
    await failing.seed(fixtures);
    const handler = createHandler({
      store: failing,
      logError: () => {},
      maxConcurrentExports: 1,
    });
    for (let i = 0; i < 3; i++) {
      const response = await handler(bulkExportRequest(TOKEN, callIds));
      assert.equal(response.status, 500);
      await response.arrayBuffer();
    }
  });

  it(
    "streams every export at once: stalled downloads, more than cores, hold up none",
    {
      timeout: 30_000,
    },
    async () => {
      // A writer with a process-wide pool of compressors (zip.js's, sized by
      // the cores) would let stalled downloads hold every slot of it.
      const stalled = Math.min(navigator.hardwareConcurrency + 1, 15);
      const handler = handlerWith({ maxExportsPerProject: 16 });
      const readers = [];
      for (let i = 0; i < stalled; i++) {
        const response = await handler(bulkExportRequest(TOKEN, callIds));
        const reader = response.body!.getReader();
        assert.equal((await reader.read()).done, false);
        readers.push(reader);
      }
      const response = await handler(bulkExportRequest(TOKEN, callIds));
      assert.equal(
        readZip(new Uint8Array(await response.arrayBuffer())).length,
        callIds.length,
      );
      await Promise.all(readers.map((reader) => reader.cancel()));
    },
  );

  it("by default, 8 for a project alone, 5 for a second: two never hold all 16", async () => {
    const handler = handlerWith();
    const take = async (token: string, ids: readonly string[], n: number) => {
      const responses = [];
      for (let i = 0; i < n; i += 1) {
        responses.push(await handler(bulkExportRequest(token, ids)));
      }
      return responses;
    };
    const first = await take(TOKEN, callIds, 9);
    assert.deepEqual(
      first.map((response) => response.status),
      [...Array(8).fill(200), 503],
    );
    const second = await take(other.token, other.callIds, 6);
    assert.deepEqual(
      second.map((response) => response.status),
      [...Array(5).fill(200), 503],
    );
    assert.deepEqual(await second[5]!.json(), {
      status: "error",
      error_code: "TOO_MANY_EXPORTS",
      message:
        "This project is streaming its maximum of 5 exports at once; retry shortly",
    });
    // A third project finds the 3 slots left: the other two could not
    // take them.
    const third = manyCalls({ prefix: "e3", calls: 2, messages: 1 });
    await store.seed(third.fixtures);
    const late = await take(third.token, third.callIds, 4);
    assert.deepEqual(
      late.map((response) => response.status),
      [200, 200, 200, 503],
    );
    await assertRefused(late[3]!, 16);
    await Promise.all(
      [...first, ...second, ...late]
        .filter((response) => response.status === 200)
        .map((response) => response.body!.cancel()),
    );
  });

  it("refuses a project past its share while another project still exports", async () => {
    const handler = handlerWith({ maxConcurrentExports: 4 }); // share: 2
    const first = await Promise.all([
      handler(bulkExportRequest(TOKEN, callIds)),
      handler(bulkExportRequest(TOKEN, callIds)),
    ]);
    assert.deepEqual(first.map((response) => response.status), [200, 200]);
    const refused = await handler(bulkExportRequest(TOKEN, callIds));
    assert.equal(refused.status, 503);
    assert.equal(refused.headers.get("retry-after"), "1");
    assert.deepEqual(await refused.json(), {
      status: "error",
      error_code: "TOO_MANY_EXPORTS",
      message:
        "This project is streaming its maximum of 2 exports at once; retry shortly",
    });
    // The other project gets a slot the first one may not take, but not
    // the last one: with two projects exporting, a share is 4 / 3, so 1...
    const others = [
      await handler(bulkExportRequest(other.token, other.callIds)),
      await handler(bulkExportRequest(other.token, other.callIds)),
    ];
    assert.deepEqual(others.map((response) => response.status), [200, 503]);
    // ...and once one of the first's exports ends and the other project is
    // done, the first, alone again, gets its whole share back.
    await first[0]!.body!.cancel();
    assert.equal(
      (await handler(bulkExportRequest(TOKEN, callIds))).status,
      503,
      "1 of its share of 1 while the other exports",
    );
    await others[0]!.body!.cancel();
    const again = await handler(bulkExportRequest(TOKEN, callIds));
    assert.equal(again.status, 200);
    await Promise.all(
      [first[1]!, again].map((response) => response.body!.cancel()),
    );
  });

  it("refuses a limit that is not an integer from 1", () => {
    for (const max of [0, -1, 1.5, Number.NaN]) {
      assert.throws(
        () => handlerWith({ maxConcurrentExports: max }),
        RangeError,
      );
      assert.throws(
        () => handlerWith({ maxExportsPerProject: max }),
        RangeError,
      );
    }
  });
});

describe("Concurrent exports over HTTP", () => {
  let server: RunningServer;
  before(async () => {
    const slow = new SlowStore();
    await slow.seed(fixtures);
    const handler = createHandler({
      store: slow,
      logError: () => {},
      maxConcurrentExports: 1,
    });
    server = await serve(handler, { port: 0, hostname: "127.0.0.1" });
  });
  after(() => server.close());

  const exportOverHttp = (signal?: AbortSignal) =>
    fetch(new URL("/v1/call/message/bulk", server.url), {
      method: "POST",
      headers: {
        authorization: `Bearer ${TOKEN}`,
        "content-type": "application/json",
      },
      body: JSON.stringify({ call_ids: callIds }),
      ...(signal && { signal }),
    });

  it("gives the slot back when a client goes away mid-download", async () => {
    const abort = new AbortController();
    const first = await exportOverHttp(abort.signal);
    assert.equal(first.status, 200);
    const reader = first.body!.getReader();
    assert.equal((await reader.read()).done, false);
    const refused = await exportOverHttp();
    assert.equal(refused.status, 503);
    assert.equal(refused.headers.get("retry-after"), "1");
    await refused.arrayBuffer();

    // The export would stream for 8 s more; the client leaves instead. The
    // server learns of it a moment later, and a retry is served.
    abort.abort();
    await reader.cancel().catch(() => {});
    const left = performance.now();
    let retry: Response | undefined;
    while (performance.now() - left < 3000) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const response = await exportOverHttp();
      if (response.status === 200) {
        retry = response;
        break;
      }
      assert.equal(response.status, 503);
      await response.arrayBuffer();
    }
    assert.ok(retry, "the slot was still held 3 s after the client left");
    await retry.body!.cancel();
  });
});
