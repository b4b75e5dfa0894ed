/**
 * The server with `DATABASE_READ_URL` on a real streaming replica, built by
 * the test (its own primary cluster, `pg_basebackup -R`, a second
 * `postgres`): exports, lookups, authentication and trigger tests read from
 * the replica (its `pg_stat_database` counts grow, the primary's
 * `call_messages` is never scanned), deletes go to the primary; while replay
 * is paused, reads show what the replica has replayed; with the replica
 * stopped, every read is answered from the primary and `/readyz` says
 * `degraded`, until the replica is back. Runs where DATABASE_URL is set (a
 * machine with a real server, as CI), and needs PostgreSQL 15's programs in
 * /usr/lib/postgresql/15/bin there.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import process from "node:process";
import { after, before, describe, it } from "node:test";
import postgres from "postgres";
import { openPostgresStore } from "../postgres/mod.ts";
import { runtimeName } from "../server/runtimes/mod.ts";
import {
  MIXED_LOAD_SERVER_ENV,
  mixedLoadData,
  runMixedLoad,
} from "./support/mixed_load.ts";
import { assertMatchesOpenApi } from "./support/openapi_check.ts";
import {
  PG_BIN,
  type ReplicaCluster,
  startReplicaCluster,
} from "./support/replica_cluster.ts";
import { type StartedServer, startServerMain } from "./support/server_main.ts";
import { readZip } from "./support/zip_reader.ts";

const DATABASE = "app";
/** A project per test, so that each starts from the fixtures. */
const sets = {
  load: mixedLoadData("c3", { calls: 12, integrations: 300 }),
  lag: mixedLoadData("c4", { calls: 12, integrations: 1 }),
  fallback: mixedLoadData("c5", { calls: 12, integrations: 300 }),
};
type Data = typeof sets.load;

/** What a server has counted for the app database, read on that server. */
async function counters(url: string) {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql<
      [{ commits: number; scans: number; reads: number }]
    >`
      SELECT
        (SELECT xact_commit::int FROM pg_stat_database
          WHERE datname = current_database()) AS commits,
        (SELECT (coalesce(idx_scan, 0) + coalesce(seq_scan, 0))::int
          FROM pg_stat_user_tables WHERE relname = 'call_messages') AS scans,
        (SELECT sum(coalesce(idx_scan, 0) + coalesce(seq_scan, 0))::int
          FROM pg_stat_user_tables) AS reads`;
    return row;
  } finally {
    await sql.end();
  }
}

/**
 * The counters once the backends of a stopped server have flushed their
 * statistics (PostgreSQL writes a backend's at most once a second): read
 * until two reads a second apart differ by no more than the reads' own
 * transaction.
 */
async function settledCounters(url: string) {
  let last = await counters(url);
  for (let tries = 0; tries < 5; tries += 1) {
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const next = await counters(url);
    const settled = next.commits - last.commits <= 1;
    last = next;
    if (settled) break;
  }
  return last;
}

async function readyz(base: string): Promise<Record<string, unknown>> {
  const response = await fetch(new URL("/readyz", base));
  assert.equal(response.status, 200);
  await assertMatchesOpenApi("get", "/readyz", response.clone());
  return await response.json();
}

function get(
  data: Data,
  base: string,
  path: string,
  init: RequestInit = {},
) {
  return fetch(new URL(path, base), {
    ...init,
    headers: { authorization: `Bearer ${data.token}`, ...init.headers },
  });
}

async function exportedCalls(data: Data, base: string): Promise<string[]> {
  const response = await get(data, base, "/v1/call/message/bulk", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ call_ids: data.callIds }),
  });
  assert.equal(response.status, 200);
  const entries = readZip(new Uint8Array(await response.arrayBuffer()));
  return entries.map((entry) => entry.name.replace(/\.json$/, ""));
}

