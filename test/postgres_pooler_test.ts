/**
 * The store through a real PgBouncer 1.18 in transaction mode with its
 * default settings (`ignore_startup_parameters` unset): the server starts
 * on it and serves 20 concurrent clients for 10 s of mixed requests with no
 * unexpected answer; migrations through the pooler are safe from several
 * processes at once; the transactions' timeouts never stay on a pooled
 * connection; migrating and seeding go through `DATABASE_DIRECT_URL`. The
 * load runs on the settings of the documented example, read from
 * docs/operating.md.
 * Needs DATABASE_URL (a real server) and PgBouncer (`.ci/run` installs it).
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { after, before, describe, it } from "node:test";
import postgres from "postgres";
import { connectPostgres, migrate, PostgresStore } from "../postgres/mod.ts";
import { applySessionSettings } from "../postgres/session_settings.ts";
import { runtimeName } from "../server/runtimes/mod.ts";
import {
  MIXED_LOAD_SERVER_ENV,
  mixedLoadData,
  runMixedLoad,
} from "./support/mixed_load.ts";
import {
  PGBOUNCER,
  type PgBouncer,
  startPgBouncer,
} from "./support/pgbouncer.ts";
import { createTestDatabase, type TestDatabase } from "./support/postgres.ts";
import { codeBlocks, documentSection } from "./support/docs.ts";
import { startServerMain } from "./support/server_main.ts";

const SERVER_URL = process.env.DATABASE_URL;
const CLIENTS = 20;
const LOAD_MS = 10_000;

/**
 * The settings of the documented PgBouncer example (read from
 * docs/operating.md), its
 * hosts, credentials and database made this test's: PgBouncer's port for
 * DATABASE_URL, the server's for DATABASE_DIRECT_URL, each URL's query kept.
 */
function readmePoolerSettings(
  db: TestDatabase,
  bouncer: PgBouncer,
): Record<string, string> {
  const [example] = codeBlocks(
    documentSection("docs/operating.md", "Session settings and poolers"),
    "sh",
  );
  const written = Object.fromEntries(
    [...example!.text.matchAll(/(\w+)='([^']*)'/g)].map(([, name, value]) => [
      name!,
      value!,
    ]),
  );
  const retarget = (url: string | undefined, target: string) => {
    assert.ok(url, `the documented example lacks a URL: ${example!.text}`);
    const [to, from] = [new URL(url), new URL(target)];
    Object.assign(to, {
      username: from.username,
      password: from.password,
      host: from.host,
      pathname: from.pathname,
    });
    return to.href;
  };
  return {
    DATABASE_URL: retarget(written.DATABASE_URL, db.urlThrough(bouncer.port)),
    DATABASE_DIRECT_URL: retarget(written.DATABASE_DIRECT_URL, db.url),
  };
}

