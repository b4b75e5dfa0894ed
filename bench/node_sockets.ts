/**
 * Node's servers over in-memory sockets: each server's own HTTP server
 * (Node's parser, @hono/node-server, the handler, the access log to a file)
 * fed by 50 in-memory connections, each sending its next request once its
 * answer is whole, batched a turn of the event loop as a socket's reads are;
 * the process's CPU µs a request (`process.cpuUsage`) over `BENCH_REQUESTS`
 * (default 100,000) after as many to warm up. No kernel, no wrk: what the
 * JavaScript costs, with a spread of a few percent where `hot_path.ts`'s
 * paired figures spread by ±15 % on a loaded machine. It leaves out the
 * socket's read and write, about half of a request's CPU over loopback.
 *
 * Servers, each in a process of its own per round, rounds alternating:
 * `bare` and `minimal` (`bench_server.ts`), `api` (`server/main.ts`,
 * default settings, log on), `hono` (`hono_peer.ts`: install its packages
 * first, as for `hot_path.ts`) and, with `BENCH_BEFORE=<checkout>`,
 * `before`: that checkout's API. `BENCH_SERVERS` picks (default `bare,minimal,api,hono`),
 * `BENCH_ROUNDS` (default 5). Prints each server's median and its ratio to
 * the API's, for the trigger test and the delete-404.
 *
 * Run: `node bench/node_sockets.ts` (Node only).
 *
 * @module
 */
