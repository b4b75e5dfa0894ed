/**
 * What `SET LOCAL statement_timeout` would cost a single-statement read:
 * the token lookup as the store sends it, against the same lookup wrapped in
 * `sql.begin` with a `set_config(..., true)` first (BEGIN, the setting and
 * the query pipelined, COMMIT), directly and through a real PgBouncer in
 * transaction mode. 8 concurrent callers on a pool of 4, rounds in
 * alternating order; medians of wall and client CPU time per lookup.
 *
 * ```sh
 * DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node bench/set_local_cost.ts
 * ```
 *
 * @module
 */
import process from "node:process";
import type { Sql } from "postgres";
import { connectPostgres, migrate } from "../postgres/mod.ts";
import { startPgBouncer } from "../test/support/pgbouncer.ts";
import { createTestDatabase } from "../test/support/postgres.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const LOOKUPS = Number(process.env.BENCH_LOOKUPS ?? 2000);
const CALLERS = 8;
const HASH = "0".repeat(64);

type Way = "bare" | "SET LOCAL";

const lookups: Record<Way, (sql: Sql) => Promise<unknown>> = {
  bare: (sql) =>
    sql`SELECT project_id, role FROM tokens WHERE token_hash = ${HASH}`,
  "SET LOCAL": (sql) =>
    sql.begin((tx) => [
      tx`SELECT set_config('statement_timeout', '30000ms', true)`,
      tx`SELECT project_id, role FROM tokens WHERE token_hash = ${HASH}`,
    ]),
};

/** Wall and client CPU µs per lookup, `LOOKUPS` lookups by `CALLERS`. */
async function measure(sql: Sql, way: Way): Promise<[number, number]> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  let sent = 0;
  await Promise.all(
    Array.from({ length: CALLERS }, async () => {
      while (sent++ < LOOKUPS) await lookups[way](sql);
    }),
  );
  const used = process.cpuUsage(cpu);
  return [
    (performance.now() - started) * 1000 / LOOKUPS,
    (used.user + used.system) / LOOKUPS,
  ];
}

const median = (values: number[]) =>
  values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const db = await createTestDatabase();
const bouncer = await startPgBouncer(db);
const routes = { direct: db.url, PgBouncer: bouncer.url };
try {
  const migrating = connectPostgres(db.url, { max: 1 });
  await migrate(migrating);
  await migrating.end();
  console.log(
    "| route | bare µs/lookup | SET LOCAL µs/lookup | ratio | bare client CPU µs | SET LOCAL client CPU µs | ratio |",
  );
  console.log("| --- | --- | --- | --- | --- | --- | --- |");
  for (const [route, url] of Object.entries(routes)) {
    const sql = connectPostgres(url, { max: 4 });
    const results: Record<Way, [number[], number[]]> = {
      bare: [[], []],
      "SET LOCAL": [[], []],
    };
    await measure(sql, "bare"); // warm-up: connections open
    for (let round = 0; round < ROUNDS; round++) {
      const order: Way[] = round % 2
        ? ["SET LOCAL", "bare"]
        : ["bare", "SET LOCAL"];
      for (const way of order) {
        const [wall, cpu] = await measure(sql, way);
        results[way][0].push(wall);
        results[way][1].push(cpu);
      }
    }
    await sql.end();
    const [bareWall, bareCpu] = results.bare.map(median) as [number, number];
    const [setWall, setCpu] = results["SET LOCAL"].map(median) as [
      number,
      number,
    ];
    console.log(
      `| ${route} | ${bareWall.toFixed(0)} | ${setWall.toFixed(0)} | ${
        (setWall / bareWall).toFixed(2)
      }x | ${bareCpu.toFixed(0)} | ${setCpu.toFixed(0)} | ${
        (setCpu / bareCpu).toFixed(2)
      }x |`,
    );
  }
} finally {
  await bouncer.stop();
  await db.drop();
}
