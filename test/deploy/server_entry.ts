/**
 * The `./server` entry (server/mod.ts) served as platforms serve it:
 * `deno serve` (one process, and `--parallel`), `bun <file>` and
 * `node <file>` (through the Node adapter), each
 * answering every operation over HTTP and writing the access log on stdout;
 * on Postgres, `--parallel` workers share the store.
 *
 * Run under Node only: `node --test test/deploy/server_entry.ts`.
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import process from "node:process";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { countRows, createTestDatabase } from "../support/postgres.ts";
import {
  checkBulkExport,
  checkCallMessages,
  checkEveryOperation,
  checkNoDemoTokens,
  checkProbes,
  checkTriggerTest,
  DEMO,
  type Send,
} from "./fetch_checks.ts";
import { denoServeArgs, freePort, ServerProcess } from "./processes.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const BIN = join(ROOT, "node_modules", ".bin");
const running = new Set<ServerProcess>();

after(async () => {
  await Promise.all([...running].map((server) => server.stop()));
});

interface Launch {
  name: string;
  /** Several workers, each with its own memory store. */
  parallel?: boolean;
  command(port: number): [string, string[]];
}

const launches: Launch[] = [
  {
    name: "deno serve",
    command: (port) => [join(BIN, "deno"), denoServeArgs(port)],
  },
  {
    name: "deno serve --parallel",
    parallel: true,
    command: (port) => [
      join(BIN, "deno"),
      denoServeArgs(port, "--parallel"),
    ],
  },
  {
    name: "bun",
    command: () => [join(BIN, "bun"), ["server/mod.ts"]],
  },
  {
    // Node 24 (this process's) runs the entry, which listens by itself.
    name: "node",
    command: () => [process.execPath, ["server/mod.ts"]],
  },
];

async function start(
  launch: Launch,
  env: Record<string, string | undefined>,
): Promise<[ServerProcess, string]> {
  const port = await freePort();
  const [command, args] = launch.command(port);
  const server = new ServerProcess(command, args, {
    cwd: ROOT,
    env: {
      ...process.env,
      // Bun reads these; deno serve takes --port and --host.
      PORT: String(port),
      HOST: "127.0.0.1",
      DATABASE_URL: undefined,
      FIXTURES: undefined,
      LOG_LEVEL: undefined,
      LOG_FORMAT: undefined,
      DENO_SERVE_WORKERS: "2",
      ...env,
    },
  });
  running.add(server);
  const url = `http://127.0.0.1:${port}`;
  await server.ready(`${url}/healthz`);
  return [server, url];
}

function sendTo(url: string): Send {
  return (path, init) => fetch(`${url}${path}`, init);
}

describe("the ./server entry", () => {
  for (const launch of launches) {
    if (launch.parallel) {
      // Each worker has its own memory store: a delete seen by one is not
      // seen by the other, so only reads are checked here (Postgres below).
      it(`answers the read operations under ${launch.name}`, async () => {
        const [server, url] = await start(launch, {});
        try {
          const send = sendTo(url);
          await checkProbes(send);
          await checkCallMessages(send);
          await checkBulkExport(send);
          await checkTriggerTest(send);
          assert.match(server.stderr, /serve-worker-1/, server.output);
        } finally {
          await server.stop();
          running.delete(server);
        }
      });
      continue;
    }
    it(`answers every operation under ${launch.name}, logging JSON lines`, async () => {
      const [server, url] = await start(launch, {});
      try {
        await checkEveryOperation(sendTo(url));
        // The access log counts a JSON body whole: it keeps its length.
        const openapi = await fetch(`${url}/openapi.json`);
        const length = openapi.headers.get("content-length");
        assert.equal(Number(length), (await openapi.arrayBuffer()).byteLength);
        // The reference page is a step of the pipeline on every launcher.
        const page = await fetch(`${url}/docs`);
        assert.equal(page.status, 200);
        assert.match(await page.text(), /swagger-ui-bundle\.js/);
        assert.ok(page.headers.get("x-request-id"));
        assert.match(
          server.stderr,
          /API ready \((deno|bun|node), memory store/,
        );
        // The lines of the last requests may still be on their way.
        await new Promise((resolve) => setTimeout(resolve, 200));
        const lines = server.jsonLines();
        const deletes = lines.filter((line) => line.method === "DELETE");
        assert.deepEqual(
          deletes.map((line) => [line.status, line.error_code]),
          [[204, undefined], [404, "INTEGRATION_NOT_FOUND"]],
          server.output,
        );
        const bulk = lines.find((line) =>
          line.method === "POST" &&
          line.path === "/v1/call/message/bulk"
        );
        assert.ok(bulk, server.output);
        assert.equal(bulk.status, 200);
        assert.ok((bulk.bytes as number) > 0);
        // Built by the context: the log counts the page's bytes.
        assert.deepEqual(
          lines.filter((line) => line.path === "/docs").map((line) => [
            line.status,
            (line.bytes as number) > 0,
          ]),
          [[200, true]],
          server.output,
        );
        assert.ok(
          !lines.some((line) => line.path === "/healthz"),
          "probes are not logged at the default level",
        );
        assert.ok(!JSON.stringify(lines).includes("demo-"), "no token logged");
      } finally {
        await server.stop();
        running.delete(server);
      }
    });
  }

  for (const launch of launches.filter((launch) => !launch.parallel)) {
    it(`seeds nothing on Postgres without FIXTURES under ${launch.name}`, async () => {
      const db = await createTestDatabase();
      try {
        const [server, url] = await start(launch, {
          DATABASE_URL: db.url,
          DATABASE_POOL_SIZE: String(db.max),
        });
        try {
          await checkNoDemoTokens(sendTo(url));
          assert.equal(await countRows(db.url, "tokens"), 0);
          assert.match(server.stderr, /postgres store, nothing seeded/);
        } finally {
          await server.stop();
          running.delete(server);
        }
      } finally {
        await db.drop();
      }
    });
  }

  it("shares a Postgres store between deno serve --parallel workers", async () => {
    const db = await createTestDatabase();
    try {
      const [server, url] = await start(launches[1]!, {
        DATABASE_URL: db.url,
        DATABASE_POOL_SIZE: String(db.max),
        FIXTURES: "demo",
      });
      try {
        // Each worker seeds the store as it starts: a delete answered by one
        // before the other has seeded would be undone. Both first.
        const deadline = Date.now() + 30_000;
        while (
          (server.stderr.match(/API ready/g) ?? []).length < 2 &&
          Date.now() < deadline
        ) await new Promise((resolve) => setTimeout(resolve, 100));
        const send = sendTo(url);
        const statuses: number[] = [];
        // Several deletes over fresh connections: whichever worker answers,
        // one store holds the state.
        for (let i = 0; i < 4; i++) {
          const response = await send(
            `/v1/integration/${DEMO.httpIntegration}`,
            {
              method: "DELETE",
              headers: {
                authorization: "Bearer demo-admin",
                connection: "close",
              },
            },
          );
          statuses.push(response.status);
          await response.arrayBuffer();
        }
        assert.deepEqual(statuses, [204, 404, 404, 404], server.output);
        const ready = await send("/readyz");
        assert.equal(ready.status, 200);
        await ready.arrayBuffer();
      } finally {
        await server.stop();
        running.delete(server);
      }
    } finally {
      await db.drop();
    }
  });
});
