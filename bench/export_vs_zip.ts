/**
 * The bulk export end to end over HTTP against Info-ZIP, every figure of the
 * export goals in one run: per runtime and store, the wall time of `curl`
 * reading the ZIP of 500 calls and the server's CPU seconds for it (from
 * `/proc/<pid>/stat`), over the wall time and CPU seconds of
 * `zip -q -6 -r` on the same 500 files (unpacked from the server's first
 * archive), in alternating order round by round; the archives' bytes; and the
 * server's peak RSS growth over its idle RSS during single exports and
 * during 8 exports at once. From PostgreSQL, also the CPU seconds of the
 * Postgres backends serving the export (`/proc/<pid>/stat` of the bench
 * database's backends in `pg_stat_activity`, so the server must run on this
 * machine). Every archive the server sends in the single rounds passes
 * `unzip -t`.
 *
 * Run: `node bench/export_vs_zip.ts` (needs curl, zip and unzip; with
 * `DATABASE_URL`, PostgreSQL too). `BENCH_MESSAGES` (default 200) sets the
 * messages per call, `BENCH_ROUNDS` (default 5) the rounds,
 * `BENCH_RUNTIMES` (default `node,deno,bun`), `BENCH_STORES` (default
 * `memory`, or `memory,postgres` when `DATABASE_URL` is set: the script
 * seeds a database of its own there and drops it), `BENCH_COMPRESSIONS`
 * (default `server`: the export deflating as the API's servers have it;
 * `server,runtime` adds rows with the runtime's own `CompressionStream` on
 * the main thread), `BENCH_PORT` (default 0: any free port; the servers
 * listen on it and the ports after it, one each). `BENCH_BEFORE=<checkout>`
 * adds that checkout's `bench/export_server.ts` (an earlier commit, e.g. a
 * `git worktree` with `node_modules`), exporting in the same rounds, order
 * rotated: its CPU over the same `zip -6` rounds, in a column of its own.
 * `BENCH_AT_ONCE` (default 8) sets the exports at once of the concurrent
 * run; 0 leaves that run out (its columns print `–`), as the regression
 * gate does.
 *
 * @module
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import type { Sql } from "postgres";
import { connectPostgres, migrate, PostgresStore } from "../postgres/mod.ts";
import {
  createTestDatabase,
  type TestDatabase,
} from "../test/support/postgres.ts";
import { benchData, CALLS, MESSAGES } from "./export_data.ts";
import { cpuSeconds, median, startServer } from "./hot_path.ts";
import { childrenCpuSeconds } from "./proc_cpu.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
/** Exports at once in the concurrent run; 0 leaves that run out. */
const AT_ONCE = Number(process.env.BENCH_AT_ONCE ?? 8);
const runtimes = (process.env.BENCH_RUNTIMES ?? "node,deno,bun").split(",");
const stores = (process.env.BENCH_STORES ??
  (process.env.DATABASE_URL ? "memory,postgres" : "memory")).split(",");
const compressions = (process.env.BENCH_COMPRESSIONS ?? "server").split(",");
let port = Number(process.env.BENCH_PORT ?? 0);
const BEFORE = process.env.BENCH_BEFORE;
const bin = (name: string) => join(process.cwd(), "node_modules", ".bin", name);
/** The young generation's bound of the API's start scripts (package.json). */
const SEMI_SPACE = "--max-semi-space-size=8";
const COMMANDS: Record<string, string[]> = {
  node: [bin("node"), "--expose-gc", SEMI_SPACE],
  deno: [bin("deno"), "run", "-A", `--v8-flags=--expose-gc,${SEMI_SPACE}`],
  bun: [bin("bun")],
};
const SERVER = "bench/export_server.ts";

const work = mkdtempSync(join(tmpdir(), "export-bench-"));
const { token, callIds } = benchData(0);
const body = JSON.stringify({ call_ids: callIds });

/** What one run of a command took. */
interface Timing {
  wall: number;
  /** CPU seconds: the command's own, or the server's while it ran. */
  cpu: number;
  /** CPU seconds of the Postgres backends meanwhile (0 from memory). */
  pg?: number;
}

/** Runs a command to its end: its wall time and its own CPU seconds. */
function run(command: string, args: string[], cwd?: string): Promise<Timing> {
  const cpu = childrenCpuSeconds();
  const started = performance.now();
  const child = spawn(command, args, { stdio: "inherit", cwd });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => {
      if (code !== 0) reject(new Error(`${command} exited ${code}`));
      else {
        resolve({
          wall: (performance.now() - started) / 1000,
          cpu: childrenCpuSeconds() - cpu,
        });
      }
    });
  });
}

/** The resident set of a process, in MiB. */
function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

