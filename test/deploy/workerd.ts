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

function startWorker(bindings: Record<string, unknown>): Miniflare {
  return new Miniflare({
    // The module given whole, as bundled: Miniflare would otherwise walk
    // its imports itself.
    modules: [{ type: "ESModule", path: "worker.js", contents: code }],
    compatibilityDate: "2026-07-01",
    compatibilityFlags: ["nodejs_compat"],
    bindings,
  });
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
    after(() => worker.dispose());

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
      return new Miniflare({
        modules: [{ type: "ESModule", path: "worker.js", contents: code }],
        compatibilityDate: "2026-07-01",
        compatibilityFlags: ["nodejs_compat"],
        bindings,
        handleStructuredLogs: ({ message }: { message: string }) =>
          void logs.push(message),
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
          await worker.dispose();
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
        await worker.dispose();
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
    after(() => worker.dispose());

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
      db = await createTestDatabase();
      const sql = connectPostgres(db.url, { max: 1 });
      await migrate(sql);
      await sql.end();
      worker = startWorker({ LOG_LEVEL: "off", DATABASE_URL: db.url });
    });
    after(async () => {
      await worker?.dispose();
      await db?.drop();
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
      db = await createTestDatabase();
      const store = await openPostgresStore(db.url, { max: 1 });
      await store.seed(demoFixtures);
      await store.close();
      worker = startWorker({ LOG_LEVEL: "off", DATABASE_URL: db.url });
    });
    after(async () => {
      await worker?.dispose();
      await db?.drop();
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
      db = await createTestDatabase();
      const store = await openPostgresStore(db.url, { max: 2 });
      await store.seed(first.fixtures);
      await store.seed(second.fixtures);
      await store.close();
      worker = startWorker({
        LOG_LEVEL: "off",
        DATABASE_URL: db.url,
        MAX_CONCURRENT_EXPORTS: 2, // a number, as wrangler's [vars] give it
        MAX_EXPORTS_PER_PROJECT: "1",
      });
    });
    after(async () => {
      await worker?.dispose();
      await db?.drop();
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
