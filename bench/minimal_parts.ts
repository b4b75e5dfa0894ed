/**
 * What each piece of the API's irreducible work costs: `bench_server.ts`'s
 * _minimal_ server with one piece left out at a time (the access-log line, the
 * `X-Request-Id`, the `JSON.stringify` of the body, or all three), beside it
 * whole and beside the runtime's bare server, all side by side on one
 * runtime. Prints the server's CPU µs per request (from `/proc`) for the
 * trigger test's request, medians of alternating rounds.
 *
 * Run: `node bench/minimal_parts.ts deno` (or `node`, `bun`; needs `wrk`);
 * `BENCH_ROUNDS` (default 3), `BENCH_SECONDS` (default 2).
 *
 * @module
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import {
  cpuSeconds,
  median,
  RUNTIME_COMMANDS,
  startLoggingServer,
  startServer,
  wrk,
} from "./hot_path.ts";
import { FLOWS, TOKENS } from "../test/support/api_fixtures.ts";

const runtime = process.argv[2] ?? "node";
const runtimeCommand = RUNTIME_COMMANDS[runtime];
if (runtimeCommand === undefined) throw new Error(`unknown runtime ${runtime}`);
const command = [...runtimeCommand, "bench/bench_server.ts"];
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = process.env.BENCH_SECONDS ?? "2";
const VARIANTS = ["", "log", "id", "json", "log,id,json"];

const bare = await startServer([...command, "bare"]);
const minimal = [];
for (const without of VARIANTS) {
  minimal.push(
    await startLoggingServer(
      [...command, "minimal"],
      { PORT: "0", BENCH_MINIMAL_WITHOUT: without },
      /^(http:\/\/\S+)/,
    ),
  );
}
const servers = [bare, ...minimal];
const names = [
  "bare",
  ...VARIANTS.map((without) =>
    without === "" ? "minimal" : `without ${without}`
  ),
];
const path = `/v1/workflow/${FLOWS.webhook}/trigger/test`;
const scripts = mkdtempSync(join(tmpdir(), "wrk-"));
const script = join(scripts, "post.lua");
writeFileSync(script, 'wrk.method = "POST"\n');
const run = (url: string, seconds: string) =>
  wrk(`${url}${path}`, seconds, [
    "-H",
    `Authorization: Bearer ${TOKENS.owner}`,
    "-s",
    script,
  ]);
try {
  for (const server of servers) run(server.url, "1");
  const cpu: number[][] = servers.map(() => []);
  for (let round = 0; round < ROUNDS; round += 1) {
    const order = servers.map((_, i) => i);
    if (round % 2 === 1) order.reverse();
    for (const i of order) {
      const before = cpuSeconds(servers[i]!.pid);
      const { requests } = run(servers[i]!.url, SECONDS);
      cpu[i]!.push((cpuSeconds(servers[i]!.pid) - before) * 1e6 / requests);
    }
  }
  console.log(`| runtime | ${names.join(" | ")} |`);
  console.log(`| --- |${" --- |".repeat(names.length)}`);
  console.log(
    `| ${runtime} | ${cpu.map((v) => median(v).toFixed(1)).join(" | ")} |`,
  );
} finally {
  bare.stop();
  for (const server of minimal) {
    await server.stop();
    rmSync(server.stdout);
  }
  rmSync(scripts, { recursive: true });
}
