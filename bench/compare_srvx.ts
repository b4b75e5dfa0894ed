/**
 * Our runtime adapters (`server/runtimes/`) against
 * srvx 1.x serving the same Fetch handler, on Node, Deno and Bun (issue 26).
 * Each runtime runs two servers of the API's handler on the API suite's
 * fixtures, without the access log (as `bench/bench_server.ts api`): _ours_,
 * through our adapter as `server/main.ts` serves it; _srvx_, through srvx's
 * `serve` with its graceful shutdown off. All six servers run side by side;
 * each round runs wrk `-t1 -c50 --latency` on
 * `POST /v1/workflow/{webhook flow}/trigger/test` with the owner token
 * against each, in an order rotated from round to round; the medians of
 * req/s, p50, p99 and the server's CPU µs per request (from
 * `/proc/<pid>/stat`) are printed.
 *
 * srvx is not a dependency of the project: install it first, without
 * saving, `npm install --no-save srvx@1`. Run: `node bench/compare_srvx.ts`
 * (needs wrk). `BENCH_SECONDS` (default 3), `BENCH_ROUNDS` (default 5),
 * `BENCH_RUNTIMES` (default `node,deno,bun`).
 *
 * `node bench/compare_srvx.ts serve ours|srvx` is one server (what the
 * script starts).
 *
 * @module
 */
import { execFileSync } from "node:child_process";
import process from "node:process";
import { createHandler } from "../src/handler.ts";
import { parseFixtures } from "../src/store/fixtures.ts";
import { MemoryStore } from "../src/store/memory_store.ts";
import { serve } from "../server/runtimes/mod.ts";
import { apiFixtures, FLOWS, TOKENS } from "../test/support/api_fixtures.ts";
import {
  cpuSeconds,
  luaScript,
  median,
  RUNTIME_COMMANDS,
  startServer,
} from "./hot_path.ts";

/** The part of srvx's `serve` this script uses. */
type SrvxServe = (options: {
  fetch: (request: Request) => Promise<Response>;
  port: number;
  hostname: string;
  silent: boolean;
  gracefulShutdown: boolean;
}) => { ready(): Promise<unknown>; url?: string; close(): Promise<void> };

/** srvx, loaded by a computed name: it is not a dependency to type-check. */
async function loadSrvx(): Promise<SrvxServe> {
  const name = ["srv", "x"].join("");
  try {
    return (await import(name)).serve as SrvxServe;
  } catch (error) {
    throw new Error(
      `Cannot load srvx: ${error}; run \`npm install --no-save srvx@1\` first`,
    );
  }
}

/** Serves the handler one way; prints the URL; exits on SIGTERM. */
async function serveOne(how: string): Promise<void> {
  const store = new MemoryStore();
  await store.seed(parseFixtures(apiFixtures));
  const handler = createHandler({ store, logError: () => {} });
  if (how === "ours") {
    const server = await serve(handler, { port: 0, hostname: "127.0.0.1" });
    console.log(server.url);
  } else {
    const srvx = await loadSrvx();
    const server = srvx({
      fetch: (request) => handler(request),
      port: 0,
      hostname: "127.0.0.1",
      silent: true,
      gracefulShutdown: false,
    });
    await server.ready();
    console.log(server.url!.replace(/\/$/, ""));
  }
  process.on("SIGTERM", () => process.exit(0));
}

/** Milliseconds from a wrk latency figure (`812.00us`, `1.20ms`, `1.01s`). */
function ms(figure: string): number {
  const [, value, unit] = /([\d.]+)(us|ms|s)/.exec(figure)!;
  return Number(value) * ({ us: 0.001, ms: 1, s: 1000 }[unit!]!);
}