import { spawnSync } from "node:child_process";
import {
  closeSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import process from "node:process";
import { Duplex } from "node:stream";
import { setImmediate, setTimeout } from "node:timers";
import { apiFixtures, FLOWS, TOKENS } from "../test/support/api_fixtures.ts";

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CONNECTIONS = 50;

/** The two requests, as wrk sends them (no body, no framing header). */
const TARGETS: Record<string, string> = {
  trigger: `POST /v1/workflow/${FLOWS.webhook}/trigger/test`,
  delete404: "DELETE /v1/integration/99999999-9999-4999-8999-999999999999",
};

/** Starts a server in this process (see the module doc). */
async function startServer(server: string, checkout: string): Promise<void> {
  if (server === "bare" || server === "minimal") {
    process.argv[2] = server;
    await import(join(checkout, "bench/bench_server.ts"));
  } else if (server === "hono") {
    const { honoPeer } = await import(join(checkout, "bench/hono_peer.ts"));
    const { serveOnRuntime } = await import(
      join(checkout, "bench/runtime_server.ts")
    );
    await serveOnRuntime((await honoPeer()).fetch, 0);
  } else {
    // Not awaited: `main.ts` awaits its server's end.
    void import(join(checkout, "server/main.ts"));
  }
}

/** The listening HTTP server of this process. */
async function listeningServer(): Promise<Server> {
  for (;;) {
    const handles = (process as unknown as {
      _getActiveHandles(): unknown[];
    })._getActiveHandles();
    const server = handles.find((handle) =>
      (handle as { listening?: boolean }).listening === true &&
      typeof (handle as { emit?: unknown }).emit === "function" &&
      "maxHeadersCount" in (handle as object)
    );
    if (server !== undefined) return server as Server;
    await new Promise((done) => setTimeout(done, 20));
  }
}

/** Serves `requests` over in-memory connections; resolves once answered. */
function drive(server: Server, request: Uint8Array, requests: number) {
  let answered = 0;
  let sent = 0;
  let ready: FakeSocket[] = [];
  const sendReady = () => {
    const sockets = ready;
    ready = [];
    for (const socket of sockets) socket.push(request);
  };
  const { promise, resolve: finished } = Promise.withResolvers<void>();
  /** One connection: reads each whole answer, then sends the next request. */
  class FakeSocket extends Duplex {
    remoteAddress = "127.0.0.1";
    remotePort = 40_000;
    #pending = "";
    setTimeout() {
      return this;
    }
    setNoDelay() {
      return this;
    }
    setKeepAlive() {
      return this;
    }
    override _read() {}
    override _write(chunk: Uint8Array | string, _: string, done: () => void) {
      this.#received(chunk);
      done();
    }
    #received(chunk: Uint8Array | string) {
      this.#pending += typeof chunk === "string"
        ? chunk
        : Buffer.from(chunk).toString("latin1");
      for (;;) {
        const head = this.#pending.indexOf("\r\n\r\n");
        if (head === -1) return;
        const length = /content-length: (\d+)/i.exec(
          this.#pending.slice(0, head),
        );
        const end = head + 4 + Number(length?.[1] ?? 0);
        if (this.#pending.length < end) return;
        this.#pending = this.#pending.slice(end);
        answered += 1;
        if (answered === requests) finished();
        else if (sent < requests) {
          sent += 1;
          if (ready.length === 0) setImmediate(sendReady);
          ready.push(this);
        }
      }
    }
  }
  for (let i = 0; i < CONNECTIONS && sent < requests; i += 1) {
    const socket = new FakeSocket();
    server.emit("connection", socket);
    sent += 1;
    socket.push(request);
  }
  return promise;
}

/** One measurement in this process: prints the CPU µs a request. */
async function child(server: string, checkout: string, target: string) {
  await startServer(server, checkout);
  const listening = await listeningServer();
  const request = new TextEncoder().encode(
    `${TARGETS[target]} HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n` +
      `Authorization: Bearer ${TOKENS.owner}\r\n\r\n`,
  );
  await drive(listening, request, REQUESTS);
  const before = process.cpuUsage();
  await drive(listening, request, REQUESTS);
  const { user, system } = process.cpuUsage(before);
  process.stderr.write(`cpu ${(user + system) / REQUESTS}\n`);
  process.exit(0);
}

/** Runs one measurement in a child process; its CPU µs a request. */
function measure(server: string, checkout: string, target: string): number {
  const dir = mkdtempSync(join(tmpdir(), "node-sockets-"));
  const fixtures = join(dir, "fixtures.json");
  writeFileSync(fixtures, JSON.stringify(apiFixtures));
  const log = openSync(join(dir, "stdout"), "w");
  try {
    const { stderr } = spawnSync(
      process.execPath,
      [import.meta.filename!, "--child", server, checkout, target],
      {
        encoding: "utf8",
        stdio: ["ignore", log, "pipe"],
        env: { ...process.env, PORT: "0", FIXTURES: fixtures },
        timeout: 300_000,
      },
    );
    const cpu = /cpu ([\d.]+)/.exec(stderr);
    if (cpu === null) throw new Error(`${server} failed: ${stderr}`);
    return Number(cpu[1]);
  } finally {
    closeSync(log);
    rmSync(dir, { recursive: true });
  }
}

if (process.argv[2] === "--child") {
  const [server, checkout, target] = process.argv.slice(3) as [
    string,
    string,
    string,
  ];
  await child(server, checkout, target);
} else if (import.meta.main) {
  const here = resolve(import.meta.dirname!, "..");
  const servers: [string, string][] = (process.env.BENCH_SERVERS ??
    "bare,minimal,api,hono").split(",").map((name) => [name, here]);
  if (process.env.BENCH_BEFORE !== undefined) {
    servers.push(["before", resolve(process.env.BENCH_BEFORE)]);
  }
  const median = (values: number[]) =>
    [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  for (const target of Object.keys(TARGETS)) {
    const cpu = new Map(servers.map(([name]) => [name, [] as number[]]));
    for (let round = 0; round < ROUNDS; round += 1) {
      const order = round % 2 === 0 ? servers : servers.toReversed();
      for (const [name, checkout] of order) {
        cpu.get(name)!.push(
          measure(name === "before" ? "api" : name, checkout, target),
        );
      }
    }
    const api = median(cpu.get("api") ?? [NaN]);
    for (const [name, figures] of cpu) {
      console.log(
        `${target} ${name}: ${median(figures).toFixed(2)} µs a request (${
          (median(figures) / api).toFixed(3)
        }× the API's; ${figures.map((f) => f.toFixed(2)).join(" ")})`,
      );
    }
  }
  console.log(
    `${new Date().toISOString()}, load average ${
      readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")
    }; ${ROUNDS} rounds of ${REQUESTS} requests, medians`,
  );
}
