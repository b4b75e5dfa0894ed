/**
 * The API as a Cloudflare module Worker (server/worker.ts, `./worker`), bundled
 * with `bun build` and run under workerd through Miniflare (npm `miniflare`,
 * which ships the workerd binary): every operation on the memory store, then
 * on Postgres reached through workerd's sockets (`cloudflare:sockets`), the
 * database migrated and seeded from Node first, with the export slots
 * shared by the isolate's per-request handlers.
 *
 * Run under Node only: `node --test test/deploy/workerd.ts`.
 *
 * @module
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Miniflare } from "miniflare";
import { demoFixtures } from "../../src/store/demo_fixtures.ts";
import {
  connectPostgres,
  migrate,
  openPostgresStore,
} from "../../postgres/mod.ts";
import {
  countRows,
  createTestDatabase,
  type TestDatabase,
} from "../support/postgres.ts";
import { manyCalls, noise } from "../support/many_calls.ts";
import { bundle } from "./bundle.ts";
import {
  checkBulkExport,
  checkCallMessages,
  checkDeleteTwice,
  checkEveryOperation,
  checkNoDemoTokens,
  checkTriggerTest,
  DEMO,
  type Send,
} from "./fetch_checks.ts";

let code: string;

/**
 * Every worker and database this file started and has not stopped yet. The
 * file's last `after` stops them, so that the file ends at its timeout: a
 * test or hook that times out is abandoned, not stopped, so what it started
 * may be past its own `after` (a `before` that times out still starts its
 * worker later, once `after` has found none). What starts after the file's
 * end is stopped at once.
 */
const workers = new Set<Miniflare>();
const databases = new Set<TestDatabase>();
let ended = false;

after(async () => {
  ended = true;
  await Promise.all([...workers].map(stopWorker));
  await Promise.all([...databases].map(dropDatabase));
});

function startWorker(
  bindings: Record<string, unknown>,
  options: { handleStructuredLogs?: (log: { message: string }) => void } = {},
): Miniflare {
  const worker = new Miniflare({
    // The module given whole, as bundled: Miniflare would otherwise walk
    // its imports itself.
    modules: [{ type: "ESModule", path: "worker.js", contents: code }],
    compatibilityDate: "2026-07-01",
    compatibilityFlags: ["nodejs_compat"],
    bindings,
    ...options,
  });
  workers.add(worker);
  if (ended) {
    void stopWorker(worker);
    throw new Error("Cannot start a worker: the file's tests have ended");
  }
  return worker;
}

/** Disposes `worker` (workerd exits), once; nothing for `undefined`. */
async function stopWorker(worker: Miniflare | undefined): Promise<void> {
  if (worker !== undefined && workers.delete(worker)) await worker.dispose();
}

async function freshDatabase(): Promise<TestDatabase> {
  const db = await createTestDatabase();
  databases.add(db);
  if (ended) {
    await dropDatabase(db);
    throw new Error("Cannot use a database: the file's tests have ended");
  }
  return db;
}

/** Drops `db`, once; nothing for `undefined`. */
async function dropDatabase(db: TestDatabase | undefined): Promise<void> {
  if (db !== undefined && databases.delete(db)) await db.drop();
}

function sender(worker: Miniflare): Send {
  return async (path, init) => {
    // Miniflare's own Response (undici's); re-wrapped as this runtime's.
    const response = await worker.dispatchFetch(
      `http://worker.test${path}`,
      init as never,
    );
    return new Response(
      response.status === 204 ? null : await response.arrayBuffer(),
      {
        status: response.status,
        headers: Object.fromEntries(response.headers as never),
      },
    );
  };
}

