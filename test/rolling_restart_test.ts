/**
 * A rolling restart under load: two instances of `npm start`
 * (server/main.ts, on the runtime running this file) behind a small TCP
 * balancer that polls `/readyz`; each instance in turn gets SIGTERM, exits
 * 0 and starts again while eight clients keep sending requests (call
 * messages, and every fifth an export) over keep-alive connections. Not
 * one request may fail.
 *
 * @module
 */
import assert from "node:assert/strict";
import process from "node:process";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { denoServeArgs, freePort, ServerProcess } from "./deploy/processes.ts";
import { TcpBalancer } from "./support/tcp_balancer.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const RUN = "Deno" in globalThis ? ["run", "--allow-all"] : [];
const CALL = "1f0e8d7c-6b5a-4493-8281-706f5e4d3c2b"; // a demo call
const CLIENTS = 8;

const running = new Set<ServerProcess>();
after(() => Promise.all([...running].map((server) => server.stop())));

/** The entries restarted: `npm start`, and `./server` as each runtime serves it. */
const entries: { name: string; args(port: number): string[] }[] = [
  { name: "npm start", args: () => [...RUN, "server/main.ts"] },
  "Deno" in globalThis
    ? {
      name: "./server under deno serve",
      args: (port) => denoServeArgs(port),
    }
    : { name: "./server", args: () => ["server/mod.ts"] },
];

function startInstance(
  args: (port: number) => string[],
  port: number,
): ServerProcess {
  const server = new ServerProcess(process.execPath, args(port), {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      FIXTURES: undefined,
      DATABASE_URL: undefined,
      LOG_LEVEL: "off",
      SHUTDOWN_TIMEOUT: "10",
    },
  });
  running.add(server);
  return server;
}

/** What the clients saw. */
interface Tally {
  ok: number;
  failed: string[];
  /** What the test is doing, and since when: named in each failure. */
  phase: string;
  since: number;
}

/** Moves `tally` to the phase `name`. */
function enter(tally: Tally, name: string): void {
  tally.phase = name;
  tally.since = performance.now();
}

/**
 * Answers the clients must get between two steps (and at least a second):
 * the load runs through each step whatever the machine's speed. Under a
 * second's worth on a quiet machine.
 */
const STEADY = 100;

/** Resolves once `tally.ok` reaches `count`; fails on no progress for 60 s. */
async function answered(tally: Tally, count: number): Promise<void> {
  let last = tally.ok;
  let progressed = Date.now();
  while (tally.ok < count) {
    if (tally.ok > last) [last, progressed] = [tally.ok, Date.now()];
    if (Date.now() - progressed > 60_000) {
      throw new Error(
        `${tally.ok} of ${count} answers; ${tally.failed.length} failed`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The load runs a second at least, and `STEADY` more answers. */
function steady(tally: Tally): Promise<unknown> {
  return Promise.all([
    new Promise((resolve) => setTimeout(resolve, 1000)),
    answered(tally, tally.ok + STEADY),
  ]);
}

/** One client: requests one after another until `stop` is aborted. */
async function client(url: string, stop: AbortSignal, tally: Tally) {
  for (let i = 0; !stop.aborted; i++) {
    const exporting = i % 5 === 4;
    const failed = (what: string) =>
      tally.failed.push(
        `${what} (${tally.phase}, after ${
          Math.round(performance.now() - tally.since)
        } ms)`,
      );
    try {
      const response = exporting
        ? await fetch(`${url}/v1/call/message/bulk`, {
          method: "POST",
          headers: {
            authorization: "Bearer demo-viewer",
            "content-type": "application/json",
          },
          body: JSON.stringify({ call_ids: [CALL] }),
        })
        : await fetch(`${url}/v1/call/${CALL}/message`, {
          headers: { authorization: "Bearer demo-viewer" },
        });
      const body = new Uint8Array(await response.arrayBuffer());
      const whole = exporting
        ? body[0] === 0x50 && body[1] === 0x4b // "PK"
        : Array.isArray(JSON.parse(new TextDecoder().decode(body)));
      if (response.status === 200 && whole) tally.ok += 1;
      else failed(`${response.status} ${exporting ? "export" : ""}`);
    } catch (error) {
      failed(String((error as Error).cause ?? error));
    }
    // The next request after a turn of the event loop, once the client has
    // taken the connection back: on it, not on another the pool opens meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
}

describe("a rolling restart of two instances behind a balancer", () => {
  for (const entry of entries) {
    it(
      `${entry.name}: loses no request while each instance in turn stops and starts again`,
      {
        timeout: 180_000,
      },
      async () => {
        const ports = [await freePort(), await freePort()];
        const instances = ports.map((port) => startInstance(entry.args, port));
        const balancer = new TcpBalancer(ports);
        // Each client on a port of its own: a pool of its own, so its one
        // connection is the one it reuses at once, and none sits idle in a
        // shared pool for a stopping server to close as a client takes it
        // (nodejs/undici#3492).
        const urls: string[] = [];
        for (let i = 0; i < CLIENTS; i++) {
          urls.push(`http://127.0.0.1:${await balancer.listen()}`);
        }
        try {
          await Promise.all(ports.map((port) => balancer.ready(port)));
          const stop = new AbortController();
          const tally: Tally = { ok: 0, failed: [], phase: "", since: 0 };
          enter(tally, "both instances up");
          const load = Promise.all(
            urls.map((url) => client(url, stop.signal, tally)),
          );
          /** Answers while each instance stopped and started again. */
          const during: number[] = [];
          for (const [index, port] of ports.entries()) {
            await steady(tally);
            const old = instances[index]!;
            enter(tally, `instance ${index} stopping`);
            const before = tally.ok;
            assert.ok(
              old.running,
              `instance ${index} exited before it was stopped:\n${old.output}`,
            );
            old.kill("SIGTERM");
            assert.equal(await old.exited, 0, old.output);
            running.delete(old);
            enter(tally, `instance ${index} starting again`);
            instances[index] = startInstance(entry.args, port);
            await balancer.ready(port);
            during.push(tally.ok - before);
            enter(tally, "both instances up");
          }
          await steady(tally);
          stop.abort();
          await load;

          console.log(
            `rolling restart of ${entry.name}: ${tally.ok} requests answered (${
              during.join(" and ")
            } during the restarts), ${tally.failed.length} failed; connections per instance ${
              balancer.backends.map((backend) => backend.connections).join(", ")
            }`,
          );
          assert.deepEqual(tally.failed, []);
          assert.equal(balancer.dropped, 0);
          for (const [index, count] of during.entries()) {
            assert.ok(
              count > 0,
              `no request was answered while instance ${index} restarted`,
            );
          }
        } finally {
          await balancer.close();
        }
      },
    );
  }
});
