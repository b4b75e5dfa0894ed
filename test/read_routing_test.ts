/**
 * ReadRouting without a database: which pool each read goes to, what counts
 * as an unreachable replica, and how it comes back. (The real replica, its
 * statistics and `/readyz` are in postgres_replica_test.ts.)
 *
 * @module
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Sql } from "postgres";
import { ReadRouting } from "../postgres/read_routing.ts";

/** A pool that only tells its name; `probe` answers its `SELECT 1`. */
function fakePool(
  name: string,
  probe: () => Promise<unknown> = () => Promise.resolve([]),
) {
  const pool = (() => probe()) as unknown as Sql;
  return Object.assign(pool, { poolName: name });
}

const nameOf = (sql: Sql) => (sql as unknown as { poolName: string }).poolName;

/** A failure as postgres.js or Node reports it, with `code`. */
const failure = (code: string) =>
  Object.assign(new Error(`failed: ${code}`), { code });

/** A read on `replica` that fails with `error`, on the primary answers. */
const readFailingOnReplica = (error: Error) => (sql: Sql) =>
  nameOf(sql) === "replica"
    ? Promise.reject(error)
    : Promise.resolve(nameOf(sql));

/** A read that answers with the name of the pool it ran on. */
const where = (sql: Sql) => Promise.resolve(nameOf(sql));

describe("ReadRouting", () => {
  it("reads from the primary when there is no replica, never degraded", async () => {
    const routing = new ReadRouting(fakePool("primary"), undefined);
    assert.equal(await routing.read(where), "primary");
    assert.equal(await routing.check(10), undefined);
  });

  it("reads from the replica while it answers", async () => {
    const routing = new ReadRouting(fakePool("primary"), fakePool("replica"));
    assert.equal(await routing.read(where), "replica");
    assert.equal(routing.degraded, undefined);
  });

  for (
    const code of [
      "ECONNREFUSED",
      "ECONNRESET",
      "CONNECT_TIMEOUT",
      "CONNECTION_CLOSED",
      "08006",
      "57P01",
      "57P03",
      "53300",
      "28P01",
    ]
  ) {
    it(`falls back to the primary on ${code}, and stays there`, async () => {
      const changes: (string | undefined)[] = [];
      const routing = new ReadRouting(
        fakePool("primary"),
        fakePool("replica", () => Promise.reject(failure(code))),
        {
          onReplicaChange: (note) => changes.push(note),
          replicaProbeInterval: 60_000,
        },
      );
      const read = readFailingOnReplica(failure(code));
      assert.equal(await routing.read(read), "primary");
      assert.match(
        routing.degraded!,
        new RegExp(`^The read replica cannot be reached \\(${code}\\)`),
      );
      let replicaReads = 0;
      assert.equal(
        await routing.read((sql) => {
          if (nameOf(sql) === "replica") replicaReads++;
          return where(sql);
        }),
        "primary",
      );
      assert.equal(replicaReads, 0);
      assert.equal(changes.length, 1);
    });
  }

  it("throws a query's own error, and keeps the replica", async () => {
    const routing = new ReadRouting(fakePool("primary"), fakePool("replica"));
    const error = failure("42P01");
    await assert.rejects(routing.read(readFailingOnReplica(error)), error);
    assert.equal(routing.degraded, undefined);
    await assert.rejects(
      routing.read(readFailingOnReplica(new TypeError("a bug"))),
      TypeError,
    );
    assert.equal(routing.degraded, undefined);
  });

  it("reads again on the primary after a recovery conflict, keeping the replica", async () => {
    const routing = new ReadRouting(fakePool("primary"), fakePool("replica"));
    assert.equal(
      await routing.read(readFailingOnReplica(failure("40001"))),
      "primary",
    );
    assert.equal(routing.degraded, undefined);
  });

  it("goes back to the replica once a background probe finds it answering", async () => {
    let up = false;
    const changes: (string | undefined)[] = [];
    const routing = new ReadRouting(
      fakePool("primary"),
      fakePool(
        "replica",
        () =>
          up ? Promise.resolve([]) : Promise.reject(failure("ECONNREFUSED")),
      ),
      {
        replicaProbeInterval: 20,
        onReplicaChange: (note) => changes.push(note),
      },
    );
    assert.equal(await routing.check(100), routing.degraded);
    assert.notEqual(routing.degraded, undefined);
    up = true;
    assert.equal(await routing.read(where), "primary"); // probe not yet due
    await new Promise((resolve) => setTimeout(resolve, 30));
    assert.equal(await routing.read(where), "primary"); // starts the probe
    await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(await routing.read(where), "replica");
    assert.equal(changes.length, 2);
    assert.equal(changes[1], undefined);
  });

  it("answers check() within its patience while the probe is slow", async () => {
    const slow = () =>
      new Promise((_, reject) =>
        setTimeout(() => reject(failure("ETIMEDOUT")), 300)
      );
    const routing = new ReadRouting(
      fakePool("primary"),
      fakePool("replica", slow),
    );
    const started = performance.now();
    assert.equal(await routing.check(50), undefined);
    assert.ok(performance.now() - started < 250);
    // The probe goes on, and settles the state when it ends.
    await new Promise((resolve) => setTimeout(resolve, 400));
    assert.match(routing.degraded!, /\(ETIMEDOUT\)/);
  });
});
