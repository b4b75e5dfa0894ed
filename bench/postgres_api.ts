/**
 * The API on PostgreSQL as users run it, against the server they would write
 * instead: `server/main.ts` with `DATABASE_URL` on default settings (access
 * log at `info` to a file, pool of 10, grants kept 1 s) and
 * `bench/postgres_peer.ts` (@hono/node-server and postgres.js, two statements
 * a request), both under Node, on one fresh database seeded with the API
 * suite's fixtures by `callflow-api migrate --fixtures`.
 *
 * Requests: the trigger test (webhook flow), the DELETE of an unknown
 * integration (404) and a call's messages, each with the owner's token. For
 * each, wrk `-t1 -c50 --latency` runs of `BENCH_SECONDS` (default 3) after a
 * warm-up, `BENCH_ROUNDS` rounds (default 5), the order reversed every other
 * round; printed: medians of req/s, p50 and p99, the server's CPU per
 * request and PostgreSQL's (its backends serving the database, from
 * `/proc/<pid>/stat`), and the API's req/s as a ratio to the peer's.
 *
 * Beside them, `memory`: the same `server/main.ts` on the memory store,
 * seeded with the same fixtures: the API with a database that costs nothing,
 * the ceiling of any change to the Postgres path. `BENCH_BASELINE=<another
 * checkout>` adds that checkout's `server/main.ts` on the database, `before`,
 * in the same rounds: a change against the code it replaces.
 * `BENCH_TARGETS=messages` runs only the requests named.
 *
 * Run: `DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node
 * bench/postgres_api.ts` (needs `wrk` and a role that may create databases;
 * the database it makes is dropped at the end).
 *
 * @module
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import process from "node:process";
import { CALLS, FLOWS, TOKENS } from "../test/support/api_fixtures.ts";
import { openBenchDatabase } from "./postgres_bench_db.ts";
import {
  countLines,
  cpuSeconds,
  luaScript,
  median,
  RUNTIME_COMMANDS,
  startLoggingServer,
  startServer,
} from "./hot_path.ts";

const SECONDS = process.env.BENCH_SECONDS ?? "3";
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const BASELINE = process.env.BENCH_BASELINE;
const SERVER_URL = process.env.DATABASE_URL;
if (!SERVER_URL) throw new Error("Cannot run: DATABASE_URL is not set");

const TARGETS = {
  trigger: {
    path: `/v1/workflow/${FLOWS.webhook}/trigger/test`,
    script: luaScript("post", "POST"),
  },
  delete404: {
    path: "/v1/integration/99999999-9999-4999-8999-999999999999",
    script: luaScript("delete", "DELETE"),
  },
  messages: {
    path: `/v1/call/${CALLS.first}/message`,
    script: luaScript("get", "GET"),
  },
};

/** `BENCH_TARGETS=messages,...` picks requests; default all, in order. */
const ONLY = (process.env.BENCH_TARGETS?.split(",") ??
  Object.keys(TARGETS)) as (keyof typeof TARGETS)[];

/** One wrk run with its latency percentiles, in milliseconds. */
function wrkLatency(url: string, lua: string, seconds: string) {
  const output = execFileSync("wrk", [
    "-t1",
    "-c50",
    `-d${seconds}s`,
    "--latency",
    "-H",
    `Authorization: Bearer ${TOKENS.owner}`,
    "-s",
    lua,
    url,
  ], { encoding: "utf8" });
  if (/Socket errors/.test(output)) throw new Error(output);
  const ms = (percentile: string) => {
    const [, value, unit] = new RegExp(`${percentile}%\\s+([\\d.]+)(us|ms|s)`)
      .exec(output)!;
    return Number(value) * ({ us: 1e-3, ms: 1, s: 1e3 }[unit as "ms"]);
  };
  return {
    rate: Number(/Requests\/sec:\s+([\d.]+)/.exec(output)![1]),
    requests: Number(/(\d+) requests in/.exec(output)![1]),
    p50: ms("50"),
    p99: ms("99"),
  };
}

const database = await openBenchDatabase(SERVER_URL, "bench_pg");
const { env, fixtures, postgresCpu } = database;
const node = RUNTIME_COMMANDS.node!;
const api = await startLoggingServer(
  [...node, "server/main.ts"],
  env,
  /listening on (http:\/\/\S+)/,
);
const before = BASELINE === undefined ? undefined : await startLoggingServer(
  [...node, join(BASELINE, "server/main.ts")],
  env,
  /listening on (http:\/\/\S+)/,
);
// An empty DATABASE_URL is none (this process's own is inherited otherwise).
const memory = await startLoggingServer(
  [...node, "server/main.ts"],
  { ...env, DATABASE_URL: "", FIXTURES: fixtures },
  /listening on (http:\/\/\S+)/,
);
const peer = await startServer([...node, "bench/postgres_peer.ts"], env);
const servers = { api, ...(before && { before }), memory, peer };
type Which = keyof typeof servers;
const names = Object.keys(servers) as Which[];
const rows: string[] = [];
try {
  for (const target of ONLY) {
    const { path, script: lua } = TARGETS[target];
    const runs = {} as Record<Which, ReturnType<typeof wrkLatency>[]>;
    const cpu = {} as Record<Which, { server: number[]; postgres: number[] }>;
    for (const which of names) {
      runs[which] = [];
      cpu[which] = { server: [], postgres: [] };
      wrkLatency(`${servers[which]!.url}${path}`, lua, "1");
    }
    for (let round = 0; round < ROUNDS; round += 1) {
      const order = round % 2 === 0 ? names : names.toReversed();
      for (const which of order) {
        const server = servers[which]!;
        const [serverBefore, postgresBefore] = [
          cpuSeconds(server.pid),
          await postgresCpu(),
        ];
        const run = wrkLatency(`${server.url}${path}`, lua, SECONDS);
        runs[which].push(run);
        cpu[which].server.push(
          (cpuSeconds(server.pid) - serverBefore) * 1e6 / run.requests,
        );
        cpu[which].postgres.push(
          ((await postgresCpu()) - postgresBefore) * 1e6 / run.requests,
        );
      }
    }
    const row = (which: Which) => {
      const of = (key: "rate" | "p50" | "p99") =>
        median(runs[which].map((run) => run[key]));
      return `| ${target} | ${which} | ${of("rate").toFixed(0)} | ${
        of("p50").toFixed(2)
      } | ${of("p99").toFixed(2)} | ${median(cpu[which].server).toFixed(1)} | ${
        median(cpu[which].postgres).toFixed(1)
      } |`;
    };
    const ratio = (which: Which) =>
      `| ${target} | ${which} / peer | ${
        (median(runs[which].map((run) => run.rate)) /
          median(runs.peer.map((run) => run.rate))).toFixed(2)
      }x | | | | |`;
    rows.push(
      ...names.map(row),
      ...names.filter((which) => which !== "peer").map(ratio),
    );
  }
} finally {
  peer.stop();
  await Promise.all([api.stop(), before?.stop(), memory.stop()]);
  await database.drop();
}
const logged = countLines(api.stdout);
console.log(
  `wrk -t1 -c50 -d${SECONDS}s, ${ROUNDS} rounds, medians; ${logged} lines of access log`,
);
console.log(
  "| request | server | req/s | p50 ms | p99 ms | server CPU µs/req | Postgres CPU µs/req |",
);
console.log("| --- | --- | --- | --- | --- | --- | --- |");
for (const row of rows) console.log(row);
