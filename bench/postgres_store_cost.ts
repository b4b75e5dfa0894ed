/**
 * What the store adds to postgres.js, per lookup, without HTTP:
 * `BENCH_CALLERS` (default 50) concurrent callers looking a workflow up,
 * `BENCH_LOOKUPS` (default 20000) lookups a round, through the bare pool
 * (`connectPostgres` with `watchedSockets`, as `openPostgresStore` opens it)
 * and through `PostgresStore.findFlow` on a pool of its own, each pool of 10,
 * in one process, the order reversed every other round. Printed: this
 * process's CPU µs per lookup, each round and the median. A pool opened with
 * postgres.js's default `max_pipeline` (100) gets dearer round after round
 * while it stays saturated (its connection queue's `remove` scans a hole for
 * every statement pipelined since, see docs/postgres-js.md). Both pools here
 * are opened by `connectPostgres` (`max_pipeline` 3): saturated, the bare
 * pool's connections stay full and it gets no dearer; its statements beyond
 * its capacity wait in postgres.js's own queue (a hole each, in memory).
 *
 * `findFlow` sends the lookups asked in one turn of the event loop as one
 * statement (`BatchedLookups`): with several callers the store sends fewer
 * statements than lookups, as a server under load does, and its statements
 * beyond the pool's capacity would wait in its admission queue (`admit`).
 * `BENCH_CALLERS=10`: no more callers than connections, nothing pipelined,
 * no growth; `BENCH_CALLERS=1`: one lookup at a time, one statement each
 * way, what the store adds to a statement. `BENCH_BASELINE=<another
 * checkout>` adds that checkout's `PostgresStore` (`before`), on a pool of
 * its own.
 *
 * Run: `DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node
 * bench/postgres_store_cost.ts` (a role that may create databases; the
 * database it makes is dropped at the end).
 *
 * @module
 */
import { join } from "node:path";
import process from "node:process";
import postgres from "postgres";
import { connectPostgres } from "../postgres/connect.ts";
import { migrate } from "../postgres/migrate.ts";
import { PostgresStore } from "../postgres/postgres_store.ts";
import { watchedSockets } from "../postgres/silent_peer.ts";
import { apiFixtures, FLOWS, PROJECT } from "../test/support/api_fixtures.ts";

const LOOKUPS = Number(process.env.BENCH_LOOKUPS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const CALLERS = Number(process.env.BENCH_CALLERS ?? 50);
const BASELINE = process.env.BENCH_BASELINE;
const SERVER_URL = process.env.DATABASE_URL;
if (!SERVER_URL) throw new Error("Cannot run: DATABASE_URL is not set");

const admin = postgres(SERVER_URL, { max: 1, onnotice() {} });
const name = `bench_store_${process.pid}`;
await admin.unsafe(`CREATE DATABASE ${name}`);
const url = new URL(SERVER_URL);
url.pathname = `/${name}`;
const pool = () => connectPostgres(url.href, { socket: watchedSockets(3000) });

const bare = pool();
const store = new PostgresStore(pool());
const before = BASELINE === undefined ? undefined : new (
  (await import(join(BASELINE, "postgres/postgres_store.ts"))) as {
    PostgresStore: typeof PostgresStore;
  }
).PostgresStore(pool());
const flow = FLOWS.webhook;
const ways: Record<string, () => Promise<unknown>> = {
  pool: () =>
    bare`SELECT name, trigger FROM flows
      WHERE project_id = ${PROJECT} AND flow_id = ${flow}`,
  store: () => store.findFlow(PROJECT, flow),
  ...(before && { before: () => before.findFlow(PROJECT, flow) }),
};

const median = (values: number[]) =>
  values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** CPU µs of this process per lookup, `CALLERS` callers at once. */
async function cpuPerLookup(lookup: () => Promise<unknown>, count: number) {
  let left = count;
  const started = process.cpuUsage();
  await Promise.all(
    Array.from({ length: CALLERS }, async () => {
      while (left-- > 0) await lookup();
    }),
  );
  const { user, system } = process.cpuUsage(started);
  return (user + system) / count;
}

const figures: Record<string, number[]> = {};
try {
  await migrate(bare);
  await store.seed(apiFixtures);
  for (const lookup of Object.values(ways)) await cpuPerLookup(lookup, 2000);
  const names = Object.keys(ways);
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const way of round % 2 === 0 ? names : names.toReversed()) {
      (figures[way] ??= []).push(await cpuPerLookup(ways[way]!, LOOKUPS));
    }
  }
} finally {
  await Promise.all([bare.end(), store.close(), before?.close()]);
  await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.end();
}
console.log(
  `${CALLERS} callers, ${LOOKUPS} lookups a round, ${ROUNDS} rounds; CPU µs per lookup`,
);
console.log("| way | each round | median |");
console.log("| --- | --- | --- |");
for (const [way, values] of Object.entries(figures)) {
  console.log(
    `| ${way} | ${values.map((value) => value.toFixed(1)).join(", ")} | ${
      median(values).toFixed(1)
    } |`,
  );
}