function curlExport(url: string, output: string): Promise<Timing> {
  return run("curl", [
    "-sS",
    "--fail",
    "-o",
    output,
    "-X",
    "POST",
    "-H",
    `Authorization: Bearer ${token}`,
    "-H",
    "Content-Type: application/json",
    "--data-binary",
    body,
    `${url}/v1/call/message/bulk`,
  ]);
}

/** CPU seconds so far of each backend on the bench database, by pid. */
async function backendCpu(): Promise<Map<number, number>> {
  if (db === undefined || admin === undefined) return new Map();
  const name = new URL(db.url).pathname.slice(1);
  const rows = await admin<{ pid: number }[]>`
    SELECT pid FROM pg_stat_activity WHERE datname = ${name}`;
  const seconds = new Map<number, number>();
  for (const { pid } of rows) {
    try {
      seconds.set(pid, cpuSeconds(pid));
    } catch { /* ended meanwhile */ }
  }
  return seconds;
}

/**
 * Exports with curl: wall time, and the server's and the Postgres backends'
 * CPU seconds meanwhile.
 */
async function timedExports(
  server: { url: string; pid: number },
  outputs: string[],
): Promise<Timing> {
  const pgBefore = await backendCpu();
  const cpu = cpuSeconds(server.pid);
  const started = performance.now();
  await Promise.all(outputs.map((output) => curlExport(server.url, output)));
  const wall = (performance.now() - started) / 1000;
  const serverCpu = cpuSeconds(server.pid) - cpu;
  let pg = 0;
  for (const [pid, seconds] of await backendCpu()) {
    pg += seconds - (pgBefore.get(pid) ?? 0);
  }
  return { wall, cpu: serverCpu, pg };
}

async function seedPostgres(): Promise<TestDatabase> {
  const db = await createTestDatabase();
  const sql = connectPostgres(db.url, { max: 1 });
  await migrate(sql);
  await new PostgresStore(sql).seed(benchData().fixtures);
  await sql.end();
  return db;
}

/** The figures of one runtime and store. */
interface Row {
  runtime: string;
  store: string;
  /** `server` (as the API's servers deflate) or `runtime`. */
  compression: string;
  zip: Timing;
  api: Timing;
  apiBytes: number;
  zipBytes: number;
  rssOne: number;
  /** Peak RSS growth with `AT_ONCE` exports at once (none when 0). */
  rssMany?: number;
  /** Wall time and server CPU seconds per export with `AT_ONCE` at once. */
  many?: Timing;
  /** The `BENCH_BEFORE` checkout's single exports, if any. */
  before?: Timing;
}

const files = join(work, "files");
const infoZip = join(work, "info.zip");
const rows: Row[] = [];
let db: TestDatabase | undefined;
/** A connection to the server's `postgres` database, for pg_stat_activity. */
let admin: Sql | undefined;

async function measure(
  runtime: string,
  store: string,
  compression: string,
): Promise<Row> {
  const start = (script: string) =>
    startServer([...COMMANDS[runtime]!, script, store], {
      BENCH_COMPRESSION: compression,
      BENCH_PORT: String(port === 0 ? 0 : port++),
      ...(db === undefined ? {} : { BENCH_DATABASE_URL: db.url }),
    });
  const server = await start(SERVER);
  const before = BEFORE === undefined
    ? undefined
    : await start(join(BEFORE, SERVER));
  const served = join(work, "served.zip");
  const idle = rssMiB(server.pid);
  let peak = idle;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMiB(server.pid));
  }, 10);
  try {
    await curlExport(server.url, served);
    execFileSync("unzip", ["-tq", served], { stdio: "pipe" });
    try {
      statSync(files);
    } catch {
      execFileSync("unzip", ["-q", "-d", files, served]);
    }
    const samples = {
      zip: [] as Timing[],
      api: [] as Timing[],
      before: [] as Timing[],
    };
    const order = before === undefined
      ? ["zip", "api"]
      : ["zip", "api", "before"];
    for (let round = 0; round < ROUNDS; round += 1) {
      const turn = round % order.length;
      for (const which of [...order.slice(turn), ...order.slice(0, turn)]) {
        if (which === "before") {
          const output = join(work, "before.zip");
          samples.before.push(await timedExports(before!, [output]));
          execFileSync("unzip", ["-tq", output], { stdio: "pipe" });
        } else if (which === "zip") {
          rmSync(infoZip, { force: true });
          samples.zip.push(
            await run("zip", ["-q", "-6", "-r", infoZip, "."], files),
          );
        } else {
          samples.api.push(await timedExports(server, [served]));
          execFileSync("unzip", ["-tq", served], { stdio: "pipe" });
        }
      }
    }
    const rssOne = peak - idle;
    const outputs = Array.from(
      { length: AT_ONCE },
      (_, i) => join(work, `many-${i}.zip`),
    );
    const many = AT_ONCE === 0
      ? undefined
      : await timedExports(server, outputs);
    const medianOf = (timings: Timing[]) => ({
      wall: median(timings.map((t) => t.wall)),
      cpu: median(timings.map((t) => t.cpu)),
      pg: median(timings.map((t) => t.pg ?? 0)),
    });
    return {
      runtime,
      store,
      compression,
      zip: medianOf(samples.zip),
      api: medianOf(samples.api),
      apiBytes: statSync(served).size,
      zipBytes: statSync(infoZip).size,
      rssOne,
      ...(many === undefined ? {} : {
        rssMany: peak - idle,
        many: {
          wall: many.wall / AT_ONCE,
          cpu: many.cpu / AT_ONCE,
          pg: (many.pg ?? 0) / AT_ONCE,
        },
      }),
      ...(before === undefined ? {} : { before: medianOf(samples.before) }),
    };
  } finally {
    clearInterval(sampler);
    server.stop();
    before?.stop();
  }
}

