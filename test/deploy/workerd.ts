/**
 * The API as a Cloudflare module Worker (server/worker.ts, `./worker`), bundled
 * with `bun build` and run under workerd through Miniflare (npm `miniflare`,
 * which ships the workerd binary): every operation on the memory store, then
 * on Postgres reached through workerd's sockets (`cloudflare:sockets`), the
 * database migrated and seeded from Node first.
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
});
