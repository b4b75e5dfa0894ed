/**
 * `BatchedLookups`: the keys of one turn of the event loop in one call, at
 * most `maxBatch` a call, and a failure (thrown or rejected) for each caller
 * of its batch only.
 *
 * @module
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setImmediate } from "node:timers";
import { BatchedLookups } from "../postgres/batched_lookups.ts";

describe("BatchedLookups", () => {
  it("looks up at most maxBatch keys a call, in the order asked", async () => {
    const calls: number[][] = [];
    const lookups = new BatchedLookups<number, number>((keys) => {
      calls.push([...keys]);
      return Promise.resolve(keys.map((key) => key * 2));
    }, 100);
    const keys = Array.from({ length: 250 }, (_, i) => i);
    assert.deepEqual(
      await Promise.all(keys.map((key) => lookups.get(key))),
      keys.map((key) => key * 2),
    );
    assert.deepEqual(calls.map((call) => call.length), [100, 100, 50]);
    assert.deepEqual(calls.flat(), keys);
  });

  it("starts a new batch for the keys asked in a later turn", async () => {
    const calls: string[][] = [];
    const lookups = new BatchedLookups<string, string>((keys) => {
      calls.push([...keys]);
      return Promise.resolve([...keys]);
    });
    const first = [lookups.get("a"), lookups.get("b")];
    await new Promise((resolve) => setImmediate(resolve));
    const second = lookups.get("c");
    assert.deepEqual(await Promise.all([...first, second]), ["a", "b", "c"]);
    assert.deepEqual(calls, [["a", "b"], ["c"]]);
  });

  it("fails the callers of a batch whose lookup throws, not the next batch", async () => {
    let calls = 0;
    const lookups = new BatchedLookups<string, string>((keys) => {
      calls += 1;
      if (calls === 1) throw new Error("refused");
      return Promise.resolve([...keys]);
    });
    const failed = await Promise.allSettled([
      lookups.get("a"),
      lookups.get("b"),
    ]);
    assert.deepEqual(failed.map((result) => result.status), [
      "rejected",
      "rejected",
    ]);
    assert.equal(await lookups.get("c"), "c");
  });
});
