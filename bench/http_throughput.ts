/**
 * Requests per second of the API on each runtime's server, measured with wrk
 * over loopback, next to the same adapter serving a constant response (the
 * ceiling). Run: `node bench/http_throughput.ts` (needs `wrk`: `apt-get
 * install wrk`). Ratios within one run are what to compare; absolute figures
 * move with the machine's load.
 *
 * @module
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { createInterface } from "node:readline";
import { CALLS, TOKENS } from "../test/support/api_fixtures.ts";

const DURATION = process.env.BENCH_SECONDS ?? "5";
const bin = (name: string) => join(process.cwd(), "node_modules", ".bin", name);
const RUNTIMES: Record<string, string[]> = {
  node: [bin("node"), "bench/bench_server.ts"],
  deno: [bin("deno"), "run", "-A", "bench/bench_server.ts"],
  bun: [bin("bun"), "bench/bench_server.ts"],
};

const scripts = mkdtempSync(join(tmpdir(), "wrk-"));
process.once("exit", () => rmSync(scripts, { recursive: true, force: true }));
const bulkScript = join(scripts, "bulk.lua");
writeFileSync(
  bulkScript,
  `wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"call_ids": ["${CALLS.first}", "${CALLS.second}"]}'
`,
);

async function startServer(command: string[], mode: string) {
  const child = spawn(command[0]!, [...command.slice(1), mode], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout! });
  const url = await new Promise<string>((resolve) =>
    lines.once("line", resolve)
  );
  return { url, stop: () => child.kill("SIGTERM") };
}

function wrk(url: string, extra: string[] = []): number {
  const output = execFileSync("wrk", [
    "-t2",
    "-c64",
    `-d${DURATION}s`,
    "-H",
    `Authorization: Bearer ${TOKENS.viewer}`,
    ...extra,
    url,
  ], { encoding: "utf8" });
  return Number(/Requests\/sec:\s+([\d.]+)/.exec(output)![1]);
}

const rows: string[][] = [];
for (const [runtime, command] of Object.entries(RUNTIMES)) {
  const bare = await startServer(command, "bare");
  const ceiling = wrk(`${bare.url}/`);
  bare.stop();
  const api = await startServer(command, "api");
  const messages = wrk(`${api.url}/v1/call/${CALLS.first}/message`);
  const bulk = wrk(`${api.url}/v1/call/message/bulk`, ["-s", bulkScript]);
  api.stop();
  rows.push([
    runtime,
    ceiling.toFixed(0),
    `${messages.toFixed(0)} (${(messages / ceiling * 100).toFixed(0)} %)`,
    `${bulk.toFixed(0)} (${(bulk / ceiling * 100).toFixed(0)} %)`,
  ]);
}

console.log(
  `wrk -t2 -c64 -d${DURATION}s, loopback, one run; % of the same adapter's constant response\n`,
);
console.log(
  "| runtime | constant response req/s | GET call messages req/s | POST bulk (2-call ZIP) req/s |",
);
console.log("| --- | --- | --- | --- |");
for (const row of rows) console.log(`| ${row.join(" | ")} |`);
