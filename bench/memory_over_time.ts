/**
 * The server's memory over a long run: `BENCH_REQUESTS` (default 100,000)
 * mixed requests from wrk against `server/main.ts` on default settings (the
 * access log on, written to a file), the resident set size read from
 * `/proc/<pid>/status` after every tenth of them. A server that keeps
 * something per request grows in a line; one that does not reaches a plateau
 * once its heap has grown to what its garbage collector settles on.
 *
 * The mix cycles through what clients send, right and wrong: trigger tests
 * (webhook, call-ended, unknown and foreign flows), deletes of unknown
 * integrations, call messages (found, unknown, not a UUID), small bulk
 * exports (a ZIP of two calls), bodies that are not JSON, unknown and
 * missing tokens, a fresh random token and `X-Request-Id` on many requests
 * (so nothing is the same twice), unknown paths, `/openapi.json` and the
 * probes. Nothing in it changes the data.
 *
 * Run: `node bench/memory_over_time.ts` (needs `wrk`);
 * `BENCH_RUNTIMES=node,deno` picks runtimes. wrk (`-t1 -c50`) runs 2 s at a
 * time until the count is reached (30 minutes at most); the RSS is read each
 * time another tenth has been served.
 *
 * @module
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import {
  apiFixtures,
  CALLS,
  FLOWS,
  TOKENS,
} from "../test/support/api_fixtures.ts";
import { startLoggingServer } from "./hot_path.ts";

const TOTAL = Number(process.env.BENCH_REQUESTS ?? 100_000);
const STEPS = 10;
const bin = (name: string) => join(process.cwd(), "node_modules", ".bin", name);
const COMMANDS: Record<string, string[]> = {
  node: [bin("node"), "server/main.ts"],
  deno: [bin("deno"), "run", "-A", "server/main.ts"],
  bun: [bin("bun"), "server/main.ts"],
};
const runtimes = (process.env.BENCH_RUNTIMES ?? "node,deno,bun").split(",");

const work = mkdtempSync(join(tmpdir(), "memory-bench-"));
const fixturesFile = join(work, "fixtures.json");
writeFileSync(fixturesFile, JSON.stringify(apiFixtures));

/** One request of the mix: method, path, body; `token` `null` for none. */
interface MixEntry {
  method: string;
  path: string;
  body?: string;
  token?: string | null;
}

const UNKNOWN = "99999999-9999-4999-8999-999999999999";
const MIX: MixEntry[] = [
  { method: "POST", path: `/v1/workflow/${FLOWS.webhook}/trigger/test` },
  { method: "POST", path: `/v1/workflow/${FLOWS.callEnded}/trigger/test` },
  { method: "POST", path: `/v1/workflow/${FLOWS.unknown}/trigger/test` },
  { method: "POST", path: `/v1/workflow/${FLOWS.foreign}/trigger/test` },
  { method: "DELETE", path: `/v1/integration/${UNKNOWN}` },
  { method: "DELETE", path: "/v1/integration/not-a-uuid" },
  { method: "GET", path: `/v1/call/${CALLS.first}/message` },
  { method: "GET", path: `/v1/call/${CALLS.unknown}/message` },
  { method: "GET", path: "/v1/call/42/message?page=2" },
  {
    method: "POST",
    path: "/v1/call/message/bulk",
    body: JSON.stringify({ call_ids: [CALLS.first, CALLS.second] }),
  },
  { method: "POST", path: "/v1/call/message/bulk", body: "{not json" },
  { method: "POST", path: "/v1/call/message/bulk", body: '{"call_ids":[]}' },
  {
    method: "POST",
    path: `/v1/workflow/${FLOWS.webhook}/trigger/test`,
    token: "random",
  },
  { method: "GET", path: `/v1/call/${CALLS.first}/message`, token: null },
  { method: "GET", path: "/v1/nothing/here" },
  { method: "GET", path: "/openapi.json" },
  { method: "GET", path: "/healthz" },
  { method: "GET", path: "/readyz" },
];

/** A wrk script cycling through the mix. */
function mixScript(): string {
  const entries = MIX.map((entry) =>
    `{ ${JSON.stringify(entry.method)}, ${JSON.stringify(entry.path)}, ${
      entry.body === undefined ? "nil" : JSON.stringify(entry.body)
    }, ${
      entry.token === null
        ? '"none"'
        : entry.token === "random"
        ? '"random"'
        : JSON.stringify(TOKENS.owner)
    } }`
  ).join(",\n  ");
  return `
local mix = {
  ${entries}
}
local next_entry = 0
local function hex(n)
  local out = {}
  for i = 1, n do out[i] = string.format("%x", math.random(0, 15)) end
  return table.concat(out)
end
request = function()
  next_entry = next_entry % #mix + 1
  local entry = mix[next_entry]
  local headers = { ["X-Request-Id"] = hex(24) }
  if entry[4] == "random" then
    headers["Authorization"] = "Bearer tok-" .. hex(32)
  elseif entry[4] ~= "none" then
    headers["Authorization"] = "Bearer " .. entry[4]
  end
  if entry[3] ~= nil then headers["Content-Type"] = "application/json" end
  return wrk.format(entry[1], entry[2], headers, entry[3])
end
`;
}

/** Resident set size of a process, in MiB. */
function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

if (import.meta.main) {
  const script = join(work, "mix.lua");
  writeFileSync(script, mixScript());
  const rows: string[] = [];
  for (const runtime of runtimes) {
    const server = await startLoggingServer(
      COMMANDS[runtime]!,
      { PORT: "0", FIXTURES: fixturesFile },
      /listening on (http:\/\/\S+)/,
    );
    const samples = [rssMiB(server.pid)];
    let served = 0;
    const started = Date.now();
    try {
      // wrk runs for a time, not a count: 2-s runs until the next tenth is
      // passed, then a sample; at most 30 minutes in all.
      while (served < TOTAL && Date.now() - started < 1_800_000) {
        const output = execFileSync("wrk", [
          "-t1",
          "-c50",
          "-d2s",
          "-s",
          script,
          server.url,
        ], { encoding: "utf8" });
        const before = served;
        served += Number(/(\d+) requests in/.exec(output)![1]);
        const step = TOTAL / STEPS;
        if (Math.floor(served / step) > Math.floor(before / step)) {
          samples.push(rssMiB(server.pid));
          console.error(
            `${runtime}: ${served} requests, RSS ${
              samples.at(-1)!.toFixed(0)
            } MiB`,
          );
        }
      }
    } finally {
      await server.stop();
    }
    rows.push(
      `| ${runtime} | ${served} | ${
        samples.map((rss) => rss.toFixed(0)).join(" / ")
      } |`,
    );
  }
  console.log(
    `RSS in MiB at start and after each tenth of ${TOTAL} mixed requests (wrk -t1 -c50)\n`,
  );
  console.log("| runtime | requests | RSS at start / after each tenth |");
  console.log("| --- | --- | --- |");
  for (const row of rows) console.log(row);
}