describe("Postgres with a streaming read replica", {
  skip: !process.env.DATABASE_URL &&
    "needs DATABASE_URL: a machine with PostgreSQL 15 installed",
}, () => {
  let cluster: ReplicaCluster;
  let primaryUrl: string;
  let replicaUrl: string;
  let started: StartedServer | undefined;

  /** Starts server/main.ts on the primary and the replica. */
  async function startServer(): Promise<string> {
    // No FIXTURES: on Postgres, the server seeds nothing.
    started = startServerMain({
      ...MIXED_LOAD_SERVER_ENV,
      DATABASE_URL: primaryUrl,
      DATABASE_READ_URL: replicaUrl,
    });
    return await started.url;
  }

  async function stopServer(): Promise<string> {
    const output = started?.server.output ?? "";
    await started?.server.stop();
    started = undefined;
    return output;
  }

  before(async () => {
    assert.ok(existsSync(PG_BIN), `${PG_BIN} is missing: PostgreSQL 15`);
    cluster = await startReplicaCluster();
    const admin = postgres(cluster.primary.url("postgres"), { max: 1 });
    await admin.unsafe(`CREATE DATABASE ${DATABASE}`);
    await admin.end();
    primaryUrl = cluster.primary.url(DATABASE);
    replicaUrl = cluster.replica.url(DATABASE);
    // Seeded ahead, so that the server's start writes nothing that the
    // primary's counters could show later.
    const store = await openPostgresStore(primaryUrl, { max: 1 });
    for (const data of Object.values(sets)) await store.seed(data.fixtures);
    await store.close();
  });
  after(async () => {
    await stopServer();
    await cluster?.destroy();
  });

  it(`reads from the replica and deletes on the primary (${runtimeName()})`, async () => {
    const data = sets.load;
    const base = await startServer();
    await cluster.caughtUp();
    assert.deepEqual(await readyz(base), { status: "ok" });
    const primaryBefore = await counters(primaryUrl);
    const replicaBefore = await counters(replicaUrl);
    const result = await runMixedLoad(base, data, { clients: 6, ms: 4000 });
    assert.deepEqual(result.unexpected, []);
    // Stopped, the server's connections end and their statistics are
    // written (a busy backend writes them at most once a second).
    await stopServer();
    const primaryAfter = await counters(primaryUrl);
    const replicaAfter = await settledCounters(replicaUrl);
    const requests = Object.values(result.counts).reduce((a, b) => a + b, 0);
    const deletes = (result.counts["delete"] ?? 0) +
      (result.counts["delete again"] ?? 0);
    console.log(
      `${JSON.stringify(result.counts)}; replica: +${
        replicaAfter.reads - replicaBefore.reads
      } table scans; primary: +${
        primaryAfter.commits - primaryBefore.commits
      } commits`,
    );
    assert.ok((result.counts["export"] ?? 0) >= 2);
    // Every request but a delete reads on the replica (its token too, when
    // its grant was not read in the last second); exports read there.
    // Counted in table scans: statements pipelined on one connection share
    // one transaction, so commits undercount them.
    const replicaReads = replicaAfter.reads - replicaBefore.reads;
    assert.ok(
      replicaReads >= requests - deletes,
      `${replicaReads} < ${requests - deletes}`,
    );
    assert.ok(
      replicaAfter.scans - replicaBefore.scans >= result.counts["export"]!,
    );
    // The primary served the deletes, and not one read of a message: each
    // delete that deleted committed a DELETE of its own there, and the
    // deletes asked in one turn a lookup each turn besides.
    assert.equal(primaryAfter.scans, primaryBefore.scans);
    const primaryCommits = primaryAfter.commits - primaryBefore.commits;
    const deleted = result.counts["delete"] ?? 0;
    assert.ok(primaryCommits >= deleted, `${primaryCommits} < ${deleted}`);
    assert.ok(primaryCommits < 2 * deletes + 20, `${primaryCommits} commits`);
    const primary = postgres(primaryUrl, { max: 1 });
    const [{ left }] = await primary<[{ left: number }]>`
      SELECT count(*)::int AS left FROM integrations
      WHERE integration_id = ANY(${data.integrationIds}::uuid[])`;
    await primary.end();
    assert.equal(left, Math.max(0, data.integrationIds.length - deletes));
  });

  it("shows the replica's view while its replay lags: deletes stay exact", async () => {
    const data = sets.lag;
    const base = await startServer();
    const primary = postgres(primaryUrl, { max: 1 });
    const replica = postgres(replicaUrl, { max: 1 });
    const gone = data.callIds[3]!;
    try {
      await cluster.caughtUp();
      await replica`SELECT pg_wal_replay_pause()`;
      // Another writer deletes a call on the primary...
      await primary`DELETE FROM calls WHERE call_id = ${gone}`;
      // ...which exports and lookups still show until the replica replays
      // it.
      assert.ok((await exportedCalls(data, base)).includes(gone));
      assert.equal(
        (await get(data, base, `/v1/call/${gone}/message`)).status,
        200,
      );
      // A delete is answered by the primary: exactly once, at once.
      const integration = data.integrationIds.at(-1)!;
      const path = `/v1/integration/${integration}`;
      assert.equal(
        (await get(data, base, path, { method: "DELETE" })).status,
        204,
      );
      assert.equal(
        (await get(data, base, path, { method: "DELETE" })).status,
        404,
      );
      await replica`SELECT pg_wal_replay_resume()`;
      await cluster.caughtUp();
      assert.ok(!(await exportedCalls(data, base)).includes(gone));
      assert.equal(
        (await get(data, base, `/v1/call/${gone}/message`)).status,
        404,
      );
    } finally {
      await replica`SELECT pg_wal_replay_resume()`.catch(() => {});
      await primary.end();
      await replica.end();
      await stopServer();
    }
  });

  it("reads from the primary while the replica is down, readyz says so, then goes back", async () => {
    const data = sets.fallback;
    const base = await startServer();
    try {
      assert.deepEqual(await readyz(base), { status: "ok" });
      await cluster.replica.stop();
      const result = await runMixedLoad(base, data, { clients: 6, ms: 3000 });
      assert.deepEqual(result.unexpected, []);
      assert.ok((result.counts["export"] ?? 0) >= 2);
      const degraded = await readyz(base);
      assert.equal(degraded.status, "degraded");
      assert.match(
        String(degraded.detail),
        /^The read replica cannot be reached \(.+\): reading from the primary$/,
      );
      assert.match(started!.server.stderr, /read replica cannot be reached/);

      await cluster.replica.start();
      const deadline = Date.now() + 15_000;
      while ((await readyz(base)).status !== "ok") {
        assert.ok(Date.now() < deadline, "readyz still degraded");
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      assert.match(started!.server.stderr, /read replica answers again/);
      const replicaBefore = await counters(replicaUrl);
      assert.equal(
        (await exportedCalls(data, base)).length,
        data.callIds.length,
      );
      await stopServer();
      const replicaAfter = await counters(replicaUrl);
      assert.ok(replicaAfter.scans > replicaBefore.scans);
    } finally {
      await stopServer();
    }
  });
});
