/**
 * The store's admission queue in front of its pool (`postgres/admission.ts`):
 * at most the pool's capacity of statements at once, and a statement whose
 * deadline passed while it waited is never sent.
 *
 * @module
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Sql } from "postgres";
import { admit } from "../postgres/admission.ts";
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
  it("frees the places of statements that hang, at their deadlines", async () => {
    const sent: string[] = [];
    // One connection, 3 statements behind the running one: 4 places.
    const { store, close } = await harness.freshStore(apiFixtures, {
      max: 1,
      timeout: 500,
      retryWithin: 0,
      onQuery: (query) => sent.push(query),
    });
    // Four deletes wait for a row lock held elsewhere: the 4 places.
    const lock = await harness.sql.reserve();
    let locked = true;
    const unlock = async () => {
      locked = false;
      await lock`ROLLBACK`;
      lock.release();
    };
    try {
      await lock`BEGIN`;
      await lock`SELECT 1 FROM integrations
        WHERE integration_id = ${INTEGRATIONS.http} FOR UPDATE`;
      // Asked together, they look the integration up first (answered at
      // once), then all four take their places in the turn the answer comes
      // in: once the first DELETE is sent, the places are theirs. (PGlite
      // runs one statement at a time: there the lookup waits behind the
      // lock, holding one place, and the lookup below times out all the
      // same.)
      const seeding = sent.length;
      const deletes = [1, 2, 3, 4].map(() =>
        store.deleteIntegration(PROJECT, INTEGRATIONS.http).catch((e) => e)
      );
      const waiting = () =>
        harness.db.kind === "server"
          ? !sent.slice(seeding).some((q) => /DELETE FROM integr/.test(q))
          : sent.length === seeding;
      for (let waited = 0; waiting() && waited < 5000; waited += 10) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      assert.ok(!waiting());
      // Asked half a deadline after the deletes: theirs pass well before its
      // own, even on a loaded machine whose timers fire late and back to
      // back (asked at once, its deadline could come before its admission).
      await new Promise((resolve) => setTimeout(resolve, 250));
      await assert.rejects(
        store.findFlow(PROJECT, FLOWS.webhook),
        PostgresTimeoutError,
      );
      await unlock();
      await Promise.all(deletes);
      await new Promise((resolve) => setTimeout(resolve, 100));
      // The lookup was admitted when the deletes gave their places up at
      // their deadlines (before its own), so it went to the pool: held, the
      // places would have kept it out until the lock was released.
      const flowLookups = () => sent.filter((q) => /FROM flows/.test(q));
      assert.equal(flowLookups().length, 1);
      const flow = await store.findFlow(PROJECT, FLOWS.webhook);
      assert.equal(flow?.flowId, FLOWS.webhook);
      assert.equal(flowLookups().length, 2);
    } finally {
      if (locked) await unlock().catch(() => {});
      await close();
    }
  });

  it("frees the place of a statement that never settles once its caller gives up", async () => {
    // Two places; two statements that hang hold both.
    const pool = { options: { max: 1, max_pipeline: 1 } } as unknown as Sql;
    const hang = () => {
      const caller = new AbortController();
      const answer = admit(
        pool,
        () => new Promise<never>(() => {}),
        caller.signal,
      );
      return { caller, answer };
    };
    const first = hang();
    const second = hang();
    let sent = false;
    const next = admit(pool, () => {
      sent = true;
      return Promise.resolve("answered");
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(sent, false, "admitted beyond the capacity");
    first.caller.abort(new PostgresTimeoutError(500));
    await assert.rejects(first.answer, PostgresTimeoutError);
    assert.equal(await next, "answered");
    second.caller.abort(new PostgresTimeoutError(500));
    await assert.rejects(second.answer, PostgresTimeoutError);
  });

  it("never sends a statement whose caller gave up before its turn", async () => {
    const pool = { options: { max: 1, max_pipeline: 0 } } as unknown as Sql;
    let release = () => {};
    const running = admit(
      pool,
      () => new Promise<void>((done) => release = done),
    );
    const caller = new AbortController();
    let sent = false;
    const late = admit(pool, () => {
      sent = true;
      return Promise.resolve();
    }, caller.signal);
    caller.abort(new PostgresTimeoutError(500));
    // p-limit starts an admitted work on a later tick.
    await new Promise((resolve) => setTimeout(resolve, 10));
    release();
    await running;
    await assert.rejects(late, PostgresTimeoutError);
    assert.equal(sent, false);
  });
});
