/**
 * The bulk export end to end over HTTP against Info-ZIP: wall time of `curl`
 * reading the ZIP of 500 calls from the server, over that of
 * `zip -q -6 -r` on the same 500 files (unpacked from the server's first
 * archive, which `unzip -t` checks), in the same run; and the server's peak
 * RSS growth over its idle RSS while it exports.
 *
 * Run: `node bench/export_vs_zip.ts` (needs curl, zip and unzip).
 * `BENCH_MESSAGES` (default 200) sets the messages per call,
 * `BENCH_ROUNDS` (default 5) the rounds, run in alternating order,
 * `BENCH_RUNTIMES` (default `node,deno,bun`) and `BENCH_STORES` (default
 * `memory`, add `postgres` to seed a database of its own on `DATABASE_URL`).
 *
 * @module
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { connectPostgres, migrate, PostgresStore } from "../postgres/mod.ts";
import {
  createTestDatabase,
  type TestDatabase,
} from "../test/support/postgres.ts";
import { benchData, CALLS, MESSAGES } from "./export_data.ts";
import { median, startServer } from "./hot_path.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const runtimes = (process.env.BENCH_RUNTIMES ?? "node,deno,bun").split(",");
const stores = (process.env.BENCH_STORES ?? "memory").split(",");
const bin = (name: string) => join(process.cwd(), "node_modules", ".bin", name);
const COMMANDS: Record<string, string[]> = {
  node: [bin("node"), "--expose-gc", "bench/export_server.ts"],
  deno: [
    bin("deno"),
    "run",
    "-A",
    "--v8-flags=--expose-gc",
    "bench/export_server.ts",
  ],
  bun: [bin("bun"), "bench/export_server.ts"],
};

const work = mkdtempSync(join(tmpdir(), "export-bench-"));
const { token, callIds } = benchData(0);
const body = JSON.stringify({ call_ids: callIds });

/** Runs a command to its end; resolves with its wall time in seconds. */
function timed(command: string, args: string[], cwd?: string): Promise<number> {
  const started = performance.now();
  const child = spawn(command, args, { stdio: "inherit", cwd });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => {
      if (code !== 0) reject(new Error(`${command} exited ${code}`));
      else resolve((performance.now() - started) / 1000);
    });
  });
}

/** The resident set of a process, in MiB. */
function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

function exportWithCurl(url: string, output: string): Promise<number> {
  return timed("curl", [
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

async function seedPostgres(): Promise<TestDatabase> {
  const db = await createTestDatabase();
  const sql = connectPostgres(db.url, { max: 1 });
  await migrate(sql);
  await new PostgresStore(sql).seed(benchData().fixtures);
  await sql.end();
  return db;
}

const files = join(work, "files");
const rows: string[] = [];
let db: TestDatabase | undefined;
try {
  for (const storeName of stores) {
    if (storeName === "postgres") db = await seedPostgres();
    for (const runtime of runtimes) {
      const server = await startServer(
        [...COMMANDS[runtime]!, storeName],
        db === undefined ? {} : { BENCH_DATABASE_URL: db.url },
      );
      const served = join(work, "served.zip");
      const idle = rssMiB(server.pid);
      let peak = idle;
      const sampler = setInterval(() => {
        peak = Math.max(peak, rssMiB(server.pid));
      }, 10);
      try {
        await exportWithCurl(server.url, served);
        execFileSync("unzip", ["-tq", served], { stdio: "pipe" });
        try {
          statSync(files);
        } catch {
          execFileSync("unzip", ["-q", "-d", files, served]);
        }
        const samples = { zip: [] as number[], curl: [] as number[] };
        for (let round = 0; round < ROUNDS; round += 1) {
          const order = round % 2 === 0 ? ["zip", "curl"] : ["curl", "zip"];
          for (const which of order) {
            if (which === "zip") {
              const output = join(work, "info.zip");
              rmSync(output, { force: true });
              samples.zip.push(
                await timed("zip", ["-q", "-6", "-r", output, "."], files),
              );
            } else {
              samples.curl.push(await exportWithCurl(server.url, served));
            }
          }
        }
        execFileSync("unzip", ["-tq", served], { stdio: "pipe" });
        const ratio = median(samples.curl) / median(samples.zip);
        rows.push(
          `| ${runtime} | ${storeName} | ${MESSAGES} | ${
            median(samples.zip).toFixed(2)
          } | ${median(samples.curl).toFixed(2)} | ${ratio.toFixed(2)}x | ${
            (statSync(served).size / 1024 / 1024).toFixed(1)
          } / ${
            (statSync(join(work, "info.zip")).size / 1024 / 1024).toFixed(1)
          } | ${(peak - idle).toFixed(0)} |`,
        );
        console.error(rows.at(-1));
      } finally {
        clearInterval(sampler);
        server.stop();
      }
    }
  }
} finally {
  await db?.drop();
  rmSync(work, { recursive: true, force: true });
}
console.log(
  `${CALLS} calls × ${MESSAGES} messages, ${ROUNDS} alternating rounds, medians; archives checked with unzip -t\n`,
);
console.log(
  "| runtime | store | messages/call | zip -6 s | API export s | API / zip | MiB API / zip | RSS growth MiB |",
);
console.log("| --- | --- | --- | --- | --- | --- | --- | --- |");
for (const row of rows) console.log(row);