describe("Postgres through PgBouncer in transaction mode", {
  skip: !SERVER_URL && "needs DATABASE_URL: a real PostgreSQL server",
}, () => {
  let db: TestDatabase;
  let bouncer: PgBouncer;
  let directory: string;
  before(async () => {
    assert.ok(
      existsSync(PGBOUNCER),
      `${PGBOUNCER} is missing: apt-get install pgbouncer`,
    );
    db = await createTestDatabase();
    bouncer = await startPgBouncer(db);
    directory = mkdtempSync(join(tmpdir(), "pooler-test-"));
  });
  after(async () => {
    rmSync(directory, { recursive: true, force: true });
    await bouncer?.stop();
    await db?.drop();
  });

  it("refuses a startup parameter it does not know, as deployed", async () => {
    const sql = postgres(bouncer.url, {
      max: 1,
      connection: { statement_timeout: 30_000 },
      onnotice: () => {},
    });
    try {
      await assert.rejects(
        sql`SELECT 1`,
        /unsupported startup parameter: statement_timeout/,
      );
    } finally {
      await sql.end({ timeout: 1 });
    }
  });

  it("migrates safely from four processes at once through the pooler", async () => {
    const pools = Array.from(
      { length: 4 },
      () => connectPostgres(bouncer.url, { max: 2 }),
    );
    try {
      const applied = await Promise.all(pools.map((sql) => migrate(sql)));
      assert.deepEqual(
        applied.map((files) => files.length).sort(),
        [0, 0, 0, 1],
      );
      const [{ count }] = await pools[0]!<[{ count: number }]>`
        SELECT count(*)::int AS count FROM schema_migrations`;
      assert.equal(count, 1);
    } finally {
      await Promise.all(pools.map((sql) => sql.end()));
    }
  });

  it("sets a transaction's timeouts for it alone, never on the pooled connection", async () => {
    const direct = postgres(db.url, { max: 1, onnotice: () => {} });
    const settings = (sql: postgres.Sql | postgres.TransactionSql) =>
      sql<{ pid: number; statement: string; idle: string }[]>`
        SELECT pg_backend_pid() AS pid,
          current_setting('statement_timeout') AS statement,
          current_setting('idle_in_transaction_session_timeout') AS idle`;
    const sql = connectPostgres(bouncer.url, { max: 1 });
    try {
      const [defaults] = await settings(direct);
      const [inside] = await sql.begin(async (tx) => {
        await applySessionSettings(tx, {
          statementTimeout: 1234,
          idleInTransactionTimeout: 5678,
        });
        return await settings(tx);
      });
      assert.equal(inside!.statement, "1234ms");
      assert.equal(inside!.idle, "5678ms");
      const [afterwards] = await settings(sql);
      // The same server connection (PgBouncer reuses the last one used)...
      assert.equal(afterwards!.pid, inside!.pid);
      // ...back to the server's settings.
      assert.equal(afterwards!.statement, defaults!.statement);
      assert.equal(afterwards!.idle, defaults!.idle);
    } finally {
      await sql.end();
      await direct.end();
    }
  });

  it("seeds through the direct pool, not the primary's", async () => {
    // The primary's pool points at a closed port: seeding still works.
    const store = new PostgresStore(
      connectPostgres("postgres://postgres@127.0.0.1:1/none", {
        connectTimeout: 1,
      }),
      { direct: connectPostgres(bouncer.url, { max: 1 }) },
    );
    try {
      const data = mixedLoadData("b1", { calls: 1, integrations: 0 });
      await store.seed(data.fixtures);
    } finally {
      await store.close(0);
    }
  });

  it("fails to start, naming it, when DATABASE_DIRECT_URL cannot be reached", async () => {
    const { server, url } = startServerMain({
      DATABASE_URL: bouncer.url,
      DATABASE_DIRECT_URL: "postgres://postgres@127.0.0.1:1/none",
    });
    try {
      await assert.rejects(url);
      assert.notEqual(await server.exited, 0);
      assert.match(server.stderr, /127\.0\.0\.1:1\b|ECONNREFUSED/);
    } finally {
      await server.stop();
    }
  });

  it("fails to start when DATABASE_URL cannot be reached, though the direct URL can", async () => {
    const { server, url } = startServerMain({
      DATABASE_URL: "postgres://postgres@127.0.0.1:1/none?prepare=false",
      DATABASE_DIRECT_URL: db.url,
    });
    try {
      await assert.rejects(url);
      assert.notEqual(await server.exited, 0);
    } finally {
      await server.stop();
    }
  });

  it(`serves ${CLIENTS} clients for ${LOAD_MS / 1000} s of mixed requests, 0 unexpected answers (${runtimeName()})`, async () => {
    const data = mixedLoadData("b2", { calls: 40, integrations: 4000 });
    const fixturesPath = join(directory, "fixtures.json");
    writeFileSync(fixturesPath, JSON.stringify(data.fixtures));
    const settings = readmePoolerSettings(db, bouncer);
    assert.match(settings.DATABASE_URL!, /\?prepare=false$/);
    const { server, url } = startServerMain({
      ...MIXED_LOAD_SERVER_ENV,
      ...settings,
      FIXTURES: fixturesPath,
      // Its tokens are short, as tests' are.
      ALLOW_SHORT_TOKENS: "1",
      // Every client is one project's: all slots may be its own.
      MAX_CONCURRENT_EXPORTS: String(CLIENTS),
      MAX_EXPORTS_PER_PROJECT: String(CLIENTS),
    });
    try {
      const base = await url;
      const before = await bouncer.receivedBytes();
      const result = await runMixedLoad(base, data, {
        clients: CLIENTS,
        ms: LOAD_MS,
      });
      const received = await bouncer.receivedBytes() - before;
      console.log(
        `through PgBouncer: ${
          JSON.stringify(result.counts)
        }, ${received} bytes of statements`,
      );
      assert.deepEqual(result.unexpected, []);
      // Every request's statements went through PgBouncer: each request sends
      // at least one, its text and a UUID or digest parameter, over 64 bytes.
      const requests = Object.values(result.counts).reduce((a, b) => a + b);
      assert.ok(received >= 64 * requests, `${received} < 64 × ${requests}`);
      for (const kind of ["lookup", "export", "trigger", "delete", "401"]) {
        assert.ok((result.counts[kind] ?? 0) >= 10, `few ${kind}`);
      }
      assert.doesNotMatch(server.output, /unsupported startup parameter/);
    } finally {
      await server.stop();
    }
  });
});