describe("the Worker under workerd (Miniflare)", () => {
  before(() => {
    code = bundle("server/worker.ts", {
      format: "esm",
      conditions: ["workerd"],
    });
  });

  describe("on the memory store (demo data)", () => {
    let worker: Miniflare;
    before(() => worker = startWorker({ LOG_LEVEL: "off" }));
    after(() => stopWorker(worker));

    it("answers every operation: ZIP read back, delete twice, trigger test", async () => {
      await checkEveryOperation(sender(worker));
    });

    it("keeps the isolate's state between requests", async () => {
      const send = sender(worker);
      const again = await send(`/v1/integration/${DEMO.httpIntegration}`, {
        method: "DELETE",
        headers: { authorization: "Bearer demo-admin" },
      });
      assert.equal(again.status, 404);
    });
  });

  describe("with bindings the settings reader refuses", () => {
    let logs: string[];
    const workerLogging = (bindings: Record<string, unknown>) => {
      logs = [];
      return startWorker(bindings, {
        handleStructuredLogs: ({ message }) => void logs.push(message),
      });
    };

    for (
      const [name, value, refusal] of [
        ["LOG_LEVEL", "verbose", /LOG_LEVEL must be one of/],
        [
          "MAX_CONCURRENT_EXPORTS",
          "lots",
          /MAX_CONCURRENT_EXPORTS must be a positive integer, got "lots"/,
        ],
        ["EXPORT_STALL_TIMEOUT", 0, /EXPORT_STALL_TIMEOUT must be a positive/],
      ] as const
    ) {
      it(`answers 500 and logs the refusal for ${name}=${value}`, async () => {
        const worker = workerLogging({ [name]: value });
        try {
          const response = await worker.dispatchFetch(
            `http://worker.test/v1/call/${DEMO.calls[0]}/message`,
            { headers: { authorization: "Bearer demo-viewer" } },
          );
          assert.equal(response.status, 500);
          assert.equal(
            ((await response.json()) as { error_code: string }).error_code,
            "INTERNAL_SERVER_ERROR",
          );
          assert.match(logs.join("\n"), refusal);
        } finally {
          await stopWorker(worker);
        }
      });
    }

    it("ignores the OTEL_* bindings, which the Worker does not read", async () => {
      const worker = workerLogging({
        LOG_LEVEL: "off",
        OTEL_TRACES_EXPORTER: "zipkin",
      });
      try {
        const response = await worker.dispatchFetch(
          `http://worker.test/v1/call/${DEMO.calls[0]}/message`,
          { headers: { authorization: "Bearer demo-viewer" } },
        );
        assert.equal(response.status, 200);
        await response.arrayBuffer();
      } finally {
        await stopWorker(worker);
      }
    });
  });

  describe("seeded from a FIXTURES binding", () => {
    let worker: Miniflare;
    before(() =>
      worker = startWorker({
        LOG_LEVEL: "off",
        FIXTURES: {
          projects: [{
            project_id: "0b6f1c2e-8d3a-4c55-9a57-3e3c2d1f0a11",
            name: "Bound",
          }],
          tokens: [{
            token: "bound-token",
            project_id: "0b6f1c2e-8d3a-4c55-9a57-3e3c2d1f0a11",
            role: "viewer",
          }],
        },
      })
    );
    after(() => stopWorker(worker));

    it("serves the binding's tokens, not the demo ones", async () => {
      const send = sender(worker);
      const path = `/v1/call/${DEMO.calls[0]}/message`;
      const bound = await send(path, {
        headers: { authorization: "Bearer bound-token" },
      });
      assert.equal(bound.status, 404);
      assert.equal((await bound.json()).error_code, "CALL_NOT_FOUND");
      const demo = await send(path, {
        headers: { authorization: "Bearer demo-viewer" },
      });
      assert.equal(demo.status, 401);
    });
  });

  describe("on a fresh Postgres database, migrated, nothing seeded", () => {
    let db: TestDatabase;
    let worker: Miniflare;
    before(async () => {
      db = await freshDatabase();
      const sql = connectPostgres(db.url, { max: 1 });
      try {
        await migrate(sql);
      } finally {
        await sql.end();
      }
      worker = startWorker({ LOG_LEVEL: "off", DATABASE_URL: db.url });
    });
    after(async () => {
      await stopWorker(worker);
      await dropDatabase(db);
    });

    it("knows no demo token: demo-owner gets 401", async () => {
      await checkNoDemoTokens(sender(worker));
      assert.equal(await countRows(db.url, "tokens"), 0);
    });
  });

  describe("on Postgres through workerd's sockets", () => {
    let db: TestDatabase;
    let worker: Miniflare;
    before(async () => {
      db = await freshDatabase();
      const store = await openPostgresStore(db.url, { max: 1 });
      try {
        await store.seed(demoFixtures);
      } finally {
        await store.close();
      }
      worker = startWorker({ LOG_LEVEL: "off", DATABASE_URL: db.url });
    });
    after(async () => {
      await stopWorker(worker);
      await dropDatabase(db);
    });

    it("reads, exports, tests triggers and deletes (204 then 404) in the database", async () => {
      const send = sender(worker);
      const ready = await send("/readyz");
      assert.equal(ready.status, 200);
      await checkCallMessages(send);
      await checkBulkExport(send);
      await checkTriggerTest(send);
      await checkDeleteTwice(send, DEMO.mcpIntegration);
    });
  });

  describe("export slots shared by the isolate's requests, on Postgres", () => {
    /** Two projects' exports of about 8 MB: an unread one stays open. */
    const first = manyCalls({
      prefix: "6a",
      calls: 120,
      messages: 50,
      message: (call, index) => ({ text: noise(call * 1000 + index, 2000) }),
    });
    const second = manyCalls({ prefix: "6b", calls: 3, messages: 2 });
    let db: TestDatabase;
    let worker: Miniflare;
    before(async () => {
      db = await freshDatabase();
      const store = await openPostgresStore(db.url, { max: 2 });
      try {
        await store.seed(first.fixtures);
        await store.seed(second.fixtures);
      } finally {
        await store.close();
      }
      worker = startWorker({
        LOG_LEVEL: "off",
        DATABASE_URL: db.url,
        MAX_CONCURRENT_EXPORTS: 2, // a number, as wrangler's [vars] give it
        MAX_EXPORTS_PER_PROJECT: "1",
      });
    });
    after(async () => {
      await stopWorker(worker);
      await dropDatabase(db);
    });

    const exportOf = (calls: typeof first) =>
      worker.dispatchFetch("http://worker.test/v1/call/message/bulk", {
        method: "POST",
        headers: {
          authorization: `Bearer ${calls.token}`,
          "content-type": "application/json",
        },
        body: JSON.stringify({ call_ids: calls.callIds }),
      });

    it(
      "refuses a project past its share across requests, not another project",
      {
        timeout: 120_000,
      },
      async () => {
        const running = await exportOf(first);
        assert.equal(running.status, 200);
        const reader = running.body!.getReader();
        assert.equal((await reader.read()).done, false);

        const refused = await exportOf(first);
        assert.equal(refused.status, 503);
        assert.deepEqual(await refused.json(), {
          status: "error",
          error_code: "TOO_MANY_EXPORTS",
          message:
            "This project is streaming its maximum of 1 exports at once; retry shortly",
        });
        const other = await exportOf(second);
        assert.equal(other.status, 200);
        await other.arrayBuffer();

        // Read to its end, the export gives its slot back.
        while (!(await reader.read()).done);
        const again = await exportOf(first);
        assert.equal(again.status, 200);
        await again.arrayBuffer();
      },
    );
  });
});
