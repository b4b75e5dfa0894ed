/**
 * Whether a request gets dearer the longer the pool stays saturated:
 * `server/main.ts` on PostgreSQL (default settings, as `postgres_api.ts` runs
 * it) and `postgres_peer.ts`, side by side on one fresh database, each loaded
 * by its own wrk (`-t1 -c50`, 50 callers on a pool of 10) for
 * `BENCH_WARMUP` seconds (default 30, not counted), then `BENCH_MINUTES`
 * minutes (default 10) without a pause. Each minute: req/s,
 * the server's CPU µs a request (from `/proc/<pid>/stat`), its resident set
 * and the requests wrk gave up on after 2 s; at the end, each server's last minute's CPU a request as a ratio to
 * its first's. Both servers share the machine, so their req/s are not a
 * comparison (`postgres_api.ts` is); each one's first and last minute are.
 *
 * `BENCH_TARGET` (default `trigger`; `delete404`, `messages`) picks the
 * request; `BENCH_BASELINE=<another checkout>` adds that checkout's
 * `server/main.ts` (`before`), loaded the same way.
 *
 * Run: `DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node
 * bench/postgres_drift.ts` (needs `wrk` and a role that may create
 * databases; the database it makes is dropped at the end).
 *
 * @module
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { promisify } from "node:util";
import { CALLS, FLOWS, TOKENS } from "../test/support/api_fixtures.ts";
import { openBenchDatabase } from "./postgres_bench_db.ts";
import {
  cpuSeconds,
  luaScript,
  RUNTIME_COMMANDS,
  startLoggingServer,
  startServer,
} from "./hot_path.ts";

const MINUTES = Number(process.env.BENCH_MINUTES ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 30);
const BASELINE = process.env.BENCH_BASELINE;
const SERVER_URL = process.env.DATABASE_URL;
if (!SERVER_URL) throw new Error("Cannot run: DATABASE_URL is not set");
const TARGETS = {
  trigger: [`/v1/workflow/${FLOWS.webhook}/trigger/test`, "POST"],
  delete404: ["/v1/integration/99999999-9999-4999-8999-999999999999", "DELETE"],
  messages: [`/v1/call/${CALLS.first}/message`, "GET"],
} as const;
const TARGET = (process.env.BENCH_TARGET ?? "trigger") as keyof typeof TARGETS;
const [path, method] = TARGETS[TARGET];
const lua = luaScript(method.toLowerCase(), method);
const run = promisify(execFile);

/**
 * Requests one wrk run of `seconds` completed, and how many waited past
 * wrk's 2 s timeout; throws on any other socket error.
 */
async function load(
  url: string,
  seconds: number,
): Promise<{ requests: number; timeouts: number }> {
  const { stdout } = await run("wrk", [
    "-t1",
    "-c50",
    `-d${seconds}s`,
    "-H",
    `Authorization: Bearer ${TOKENS.owner}`,
    "-s",
    lua,
    url,
  ]);
  const errors = /Socket errors: connect (\d+), read (\d+), write (\d+)/
    .exec(stdout);
  if (errors?.slice(1).some((count) => count !== "0")) throw new Error(stdout);
  return {
    requests: Number(/(\d+) requests in/.exec(stdout)![1]),
    timeouts: Number(/timeout (\d+)/.exec(stdout)?.[1] ?? 0),
  };
}

/** Resident set of a process, MiB. */
function rssMiB(pid: number): number {
  const kib = /VmRSS:\s+(\d+)/.exec(
    readFileSync(`/proc/${pid}/status`, "utf8"),
  )![1];
  return Number(kib) / 1024;
}

const database = await openBenchDatabase(SERVER_URL, "bench_drift");
const node = RUNTIME_COMMANDS.node!;
const ready = /listening on (http:\/\/\S+)/;
const api = await startLoggingServer(
  [...node, "server/main.ts"],
  database.env,
  ready,
);
const before = BASELINE === undefined ? undefined : await startLoggingServer(
  [...node, join(BASELINE, "server/main.ts")],
  database.env,
  ready,
);
const peer = await startServer(
  [...node, "bench/postgres_peer.ts"],
  database.env,
);
const servers = { api, ...(before && { before }), peer };
type Which = keyof typeof servers;
const names = Object.keys(servers) as Which[];
/** Per server, per minute: req/s, CPU µs a request, RSS MiB, timeouts. */
const minutes = {} as Record<Which, [number, number, number, number][]>;
try {
  for (const which of names) minutes[which] = [];
  // Compiled code and a full pool before the first minute counts.
  await Promise.all(
    names.map((which) => load(`${servers[which]!.url}${path}`, WARMUP)),
  );
  for (let minute = 0; minute < MINUTES; minute += 1) {
    await Promise.all(names.map(async (which) => {
      const { url, pid } = servers[which]!;
      const cpu = cpuSeconds(pid);
      const { requests, timeouts } = await load(`${url}${path}`, 60);
      minutes[which].push([
        requests / 60,
        (cpuSeconds(pid) - cpu) * 1e6 / requests,
        rssMiB(pid),
        timeouts,
      ]);
    }));
    console.error(
      `minute ${minute + 1} of ${MINUTES}: ${
        names.map((which) =>
          `${which} ${minutes[which][minute]!.map((x) => x.toFixed(1))}`
        ).join("; ")
      }`,
    );
  }
} finally {
  peer.stop();
  await Promise.all([api.stop(), before?.stop()]);
  await database.drop();
}
console.log(
  `${TARGET}, wrk -t1 -c50 on each server at once, ${MINUTES} minutes`,
);
console.log(
  `| minute | ${
    names.map((which) => `${which} req/s | µs/req | RSS MiB | > 2 s`).join(
      " | ",
    )
  } |`,
);
console.log(`| --- |${" --- | --- | --- | --- |".repeat(names.length)}`);
for (let minute = 0; minute < MINUTES; minute += 1) {
  const cells = names.map((which) => {
    const [rate, cpu, rss, slow] = minutes[which][minute]!;
    return `${rate.toFixed(0)} | ${cpu.toFixed(1)} | ${
      rss.toFixed(0)
    } | ${slow}`;
  });
  console.log(`| ${minute + 1} | ${cells.join(" | ")} |`);
}
for (const which of names) {
  const cpu = minutes[which].map(([, perRequest]) => perRequest);
  console.log(
    `${which}: last / first minute CPU a request ${
      (cpu.at(-1)! / cpu[0]!).toFixed(2)
    }x`,
  );
}
