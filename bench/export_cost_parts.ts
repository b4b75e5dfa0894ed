/**
 * Where the export's CPU goes, in process, without HTTP: the bench data's 500
 * calls exported through the handler (as the API's servers deflate, see
 * `server/gzip_pool/mod.ts`) and read to the end, with parts removed
 * one at a time:
 *
 * - `export`: the whole export;
 * - `stored`: deflate at level 0 (`node:zlib`'s stored blocks, their
 *   CRC-32 kept);
 * - `store`: the store's stream alone, drained, no archive.
 *
 * each from `memory` and from `postgres` (a database of its own on
 * `DATABASE_URL`, seeded and dropped here). Prints the process's CPU
 * seconds per export (median of `BENCH_REPEATS`, default 5, after one
 * warm-up), of its main thread (the rest is the runtime's threads: zlib's
 * pool, workers, the collector's helpers) and, from Postgres, the CPU seconds of the database's backends
 * meanwhile (`/proc/<pid>/stat`, so the server must run on this machine).
 * Memory is `bench/export_vs_zip.ts`'s: in process, the seeded data weighs
 * on it. Under `node --cpu-prof` it gives the profile of the same work.
 *
 * Run: `DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node
 * bench/export_cost_parts.ts` (also `deno run -A`, `bun`).
 * `BENCH_PARTS` (default `export,stored,store`) and `BENCH_STORES`
 * (default `memory,postgres`) pick the rows.
 *
 * @module
 */
import process from "node:process";
import { createHandler } from "../src/handler.ts";
import { MemoryStore } from "../src/store/memory_store.ts";
import type { Store } from "../src/store/store.ts";
import { connectPostgres, migrate, PostgresStore } from "../postgres/mod.ts";
import { exportCompression } from "../server/gzip_pool/mod.ts";
import { zlibDeflater } from "../server/gzip_pool/zlib.ts";
import { bulkExportRequest } from "../test/support/many_calls.ts";
import { createTestDatabase } from "../test/support/postgres.ts";
import { benchData } from "./export_data.ts";
import { cpuSeconds, median } from "./hot_path.ts";
import { threadCpuSeconds } from "./proc_cpu.ts";

const REPEATS = Number(process.env.BENCH_REPEATS ?? 5);
const parts = (process.env.BENCH_PARTS ?? "export,stored,store").split(",");
const stores = (process.env.BENCH_STORES ?? "memory,postgres").split(",");
const { token, callIds, project: projectId, fixtures } = benchData();

/** zlib at level 0: stored blocks, their CRC-32 computed. */
const storedDeflater = (outputBytes: number) => zlibDeflater(outputBytes, 0);

/** CPU seconds of the database's backends so far, by pid. */
async function backends(
  admin: ReturnType<typeof connectPostgres> | undefined,
  database: string,
): Promise<Map<number, number>> {
  const seconds = new Map<number, number>();
  if (admin === undefined) return seconds;
  const rows = await admin<{ pid: number }[]>`
    SELECT pid FROM pg_stat_activity WHERE datname = ${database}`;
  for (const { pid } of rows) seconds.set(pid, cpuSeconds(pid));
  return seconds;
}

const db = stores.includes("postgres") ? await createTestDatabase() : undefined;
const admin = db && connectPostgres(process.env.DATABASE_URL!, { max: 1 });
const results: string[] = [];
try {
  for (const storeName of stores) {
    let store: Store;
    if (storeName === "postgres") {
      const sql = connectPostgres(db!.url, { max: 1 });
      await migrate(sql);
      await new PostgresStore(sql).seed(fixtures);
      await sql.end();
      store = new PostgresStore(connectPostgres(db!.url));
    } else {
      const memory = new MemoryStore();
      await memory.seed(fixtures);
      store = memory;
    }
    const database = db === undefined ? "" : new URL(db.url).pathname.slice(1);
    for (const part of parts) {
      const handler = createHandler({
        store,
        exportCompression: part === "stored"
          ? { deflater: storedDeflater, readAheadBytes: 262144 }
          : (await exportCompression()).compression,
      });
      const once = async () => {
        if (part === "store") {
          for await (const _ of store.transcripts(projectId, callIds)) {
            // drained
          }
        } else {
          const response = await handler(bulkExportRequest(token, callIds));
          await response.arrayBuffer();
        }
      };
      await once();
      const cpu: number[] = [];
      const main: number[] = [];
      const pg: number[] = [];
      for (let i = 0; i < REPEATS; i += 1) {
        const pgBefore = storeName === "postgres"
          ? await backends(admin, database)
          : new Map<number, number>();
        const before = cpuSeconds(process.pid);
        const mainBefore = threadCpuSeconds(process.pid, process.pid);
        await once();
        cpu.push(cpuSeconds(process.pid) - before);
        main.push(threadCpuSeconds(process.pid, process.pid) - mainBefore);
        let pgSeconds = 0;
        if (storeName === "postgres") {
          for (const [pid, s] of await backends(admin, database)) {
            pgSeconds += s - (pgBefore.get(pid) ?? 0);
          }
        }
        pg.push(pgSeconds);
      }
      results.push(
        `| ${storeName} | ${part} | ${median(cpu).toFixed(2)} | ${
          median(main).toFixed(2)
        } | ${median(pg).toFixed(2)} |`,
      );
      console.error(results.at(-1));
    }
    if (store instanceof PostgresStore) await store.close();
  }
} finally {
  await admin?.end();
  await db?.drop();
}
console.log(
  "| store | part | process CPU s | main thread CPU s | Postgres CPU s |",
);
console.log("| --- | --- | --- | --- | --- |");
for (const line of results) console.log(line);
process.exit(0);
