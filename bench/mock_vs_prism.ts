/**
 * The standalone mock (`callflow-api mock`, journal, faults and guards in
 * place) against a bare Node server (a constant JSON body on
 * @hono/node-server, the ceiling) and, when installed, Stoplight Prism 5, on
 * the same request: the trigger test of the demo data's webhook flow,
 * `wrk -t1 -c50`, with `Content-Length: 0` as fetch, curl and browsers send
 * it for a POST without a body. Prism mocks this project's own
 * `/openapi.json` (fetched from the mock).
 *
 * Prism is not a dependency: install it outside the worktree first,
 * `npm install --no-save @stoplight/prism-cli` in e.g. `/tmp/prism`, and
 * point `PRISM` at its binary (default `/tmp/prism/node_modules/.bin/prism`);
 * without it, Prism's row is left out.
 * Run: `node bench/mock_vs_prism.ts`; `BENCH_ROUNDS` (default 5) alternating
 * rounds of `BENCH_SECONDS` (default 3); medians.
 *
 * @module
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { createInterface } from "node:readline";
import { cpuSeconds, median, wrk } from "./hot_path.ts";

const SECONDS = process.env.BENCH_SECONDS ?? "3";
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const PRISM = process.env.PRISM ?? "/tmp/prism/node_modules/.bin/prism";
const FLOW = "a0b1c2d3-e4f5-4a6b-9c7d-8e9f0a1b2c3d";
const TOKEN = "demo-owner";
const PATH = `/v1/workflow/${FLOW}/trigger/test`;

/** Starts a command; resolves once a line of its output matches `ready`. */
async function start(
  command: string,
  args: string[],
  ready: RegExp,
): Promise<{ match: RegExpExecArray; pid: number; stop: () => void }> {
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${command}: no start`)),
      60_000,
    );
    for (const stream of [child.stdout!, child.stderr!]) {
      createInterface({ input: stream }).on("line", (line) => {
        const found = ready.exec(line);
        if (found) {
          clearTimeout(timer);
          resolve(found);
        }
      });
    }
    child.once(
      "exit",
      (code) => reject(new Error(`${command} exited ${code}`)),
    );
  });
  return { match, pid: child.pid!, stop: () => child.kill("SIGTERM") };
}

const work = mkdtempSync(join(tmpdir(), "prism-bench-"));
const script = join(work, "post.lua");
// An empty body: wrk then sends `Content-Length: 0` (it drops one given
// with -H), as fetch, curl and browsers do for a POST without a body.
writeFileSync(script, 'wrk.method = "POST"\nwrk.body = ""\n');

const mock = await start(
  process.execPath,
  ["server/cli.ts", "mock", "--port", "0"],
  /listening on (http:\/\/\S+)/,
);
const mockUrl = mock.match[1]!;
// The ceiling: Node's server through the same adapter, a constant body.
const bare = await start(
  process.execPath,
  ["bench/bench_server.ts", "bare"],
  /^(http:\/\/\S+)/,
);
type Name = "mock" | "bare" | "prism";
const servers: Partial<Record<Name, { url: string; pid: number }>> = {
  mock: { url: mockUrl, pid: mock.pid },
  bare: { url: bare.match[1]!, pid: bare.pid },
};
let prism: Awaited<ReturnType<typeof start>> | undefined;
if (existsSync(PRISM)) {
  const spec = join(work, "openapi.json");
  writeFileSync(spec, await (await fetch(`${mockUrl}/openapi.json`)).text());
  const prismPort = 46500 + Math.floor(Math.random() * 400);
  prism = await start(
    PRISM,
    ["mock", "-h", "127.0.0.1", "-p", String(prismPort), spec],
    /Prism is listening on (http:\/\/\S+)/,
  );
  servers.prism = { url: `http://127.0.0.1:${prismPort}`, pid: prism.pid };
} else {
  console.error(`No Prism at ${PRISM}: its row is left out`);
}
const names = Object.keys(servers) as Name[];
try {
  for (const name of names) {
    const response = await fetch(`${servers[name]!.url}${PATH}`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    console.error(`${name}: ${response.status} ${await response.text()}`);
    if (response.status !== 200) throw new Error(`${name} did not answer 200`);
  }
  const run = (url: string, seconds: string) =>
    wrk(`${url}${PATH}`, seconds, [
      "-H",
      `Authorization: Bearer ${TOKEN}`,
      "-s",
      script,
    ]);
  for (const name of names) run(servers[name]!.url, "1");
  const rates = { mock: [], prism: [], bare: [] } as Record<Name, number[]>;
  const cpu = { mock: [], prism: [], bare: [] } as Record<Name, number[]>;
  for (let round = 0; round < ROUNDS; round += 1) {
    const order = round % 2 === 0 ? names : [...names].reverse();
    for (const name of order) {
      const server = servers[name]!;
      const before = cpuSeconds(server.pid);
      const result = run(server.url, SECONDS);
      rates[name].push(result.rate);
      cpu[name].push(
        (cpuSeconds(server.pid) - before) * 1e6 / result.requests,
      );
    }
  }
  console.log(
    `wrk -t1 -c50 -d${SECONDS}s, ${ROUNDS} alternating rounds, medians\n`,
  );
  const LABELS: Record<Name, string> = {
    mock: "mock (node server/cli.ts mock)",
    prism: "Prism 5",
    bare: "bare Node server, constant body (ceiling)",
  };
  const lines = [
    "| server | req/s | CPU µs/req |",
    "| --- | --- | --- |",
    ...names.map((name) =>
      `| ${LABELS[name]} | ${median(rates[name]).toFixed(0)} | ${
        median(cpu[name]).toFixed(1)
      } |`
    ),
    "",
    `mock / bare: **${
      (median(rates.mock) / median(rates.bare)).toFixed(2)
    }x** req/s, bare / mock CPU per request ${
      (median(cpu.bare) / median(cpu.mock)).toFixed(2)
    }x`,
  ];
  if (prism !== undefined) {
    lines.push(
      `mock / Prism: ${
        (median(rates.mock) / median(rates.prism)).toFixed(1)
      }x req/s, ${
        (median(cpu.prism) / median(cpu.mock)).toFixed(1)
      }x less CPU per request`,
    );
  }
  console.log(lines.join("\n"));
} finally {
  mock.stop();
  prism?.stop();
  bare.stop();
}