try {
  for (const store of stores) {
    if (store === "postgres") {
      db = await seedPostgres();
      admin = connectPostgres(process.env.DATABASE_URL!, { max: 1 });
    }
    for (const runtime of runtimes) {
      for (const compression of compressions) {
        rows.push(await measure(runtime, store, compression));
        console.error(JSON.stringify(rows.at(-1)));
      }
    }
  }
} finally {
  await admin?.end();
  await db?.drop();
  rmSync(work, { recursive: true, force: true });
}

const x = (ratio: number) => `**${ratio.toFixed(2)}x**`;
console.log(
  `${CALLS} calls × ${MESSAGES} messages, ${ROUNDS} alternating rounds, medians; ` +
    `every archive checked with unzip -t. API = curl reading the export ` +
    `(wall) and the server's CPU seconds meanwhile; zip = \`zip -q -6 -r\`.\n`,
);
const beforeColumn = BEFORE === undefined
  ? ["", ""]
  : [" before CPU s | CPU before / zip |", " --- | --- |"];
console.log(
  "| runtime | store | deflate | zip -6 wall / CPU s | API wall / CPU s | wall API / zip | CPU API / zip | Postgres CPU s | bytes API / zip | RSS growth MiB, 1 / 8 at once | 8 at once: wall / CPU s / Postgres CPU s per export |" +
    beforeColumn[0],
);
console.log(
  "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |" +
    beforeColumn[1],
);
for (const row of rows) {
  console.log(
    `| ${row.runtime} | ${row.store} | ${row.compression} | ${
      row.zip.wall.toFixed(2)
    } / ${row.zip.cpu.toFixed(2)} | ${row.api.wall.toFixed(2)} / ${
      row.api.cpu.toFixed(2)
    } | ${x(row.api.wall / row.zip.wall)} | ${x(row.api.cpu / row.zip.cpu)} | ${
      (row.api.pg ?? 0).toFixed(2)
    } | ${(row.apiBytes / row.zipBytes).toFixed(3)}x | ${
      row.rssOne.toFixed(0)
    } / ${row.rssMany?.toFixed(0) ?? "–"} | ${
      row.many === undefined
        ? "–"
        : `${row.many.wall.toFixed(2)} / ${row.many.cpu.toFixed(2)} / ${
          (row.many.pg ?? 0).toFixed(2)
        }`
    } |${
      row.before === undefined
        ? ""
        : ` ${row.before.cpu.toFixed(2)} | ${x(row.before.cpu / row.zip.cpu)} |`
    }`,
  );
}
const postgresRows = rows.filter((row) => row.store === "postgres");
if (postgresRows.length > 0) {
  console.log(
    "\nPostgreSQL over memory, same runtime (each against its own zip -6 rounds):\n",
  );
  console.log(
    "| runtime | wall | CPU | RSS growth, 1 | RSS growth, 8 at once |",
  );
  console.log("| --- | --- | --- | --- | --- |");
  for (const row of postgresRows) {
    const memory = rows.find((other) =>
      other.store === "memory" && other.runtime === row.runtime &&
      other.compression === row.compression
    );
    if (memory === undefined) continue;
    const ratio = (of: (r: Row) => number | undefined) => {
      const [postgres, fromMemory] = [of(row), of(memory)];
      return postgres === undefined || fromMemory === undefined
        ? "–"
        : x(postgres / fromMemory);
    };
    console.log(
      `| ${row.runtime}, ${row.compression} | ${
        ratio((r) => r.api.wall / r.zip.wall)
      } | ${ratio((r) => r.api.cpu / r.zip.cpu)} | ${
        ratio((r) => r.rssOne)
      } | ${ratio((r) => r.rssMany)} |`,
    );
  }
}