/** One wrk run with latency percentiles. */
function wrkLatency(url: string, seconds: string, script: string) {
  const output = execFileSync("wrk", [
    "-t1",
    "-c50",
    `-d${seconds}s`,
    "--latency",
    "-H",
    `Authorization: Bearer ${TOKENS.owner}`,
    "-s",
    script,
    url,
  ], { encoding: "utf8" });
  if (/Socket errors|Non-2xx/.test(output)) throw new Error(output);
  return {
    rate: Number(/Requests\/sec:\s+([\d.]+)/.exec(output)![1]),
    requests: Number(/(\d+) requests in/.exec(output)![1]),
    p50: ms(/ 50%\s+(\S+)/.exec(output)![1]!),
    p99: ms(/ 99%\s+(\S+)/.exec(output)![1]!),
  };
}

async function main(): Promise<void> {
  const seconds = process.env.BENCH_SECONDS ?? "3";
  const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
  const runtimes = (process.env.BENCH_RUNTIMES ?? "node,deno,bun").split(",");
  const script = luaScript("compare-srvx-post", "POST");
  const path = `/v1/workflow/${FLOWS.webhook}/trigger/test`;
  const servers: {
    name: string;
    url: string;
    pid: number;
    stop: () => void;
  }[] = [];
  try {
    for (const runtime of runtimes) {
      for (const how of ["ours", "srvx"]) {
        const started = await startServer([
          ...RUNTIME_COMMANDS[runtime]!,
          "bench/compare_srvx.ts",
          "serve",
          how,
        ]);
        servers.push({ name: `${runtime} ${how}`, ...started });
      }
    }
    for (const server of servers) wrkLatency(server.url + path, "1", script);
    const samples = new Map(
      servers.map((s) => [s.name, [] as ReturnType<typeof wrkLatency>[]]),
    );
    const cpu = new Map(servers.map((s) => [s.name, [] as number[]]));
    for (let round = 0; round < rounds; round += 1) {
      // Rotated, and reversed every other round.
      const order = servers.map((_, i) =>
        servers[(i + round) % servers.length]!
      );
      if (round % 2 === 1) order.reverse();
      for (const server of order) {
        const before = cpuSeconds(server.pid);
        const result = wrkLatency(server.url + path, seconds, script);
        samples.get(server.name)!.push(result);
        cpu.get(server.name)!.push(
          (cpuSeconds(server.pid) - before) * 1e6 / result.requests,
        );
      }
      console.error(`round ${round + 1}/${rounds} done`);
    }
    const load = execFileSync("cat", ["/proc/loadavg"], { encoding: "utf8" });
    console.log(
      `${new Date().toISOString()}, load average at the end ${
        load.split(" ").slice(0, 3).join(" ")
      }; wrk -t1 -c50 -d${seconds}s --latency, POST ${path}, ${rounds} rotated rounds, medians\n`,
    );
    console.log(
      "| runtime | server | req/s | p50 ms | p99 ms | server CPU µs/req | req/s vs ours | CPU vs ours |",
    );
    console.log("| --- | --- | --- | --- | --- | --- | --- | --- |");
    for (const server of servers) {
      const runs = samples.get(server.name)!;
      const [runtime, how] = server.name.split(" ");
      const ours = `${runtime} ours`;
      const rate = median(runs.map((r) => r.rate));
      const cpuUs = median(cpu.get(server.name)!);
      const oursRate = median(samples.get(ours)!.map((r) => r.rate));
      const oursCpu = median(cpu.get(ours)!);
      console.log(
        `| ${runtime} | ${how} | ${rate.toFixed(0)} | ${
          median(runs.map((r) => r.p50)).toFixed(2)
        } | ${median(runs.map((r) => r.p99)).toFixed(2)} | ${
          cpuUs.toFixed(1)
        } | ${(rate / oursRate).toFixed(2)}x | ${
          (cpuUs / oursCpu).toFixed(2)
        }x |`,
      );
    }
  } finally {
    for (const server of servers) server.stop();
  }
}

if (process.argv[2] === "serve") await serveOne(process.argv[3] ?? "ours");
else await main();
