/**
 * The store's admission queue in front of its pool (`postgres/admission.ts`):
 * at most the pool's capacity of statements at once, and a statement whose
 * deadline passed while it waited is never sent.
 *
 * @module
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { PostgresTimeoutError } from "../postgres/deadline.ts";
import {
  apiFixtures,
  FLOWS,
  INTEGRATIONS,
  PROJECT,
} from "./support/api_fixtures.ts";
import { openHarness, type PostgresHarness } from "./support/postgres_store.ts";

let harness: PostgresHarness;
before(async () => harness = await openHarness());
after(() => harness.close());

describe("The store's admission queue", () => {
  it("never sends a statement whose deadline passed while it waited", async () => {
    const sent: string[] = [];
    // One connection, 3 statements behind the running one: 4 places.
    const { store, close } = await harness.freshStore(apiFixtures, {
      max: 1,
      timeout: 500,
      retryWithin: 0,
      onQuery: (query) => sent.push(query),
    });
    try {
      // Four deletes wait for a row lock held elsewhere: the 4 places.
      const lock = await harness.sql.reserve();
      await lock`BEGIN`;
      await lock`SELECT 1 FROM integrations
        WHERE integration_id = ${INTEGRATIONS.http} FOR UPDATE`;
      const deletes = [1, 2, 3, 4].map(() =>
        store.deleteIntegration(PROJECT, INTEGRATIONS.http).catch((e) => e)
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
      await assert.rejects(
        store.findFlow(PROJECT, FLOWS.webhook),
        PostgresTimeoutError,
      );
      await lock`ROLLBACK`;
      lock.release();
      await Promise.all(deletes);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const flowLookups = () => sent.filter((q) => /FROM flows/.test(q));
      assert.equal(flowLookups().length, 0);
      const flow = await store.findFlow(PROJECT, FLOWS.webhook);
      assert.equal(flow?.flowId, FLOWS.webhook);
      assert.equal(flowLookups().length, 1);
    } finally {
      await close();
    }
  });
});
