/**
 * Graceful shutdown on SIGTERM, for every entry, as processes of the runtime
 * running this file: `npm start` (server/main.ts), the `./server` entry
 * (server/mod.ts: `deno serve` under Deno, by itself under Bun and Node) and
 * the bin's `serve`. `/readyz` answers 503 at once while other requests are
 * still served (asking clients to close); an export in flight finishes
 * whole; the process exits 0 and refuses connections afterwards; past
 * `SHUTDOWN_TIMEOUT` what is still open is cut and the process exits 0
 * anyway.
 *
 * @module
 */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { denoServeArgs, freePort, ServerProcess } from "./deploy/processes.ts";
import { manyCalls, noise } from "./support/many_calls.ts";
import { RawExport } from "./support/raw_export.ts";
import { readZip } from "./support/zip_reader.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const RUNTIME = "Deno" in globalThis
  ? "deno"
  : "Bun" in globalThis
  ? "bun"
  : "node";

/**
 * About 12 MB of messages, a 7.6 MB ZIP: more than the server's send buffer
 * (at most 4 MiB by Linux's default) and the reader's receive buffer (kept
 * at its first size, see RawExport) hold, so an export unread stays in
 * flight, the sockets' buffers full.
 */
const big = manyCalls({
  prefix: "5d",
  calls: 120,
  messages: 50,
  message: (call, index) => ({ text: noise(call * 1000 + index, 2000) }),
});

interface Entry {
  name: string;
  /** deno serve closes its listener itself on SIGTERM (Deno 2.9). */
  closesAtOnce?: boolean;
  args(port: number): string[];
}

const RUN = RUNTIME === "deno" ? ["run", "--allow-all"] : [];
const entries: Entry[] = [
  RUNTIME === "node"
    ? { name: "npm start (server/start.js)", args: () => ["server/start.js"] }
    : { name: "server/main.ts", args: () => [...RUN, "server/main.ts"] },
  RUNTIME === "deno"
    ? {
      name: "./server under deno serve",
      closesAtOnce: true,
      args: (port) => denoServeArgs(port),
    }
    : { name: `./server under ${RUNTIME}`, args: () => ["server/mod.ts"] },
  { name: "the bin's serve", args: () => [...RUN, "server/cli.ts", "serve"] },
];

let directory: string;
let fixturesPath: string;
before(async () => {
  directory = await mkdtemp(join(tmpdir(), "shutdown-"));
  fixturesPath = join(directory, "fixtures.json");
  await writeFile(fixturesPath, JSON.stringify(big.fixtures));
});
after(() => rm(directory, { recursive: true, force: true }));

async function start(
  entry: Entry,
  shutdownTimeout: number,
): Promise<[ServerProcess, string]> {
  const port = await freePort();
  const server = new ServerProcess(process.execPath, entry.args(port), {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      FIXTURES: fixturesPath,
      DATABASE_URL: undefined,
      LOG_LEVEL: "warn",
      SHUTDOWN_TIMEOUT: String(shutdownTimeout),
    },
  });
  const url = `http://127.0.0.1:${port}`;
  await server.ready(`${url}/healthz`);
  return [server, url];
}

/** An export whose first bytes arrived; the rest waits for its reader. */
async function exportInFlight(url: string): Promise<RawExport> {
  const running = new RawExport(
    Number(new URL(url).port),
    big.token,
    big.callIds,
    1024,
  );
  assert.ok(await running.receivedAtLeast(1024), "the export did not start");
  assert.match(running.head, /^HTTP\/1.1 200/);
  return running;
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/**
 * When the server said it began shutting down (it may take a moment to
 * handle the signal on a loaded machine); fails after 5 s.
 */
async function shutdownBegun(server: ServerProcess): Promise<number> {
  for (const end = Date.now() + 5000; Date.now() < end; await sleep(10)) {
    if (/SIGTERM: shutting down/.test(server.output)) return Date.now();
  }
  assert.fail(`no shutdown line within 5 s\n${server.output}`);
}

describe(`graceful shutdown on SIGTERM (${RUNTIME})`, () => {
  for (const entry of entries) {
    it(
      `${entry.name}: /readyz 503 at once, the export in flight finishes, exit 0, then refused`,
      {
        timeout: 60_000,
      },
      async () => {
        const [server, url] = await start(entry, 10);
        try {
          const running = await exportInFlight(url);
          server.kill("SIGTERM");
          await shutdownBegun(server);
          if (entry.closesAtOnce) {
            // deno serve stops listening on SIGTERM by itself: a balancer's
            // check fails as it would on a 503.
            await assert.rejects(fetch(`${url}/readyz`));
          } else {
            const ready = await fetch(`${url}/readyz`);
            assert.equal(ready.status, 503, server.output);
            assert.deepEqual(await ready.json(), {
              status: "error",
              error_code: "SERVICE_UNAVAILABLE",
              message: "The server is shutting down",
            });
            const health = await fetch(`${url}/healthz`);
            assert.equal(health.status, 200);
            assert.equal(health.headers.get("connection"), "close");
            await health.arrayBuffer();
          }
          // Longer than the quiet second: the unread export keeps it alive.
          await sleep(1500);
          assert.ok(server.running, `exited mid-export\n${server.output}`);
          const zip = await running.rest();
          assert.ok(zip, "the export was cut");
          assert.equal(readZip(zip).length, big.callIds.length);

          assert.equal(await server.exited, 0, server.output);
          assert.match(server.output, /Stopped after \d+ ms/);
          await assert.rejects(fetch(`${url}/healthz`));
        } finally {
          await server.stop();
        }
      },
    );

    it(
      `${entry.name}: past SHUTDOWN_TIMEOUT cuts an export nobody reads and exits 0`,
      {
        timeout: 60_000,
      },
      async () => {
        const [server, url] = await start(entry, 2);
        try {
          const running = await exportInFlight(url);
          server.kill("SIGTERM");
          assert.equal(await server.exited, 0, server.output);
          // Cut at 90 % of the deadline, by the server's own clock (this
          // loaded machine's scheduling aside).
          const took = Number(
            /Stopped after (\d+) ms/.exec(server.output)?.[1],
          );
          assert.ok(took >= 1700 && took <= 2000, server.output);
          assert.equal(
            await running.rest(),
            undefined,
            "the export ended whole",
          );
        } finally {
          await server.stop();
        }
      },
    );
  }
});
