/**
 * Slow downloads on the Postgres store: exports whose clients stop reading,
 * more of them than the pool has connections, hold no connection, so other
 * requests still answer at once, and each export completes whole when its
 * client reads on.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { FixturesInput } from "../src/store/fixtures.ts";
import { createHandler } from "../src/handler.ts";
import { bulkExportRequest, manyCalls } from "./support/many_calls.ts";
import { openHarness, type PostgresHarness } from "./support/postgres_store.ts";
import { readZip } from "./support/zip_reader.ts";

const { project: P, token: TOKEN, call, callIds, ...data } = manyCalls({
  prefix: "5e",
  calls: 60,
  messages: 50,
});
const FLOW = "5e000000-0000-4000-8000-0000000f0001";
const INTEGRATION = "5e000000-0000-4000-8000-0000000e0001";
const fixtures: FixturesInput = {
  ...data.fixtures,
  flows: [{
    flow_id: FLOW,
    project_id: P,
    name: "After each call",
    trigger: { type: "call_ended" },
  }],
  integrations: [{
    integration_id: INTEGRATION,
    project_id: P,
    kind: "http",
    name: "CRM",
    tools: [],
  }],
};
const auth = { authorization: `Bearer ${TOKEN}` };

let harness: PostgresHarness;
before(async () => harness = await openHarness());
after(() => harness.close());

/** Sends `request` and answers its status and how long it took, in ms. */
async function timed(
  handler: (request: Request) => Promise<Response>,
  request: Request,
): Promise<[number, number]> {
  const started = performance.now();
  const response = await handler(request);
  await response.arrayBuffer();
  return [response.status, performance.now() - started];
}

describe("Postgres store: slow readers", () => {
  it("hold no connection: with more stalled exports than connections, others answer within a second", async () => {
    const pool = harness.db.max;
    // Small batches: a stalled export is mid-way, with batches still to read.
    const { store, close } = await harness.freshStore(fixtures, {
      max: pool,
      exportBatchSize: 100,
    });
    try {
      const handler = createHandler({ store });
      const stalled = [];
      for (let i = 0; i < pool + 2; i++) {
        const response = await handler(bulkExportRequest(TOKEN, callIds));
        assert.equal(response.status, 200);
        const reader = response.body!.getReader();
        const first = await reader.read();
        assert.equal(first.done, false);
        stalled.push({ reader, chunks: [first.value!] });
      }

      const answers = [
        await timed(
          handler,
          new Request(`http://api.test/v1/workflow/${FLOW}/trigger/test`, {
            method: "POST",
            headers: auth,
          }),
        ),
        await timed(
          handler,
          new Request(`http://api.test/v1/call/${call(3)}/message`, {
            headers: auth,
          }),
        ),
        await timed(
          handler,
          new Request(`http://api.test/v1/integration/${INTEGRATION}`, {
            method: "DELETE",
            headers: auth,
          }),
        ),
      ];
      assert.deepEqual(answers.map(([status]) => status), [200, 200, 204]);
      for (const [, ms] of answers) {
        assert.ok(ms < 1000, `answered in ${Math.round(ms)} ms`);
      }

      // The stalled clients read on: every archive is whole.
      for (const { reader, chunks } of stalled) {
        for (let next = await reader.read(); !next.done;) {
          chunks.push(next.value);
          next = await reader.read();
        }
        const bytes = new Uint8Array(await new Blob(chunks).arrayBuffer());
        const entries = readZip(bytes);
        assert.equal(entries.length, callIds.length);
        assert.equal(entries.at(-1)!.name, `${callIds.at(-1)}.json`);
        assert.equal(JSON.parse(entries[7]!.text).length, 50);
      }
    } finally {
      await close();
    }
  });
});
