/**
 * The bulk export's cost: queries per export and peak memory for 500 calls of
 * 200 messages each, streamed through the handler into a ZIP, from Postgres
 * and, for comparison, from memory.
 *
 * Run: `npm run bench:export` (or `npx node bench/bulk_export.ts`); set
 * `BENCH_MESSAGES` for another transcript length. Uses the server
 * of `DATABASE_URL` when set (in a database of its own, dropped at the end),
 * an embedded PGlite otherwise. Each store is measured in a child process of
 * its own, so one measurement's garbage does not weigh on the other; the
 * Postgres child holds no data but what it streams (PGlite, when used, runs in
 * the parent).
 *
 * @module
 */
import { spawn } from "node:child_process";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { createHandler } from "../src/handler.ts";
import { MemoryStore } from "../src/store/memory_store.ts";
import { connectPostgres, migrate, PostgresStore } from "../postgres/mod.ts";
import type { Store } from "../src/store/store.ts";
import { bulkExportRequest } from "../test/support/many_calls.ts";
import { createTestDatabase } from "../test/support/postgres.ts";
import { benchData, CALLS, MESSAGES } from "./export_data.ts";

/** What one child measures. */
interface Measurement {
  store: string;
  queries: number | null;
  status: number;
  zipBytes: number;
  seconds: number;
  baselineRssMiB: number;
  peakRssMiB: number;
  baselineHeapMiB: number;
  peakHeapMiB: number;
}

const MiB = 1024 * 1024;
const round = (bytes: number) => Math.round(bytes / MiB * 10) / 10;

/** Exports every call through the handler, reading the ZIP as a client. */
async function measure(
  name: string,
  store: Store,
  countQueries: () => number,
): Promise<Measurement> {
  const handler = createHandler({ store, logError: console.error });
  const { token, callIds } = benchData(0);
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const baseline = process.memoryUsage();
  const peak = { rss: baseline.rss, heap: baseline.heapUsed };
  const sample = () => {
    const usage = process.memoryUsage();
    peak.rss = Math.max(peak.rss, usage.rss);
    peak.heap = Math.max(peak.heap, usage.heapUsed);
  };
  const sampler = setInterval(sample, 5);
  const queriesBefore = countQueries();
  const started = performance.now();
  const response = await handler(bulkExportRequest(token, callIds));
  let zipBytes = 0;
  for await (const chunk of response.body!) {
    zipBytes += chunk.byteLength;
    sample();
  }
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  return {
    store: name,
    queries: countQueries() - queriesBefore,
    status: response.status,
    zipBytes,
    seconds: Math.round(seconds * 100) / 100,
    baselineRssMiB: round(baseline.rss),
    peakRssMiB: round(peak.rss),
    baselineHeapMiB: round(baseline.heapUsed),
    peakHeapMiB: round(peak.heap),
  };
}

async function child(scenario: string): Promise<Measurement> {
  if (scenario === "memory") {
    const store = new MemoryStore();
    await store.seed(benchData().fixtures);
    const result = await measure("MemoryStore", store, () => 0);
    return { ...result, queries: null };
  }
  let queries = 0;
  const sql = connectPostgres(process.env.BENCH_DATABASE_URL!, {
    max: Number(process.env.BENCH_POOL_SIZE),
    onQuery: () => queries += 1,
  });
  const store = new PostgresStore(sql);
  await store.findGrant("warm-up: open the connection first");
  const result = await measure(
    `PostgresStore (${process.env.BENCH_BACKEND})`,
    store,
    () => queries,
  );
  await store.close();
  return result;
}

function runChild(
  scenario: string,
  env: Record<string, string>,
): Promise<Measurement> {
  const script = fileURLToPath(import.meta.url);
  const proc = spawn(
    process.execPath,
    ["--expose-gc", script, "--child", scenario],
    {
      stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env, ...env },
    },
  );
  let output = "";
  proc.stdout.on("data", (data: Uint8Array) => output += data);
  return new Promise((resolve, reject) => {
    proc.on("error", reject);
    proc.on("close", (code: number | null) => {
      if (code !== 0) {
        reject(new Error(`Bench child ${scenario}: exit ${code}`));
      } else resolve(JSON.parse(output.trim().split("\n").at(-1)!));
    });
  });
}

async function main(): Promise<void> {
  const db = await createTestDatabase();
  try {
    const sql = connectPostgres(db.url, { max: 1 });
    await migrate(sql);
    const seeding = performance.now();
    await new PostgresStore(sql).seed(benchData().fixtures);
    console.error(
      `Seeded ${CALLS} calls × ${MESSAGES} messages into ${db.kind} in ${
        ((performance.now() - seeding) / 1000).toFixed(1)
      } s`,
    );
    await sql.end();
    const results = [
      await runChild("postgres", {
        BENCH_DATABASE_URL: db.url,
        BENCH_POOL_SIZE: String(db.max),
        BENCH_BACKEND: db.kind === "server" ? "PostgreSQL server" : "PGlite",
      }),
      await runChild("memory", {}),
    ];
    console.log(
      `Bulk export of ${CALLS} calls × ${MESSAGES} messages (${process.version})`,
    );
    console.table(results.map((result) => ({
      store: result.store,
      "queries/export": result.queries ?? "-",
      status: result.status,
      "zip MiB": round(result.zipBytes),
      seconds: result.seconds,
      "RSS before→peak MiB": `${result.baselineRssMiB} → ${result.peakRssMiB}`,
      "heap before→peak MiB":
        `${result.baselineHeapMiB} → ${result.peakHeapMiB}`,
    })));
  } finally {
    await db.drop();
  }
}

if (process.argv[2] === "--child") {
  console.log(JSON.stringify(await child(process.argv[3]!)));
} else {
  await main();
}
