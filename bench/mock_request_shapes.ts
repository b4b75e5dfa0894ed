/**
 * The standalone mock against a bare Node server (and Prism, when installed)
 * for each shape in which clients send the trigger test, a POST that takes no
 * body (`POST /v1/workflow/{flow}/trigger/test`, demo webhook flow,
 * `demo-owner` token):
 *
 * - `no-length`: no `Content-Length` and no `Transfer-Encoding`, what
 *   `curl -X POST` sends: no body (RFC 9112, 6.3). wrk sends this for
 *   `wrk.method = "POST"`, and also when told `-H "Content-Length: 0"` (it
 *   drops a length it was given without a body);
 * - `length-0`: `Content-Length: 0`, what fetch, Python's requests, Go's
 *   `http.Post(…, nil)` and `curl -d ''` send (wrk: `wrk.body = ""`);
 * - `json-body`: a client library that sends `{}` as JSON
 *   (`Content-Length: 2`); the route takes no body, so the mock answers 413.
 *
 * What wrk really sends for each shape is checked first against a socket that
 * records the bytes, and printed.
 *
 * The mock is started as users start it, `node server/cli.ts mock --port 0`
 * (default settings: journal, faults, guards, CORS); the bare server is
 * `bench/bench_server.ts bare` (@hono/node-server answering a constant JSON
 * body). `BENCH_BEFORE=<checkout>` adds that checkout's mock (e.g. a
 * `git worktree` of an earlier commit, with `node_modules` linked), run in the
 * same rounds; `PRISM` points at a Prism binary (default
 * `/tmp/prism/node_modules/.bin/prism`, see `bench/mock_vs_prism.ts`),
 * left out when missing.
 *
 * Run: `node bench/mock_request_shapes.ts`; `BENCH_ROUNDS` (default 5) rounds
 * of `BENCH_SECONDS` (default 3) per shape and server, the servers' order
 * rotated from round to round; medians of req/s, p50, p99 (wrk `--latency`)
 * and the server's CPU µs per request (`/proc/<pid>/stat`).
 * `BENCH_SHAPES=no-length,length-0` picks shapes. `BENCH_PAGE=1` adds a
 * second mock of this checkout, `mock, page open`, polled as its live page
 * polls it while open (`bench/page_poller.ts`, a process of its own).
 *
 * @module
 */
import { execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { promisify } from "node:util";
import {
  cpuSeconds,
  median,
  REQUEST_SHAPES,
  shapeScript,
  startLoggingServer,
  startServer,
  wrk,
  type WrkResult,
} from "./hot_path.ts";

const SECONDS = process.env.BENCH_SECONDS ?? "3";
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const BEFORE = process.env.BENCH_BEFORE;
const PAGE = process.env.BENCH_PAGE === "1";
const PRISM = process.env.PRISM ?? "/tmp/prism/node_modules/.bin/prism";
const FLOW = "a0b1c2d3-e4f5-4a6b-9c7d-8e9f0a1b2c3d";
const TOKEN = "demo-owner";
const PATH = `/v1/workflow/${FLOW}/trigger/test`;

const work = mkdtempSync(join(tmpdir(), "mock-shapes-"));
const picked = process.env.BENCH_SHAPES?.split(",") ??
  Object.keys(REQUEST_SHAPES);
/** Each picked shape's wrk script. */
const scripts = Object.fromEntries(
  picked.map((shape) => [shape, shapeScript(shape)]),
);

/** One wrk run of a shape's script, with the token. */
const run = (url: string, script: string, seconds: string): WrkResult =>
  wrk(url, seconds, ["-H", `Authorization: Bearer ${TOKEN}`, "-s", script]);

/** The head and body wrk sends for a script, as a socket receives them. */
async function wireBytes(script: string): Promise<string> {
  let first = "";
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => {}); // wrk resets its connections at the end
    socket.on("data", (data) => {
      if (first === "") first = data.toString("latin1");
      socket.write("HTTP/1.1 204 No Content\r\n\r\n");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  // Not execFileSync: the socket answers from this process's event loop.
  await promisify(execFile)("wrk", [
    "-t1",
    "-c1",
    "-d1s",
    "-H",
    `Authorization: Bearer ${TOKEN}`,
    "-s",
    script,
    `http://127.0.0.1:${port}${PATH}`,
  ]);
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
  return first;
}

for (const [shape, script] of Object.entries(scripts)) {
  const bytes = await wireBytes(script);
  const lengthSent = /\r\ncontent-length:/i.test(bytes) ||
    /\r\ntransfer-encoding:/i.test(bytes);
  if ((shape === "no-length") === lengthSent) {
    throw new Error(`wrk's ${shape} request is not that shape: ${bytes}`);
  }
  console.log(`${shape}: wrk sends ${JSON.stringify(bytes)}`);
}

type Server = { url: string; pid: number; stop: () => unknown };
const node = [process.execPath];
const servers: Record<string, Server> = {};
const mockFrom = (checkout: string) =>
  startLoggingServer(
    [...node, join(checkout, "server/cli.ts"), "mock", "--port", "0"],
    {},
    /listening on (http:\/\/\S+)/,
  );
try {
  servers.mock = await mockFrom(process.cwd());
  if (PAGE) {
    const open = await mockFrom(process.cwd());
    const poller = spawn(process.execPath, ["bench/page_poller.ts", open.url], {
      stdio: "inherit",
    });
    servers["mock, page open"] = {
      ...open,
      stop: () => {
        poller.kill();
        open.stop();
      },
    };
  }
  if (BEFORE !== undefined) servers["mock before"] = await mockFrom(BEFORE);
  servers.bare = await startServer([...node, "bench/bench_server.ts", "bare"]);
  if (existsSync(PRISM)) {
    const spec = join(work, "openapi.json");
    const document = await fetch(`${servers.mock.url}/openapi.json`);
    writeFileSync(spec, await document.text());
    const port = 46500 + Math.floor(Math.random() * 400);
    const prism = await startLoggingServer(
      [PRISM, "mock", "-h", "127.0.0.1", "-p", `${port}`, spec],
      {},
      /Prism is listening on (http:\/\/\S+)/,
    );
    servers.prism = prism;
  } else {
    console.log(`No Prism at ${PRISM}: its row is left out`);
  }
  const names = Object.keys(servers);
  for (const name of names) {
    for (const script of Object.values(scripts)) {
      run(`${servers[name]!.url}${PATH}`, script, "1");
    }
  }
  const results: Record<string, Record<string, WrkResult[]>> = {};
  const cpu: Record<string, Record<string, number[]>> = {};
  for (const shape of Object.keys(scripts)) {
    results[shape] = Object.fromEntries(names.map((name) => [name, []]));
    cpu[shape] = Object.fromEntries(names.map((name) => [name, []]));
  }
  for (let round = 0; round < ROUNDS; round += 1) {
    const order = names.map((_, i) => names[(i + round) % names.length]!);
    for (const [shape, script] of Object.entries(scripts)) {
      for (const name of order) {
        const server = servers[name]!;
        const before = cpuSeconds(server.pid);
        const result = run(`${server.url}${PATH}`, script, SECONDS);
        results[shape]![name]!.push(result);
        cpu[shape]![name]!.push(
          (cpuSeconds(server.pid) - before) * 1e6 / result.requests,
        );
      }
    }
  }
  const of = (runs: WrkResult[], key: keyof WrkResult) =>
    median(runs.map((run) => run[key]));
  console.log(
    `\nwrk -t1 -c50 -d${SECONDS}s --latency, ${ROUNDS} rounds (order rotated), medians\n`,
  );
  console.log(
    "| shape | server | req/s | p50 ms | p99 ms | CPU µs/req | non-2xx | / bare req/s |",
  );
  console.log("| --- | --- | --- | --- | --- | --- | --- | --- |");
  for (const shape of Object.keys(scripts)) {
    const bare = of(results[shape]!.bare!, "rate");
    for (const name of names) {
      const runs = results[shape]![name]!;
      console.log(
        `| ${shape} | ${name} | ${of(runs, "rate").toFixed(0)} | ${
          of(runs, "p50").toFixed(2)
        } | ${of(runs, "p99").toFixed(2)} | ${
          median(cpu[shape]![name]!).toFixed(1)
        } | ${of(runs, "non2xx").toFixed(0)} | ${
          (of(runs, "rate") / bare).toFixed(2)
        }x |`,
      );
    }
  }
  if (servers.prism !== undefined) {
    console.log("\nmock / Prism, req/s:");
    for (const shape of Object.keys(scripts)) {
      const ratio = of(results[shape]!.mock!, "rate") /
        of(results[shape]!.prism!, "rate");
      console.log(`- ${shape}: ${ratio.toFixed(1)}x`);
    }
  }
} finally {
  for (const server of Object.values(servers)) server.stop();
}
