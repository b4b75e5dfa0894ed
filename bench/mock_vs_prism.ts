/**
 * The standalone mock against Stoplight Prism 5 on the same request: the
 * trigger test of the demo data's webhook flow, `wrk -t1 -c50`, Prism mocking
 * this project's own `/openapi.json` (fetched from the mock).
 *
 * Prism is not a dependency: install it outside the worktree first,
 * `npm install --no-save @stoplight/prism-cli` in e.g. `/tmp/prism`, and
 * point `PRISM` at its binary (default `/tmp/prism/node_modules/.bin/prism`).
 * Run: `node bench/mock_vs_prism.ts`; `BENCH_ROUNDS` (default 5) alternating
 * rounds of `BENCH_SECONDS` (default 3); medians.
 *
 * @module
 */
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
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
writeFileSync(script, 'wrk.method = "POST"\n');

const mock = await start(
  process.execPath,
  ["mock/cli.ts", "mock", "--port", "0"],
  /listening on (http:\/\/\S+)/,
);
const mockUrl = mock.match[1]!;
const spec = join(work, "openapi.json");
writeFileSync(spec, await (await fetch(`${mockUrl}/openapi.json`)).text());
const prismPort = 4000 + Math.floor(Math.random() * 1000);
const prism = await start(
  PRISM,
  ["mock", "-h", "127.0.0.1", "-p", String(prismPort), spec],
  /Prism is listening on (http:\/\/\S+)/,
);
const prismUrl = `http://127.0.0.1:${prismPort}`;
// The ceiling: Node's server through the same adapter, a constant body.
const bare = await start(
  process.execPath,
  ["bench/bench_server.ts", "bare"],
  /^(http:\/\/\S+)/,
);
try {
  const servers = {
    mock: { url: mockUrl, pid: mock.pid },
    prism: { url: prismUrl, pid: prism.pid },
    bare: { url: bare.match[1]!, pid: bare.pid },
  };
  for (const [name, server] of Object.entries(servers)) {
    const response = await fetch(`${server.url}${PATH}`, {
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
  for (const server of Object.values(servers)) run(server.url, "1");
  const rates = {
    mock: [] as number[],
    prism: [] as number[],
    bare: [] as number[],
  };
  const cpu = {
    mock: [] as number[],
    prism: [] as number[],
    bare: [] as number[],
  };
  for (let round = 0; round < ROUNDS; round += 1) {
    const order = round % 2 === 0
      ? (["mock", "prism", "bare"] as const)
      : (["bare", "prism", "mock"] as const);
    for (const name of order) {
      const before = cpuSeconds(servers[name].pid);
      const result = run(servers[name].url, SECONDS);
      rates[name].push(result.rate);
      cpu[name].push(
        (cpuSeconds(servers[name].pid) - before) * 1e6 / result.requests,
      );
    }
  }
  console.log(
    `wrk -t1 -c50 -d${SECONDS}s, ${ROUNDS} alternating rounds, medians\n`,
  );
  const line = (name: string, key: keyof typeof rates) =>
    `| ${name} | ${median(rates[key]).toFixed(0)} | ${
      median(cpu[key]).toFixed(1)
    } |`;
  console.log(
    [
      "| server | req/s | CPU µs/req |",
      "| --- | --- | --- |",
      line("mock (node mock/cli.ts mock)", "mock"),
      line("Prism 5", "prism"),
      line("bare Node server, constant body (ceiling)", "bare"),
      "",
      `mock / Prism: **${
        (median(rates.mock) / median(rates.prism)).toFixed(1)
      }x** req/s, ${
        (median(cpu.prism) / median(cpu.mock)).toFixed(1)
      }x less CPU per request; bare / Prism: ${
        (median(rates.bare) / median(rates.prism)).toFixed(1)
      }x req/s`,
    ].join("\n"),
  );
} finally {
  mock.stop();
  prism.stop();
  bare.stop();
}
