import assert from "node:assert/strict";
import { readdir } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import type { FixturesInput } from "../src/store/fixtures.ts";
import {
  connectPostgres,
  loadMigrations,
  migrate,
  type Migration,
  MIGRATION_FILES,
} from "../postgres/mod.ts";
import { hashToken, sha256Hex } from "../src/store/sha256.ts";
import { openHarness, type PostgresHarness } from "./support/postgres_store.ts";

const P = "5c000000-0000-4000-8000-000000000001";
const Q = "5c000000-0000-4000-8000-000000000002";
const HTTP = "5c000000-0000-4000-8000-0000000000a1";
const MCP = "5c000000-0000-4000-8000-0000000000a2";
const OTHER_HTTP = "5c000000-0000-4000-8000-0000000000a3";
const OTHER_MCP = "5c000000-0000-4000-8000-0000000000a4";
const tool = (n: number) => `5c000000-0000-4000-8000-0000000000b${n}`;
const CALL = "5c000000-0000-4000-8000-0000000000c1";
const MESSAGES = [{ z: 1, a: "é 👍" }, { b: [1e21, -0] }, {}];

const fixtures: FixturesInput = {
  projects: [{ project_id: P, name: "P" }, { project_id: Q, name: "Q" }],
  tokens: [{ token: "secret-token", project_id: P, role: "admin" }],
  calls: [{
    call_id: CALL,
    project_id: P,
    created_at: "2026-03-01T10:00:00+01:00",
    messages: MESSAGES,
  }],
  integrations: [
    {
      integration_id: HTTP,
      project_id: P,
      kind: "http",
      name: "CRM",
      tools: [{ tool_id: tool(1), name: "a" }, { tool_id: tool(2), name: "b" }],
    },
    {
      integration_id: MCP,
      project_id: P,
      kind: "mcp",
      name: "Docs",
      cached_tools: [{ name: "search" }, { name: "fetch" }],
    },
    {
      integration_id: OTHER_HTTP,
      project_id: Q,
      kind: "http",
      name: "Q's CRM",
      tools: [{ tool_id: tool(3), name: "c" }],
    },
    {
      integration_id: OTHER_MCP,
      project_id: Q,
      kind: "mcp",
      name: "Q's Docs",
      cached_tools: [{ name: "q" }],
    },
  ],
  flows: [{
    flow_id: "5c000000-0000-4000-8000-0000000000d1",
    project_id: P,
    name: "Hook",
    trigger: { type: "webhook", sample_payload: { z: 1, a: 2 } },
  }],
};

let harness: PostgresHarness;
before(async () => harness = await openHarness());
after(() => harness.close());

/** How many rows each table holds. */
async function tableCounts(): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (
    const table of [
      "projects",
      "tokens",
      "calls",
      "call_messages",
      "integrations",
      "http_tools",
      "mcp_tool_cache",
      "flows",
    ]
  ) {
    const [row] = await harness.sql<{ count: number }[]>`
      SELECT count(*)::int AS count FROM ${harness.sql(table)}`;
    counts[table] = row!.count;
  }
  return counts;
}

/** Integration ids that still have rows in `table`. */
async function owners(table: "http_tools" | "mcp_tool_cache") {
  const rows = await harness.sql<{ integration_id: string }[]>`
    SELECT DISTINCT integration_id FROM ${harness.sql(table)}
    ORDER BY integration_id`;
  return rows.map((row) => row.integration_id);
}

describe("Postgres schema and migrations", () => {
  it("lists every file of migrations/ in MIGRATION_FILES, in order", async () => {
    const files = (await readdir(
      new URL("../postgres/migrations/", import.meta.url),
    )).filter((file) => file.endsWith(".sql")).sort();
    assert.deepEqual(files, [...MIGRATION_FILES]);
  });

  it("applies each migration once and records it", async () => {
    assert.deepEqual(await migrate(harness.sql), []);
    const recorded = await harness.sql<
      { version: string; file: string; checksum: string }[]
    >`SELECT version, file, checksum FROM schema_migrations ORDER BY version`;
    assert.deepEqual(
      recorded.map((row) => ({ ...row })),
      (await loadMigrations()).map(({ version, file, checksum }) => ({
        version,
        file,
        checksum,
      })),
    );
  });

  it("applies a new migration once when two processes start at the same time", async () => {
    const probe: Migration = {
      file: "9001_probe.sql",
      version: "9001",
      // Slow enough that both runs overlap without the lock.
      sql: "SELECT pg_sleep(0.3); CREATE TABLE probe (n int); " +
        "INSERT INTO probe VALUES (1);",
      checksum: await sha256Hex("probe"),
    };
    const migrations = [...await loadMigrations(), probe];
    const pools = [1, 2].map(() => connectPostgres(harness.db.url, { max: 1 }));
    try {
      const applied = await Promise.all(
        pools.map((sql) => migrate(sql, { migrations })),
      );
      assert.deepEqual(applied.flat(), ["9001_probe.sql"]);
      assert.deepEqual(
        [...await harness.sql`SELECT n FROM probe`],
        [{ n: 1 }],
      );
    } finally {
      await Promise.all(pools.map((sql) => sql.end()));
      await harness.sql`DROP TABLE IF EXISTS probe`;
      await harness.sql`DELETE FROM schema_migrations WHERE version = '9001'`;
    }
  });

  it("changes nothing when a migration fails", async () => {
    const broken: Migration = {
      file: "9002_broken.sql",
      version: "9002",
      sql: "CREATE TABLE half_done (n int); SELECT 1 / 0;",
      checksum: await sha256Hex("broken"),
    };
    await assert.rejects(
      migrate(harness.sql, { migrations: [...await loadMigrations(), broken] }),
      /division by zero/,
    );
    const [row] = await harness.sql`
      SELECT to_regclass('half_done') AS missing,
        (SELECT count(*)::int FROM schema_migrations WHERE version = '9002')
          AS recorded`;
    assert.deepEqual({ ...row }, { missing: null, recorded: 0 });
  });

  it("refuses to run when an applied migration has changed", async () => {
    const [first, ...rest] = await loadMigrations();
    await assert.rejects(
      migrate(harness.sql, {
        migrations: [
          { ...first!, checksum: await sha256Hex("edited") },
          ...rest,
        ],
      }),
      /Cannot migrate: "0001_initial\.sql" has changed since it was applied/,
    );
  });
});

describe("Postgres storage", () => {
  it("keeps tokens only as their SHA-256", async () => {
    const { close } = await harness.freshStore(fixtures);
    await close();
    const rows = await harness.sql`SELECT token_hash, role FROM tokens`;
    assert.deepEqual(rows.map((row) => ({ ...row })), [{
      token_hash: await hashToken("secret-token"),
      role: "admin",
    }]);
  });

  it("stores each message as its JSON text, by position", async () => {
    const { close } = await harness.freshStore(fixtures);
    await close();
    const rows = await harness.sql<{ position: number; body: string }[]>`
      SELECT position, body::text AS body FROM call_messages
      WHERE call_id = ${CALL} ORDER BY position`;
    assert.deepEqual(
      rows.map((row) => [row.position, row.body]),
      MESSAGES.map((message, i) => [i, JSON.stringify(message)]),
    );
  });

  it("refuses a message holding a raw record separator, the export's joint", async () => {
    const { close } = await harness.freshStore(fixtures);
    await close();
    // The export joins a call's messages with U+001E and splits them again:
    // json must refuse the character raw, in a string or between tokens.
    for (const body of ['{"text": "a\u001eb"}', '{"a": 1}\u001e']) {
      await assert.rejects(
        harness.sql`
          INSERT INTO call_messages (call_id, position, body)
          VALUES (${CALL}, 99, ${body}::text::json)`,
        { code: "22P02" },
      );
    }
  });

  it("deletes an HTTP integration's tools in cascade, and only those", async () => {
    const { store, close } = await harness.freshStore(fixtures);
    try {
      assert.equal(await store.deleteIntegration(P, HTTP), true);
    } finally {
      await close();
    }
    assert.deepEqual(await owners("http_tools"), [OTHER_HTTP]);
    assert.deepEqual(await owners("mcp_tool_cache"), [MCP, OTHER_MCP]);
    const [row] = await harness.sql`
      SELECT count(*)::int AS n FROM integrations WHERE integration_id = ${HTTP}`;
    assert.equal(row!.n, 0);
  });

  it("clears an MCP integration's tool cache, and only that", async () => {
    const { store, close } = await harness.freshStore(fixtures);
    try {
      assert.equal(await store.deleteIntegration(P, MCP), true);
    } finally {
      await close();
    }
    assert.deepEqual(await owners("mcp_tool_cache"), [OTHER_MCP]);
    assert.deepEqual(await owners("http_tools"), [HTTP, OTHER_HTTP]);
  });

  it("leaves another project's integration and tools alone", async () => {
    const { store, close } = await harness.freshStore(fixtures);
    try {
      assert.equal(await store.deleteIntegration(P, OTHER_HTTP), false);
      assert.equal(await store.deleteIntegration(P, OTHER_MCP), false);
    } finally {
      await close();
    }
    assert.deepEqual(await owners("http_tools"), [HTTP, OTHER_HTTP]);
    assert.deepEqual(await owners("mcp_tool_cache"), [MCP, OTHER_MCP]);
  });

  it("replaces an integration's tools and cache when it is seeded again", async () => {
    const { store, close } = await harness.freshStore(fixtures);
    try {
      await store.seed({
        integrations: [
          {
            integration_id: HTTP,
            project_id: P,
            kind: "mcp",
            name: "CRM, now MCP",
            cached_tools: [{ name: "new" }],
          },
          {
            integration_id: MCP,
            project_id: P,
            kind: "http",
            name: "Docs, now HTTP",
            tools: [{ tool_id: tool(2), name: "moved" }],
          },
        ],
      });
    } finally {
      await close();
    }
    const tools = await harness.sql`
      SELECT tool_id, integration_id, name FROM http_tools ORDER BY tool_id`;
    assert.deepEqual(tools.map((row) => ({ ...row })), [
      { tool_id: tool(2), integration_id: MCP, name: "moved" },
      { tool_id: tool(3), integration_id: OTHER_HTTP, name: "c" },
    ]);
    const cache = await harness.sql`
      SELECT integration_id, tool::text AS tool FROM mcp_tool_cache
      ORDER BY integration_id, position`;
    assert.deepEqual(cache.map((row) => ({ ...row })), [
      { integration_id: HTTP, tool: '{"name":"new"}' },
      { integration_id: OTHER_MCP, tool: '{"name":"q"}' },
    ]);
  });

  it("duplicates nothing when a restart seeds the same file again", async () => {
    const { store, close } = await harness.freshStore(fixtures);
    try {
      const first = await tableCounts();
      await store.seed(fixtures);
      await store.seed(structuredClone(fixtures));
      assert.deepEqual(await tableCounts(), first);
      assert.deepEqual(first, {
        projects: 2,
        tokens: 1,
        calls: 1,
        call_messages: 3,
        integrations: 4,
        http_tools: 3,
        mcp_tool_cache: 3,
        flows: 1,
      });
    } finally {
      await close();
    }
  });

  it("scopes every statement of every operation to the project", async () => {
    const statements: string[] = [];
    const { store, close } = await harness.freshStore(fixtures, {
      onQuery: (query) => statements.push(query),
    });
    try {
      statements.length = 0;
      await store.callMessages(P, CALL);
      for await (const _ of store.transcripts(P, [CALL])) { /* drain */ }
      await store.deleteIntegration(P, HTTP);
      await store.findFlow(P, "5c000000-0000-4000-8000-0000000000d1");
      await store.recentCalls(P, 3);
    } finally {
      await close();
    }
    // Leaves out transaction control and postgres.js's own type lookup.
    const scoped = statements.filter((query) =>
      !/^\s*(begin|commit)\s*$/i.test(query) && !query.includes("pg_catalog")
    );
    assert.equal(scoped.length, 5);
    for (const query of scoped) assert.match(query, /\bproject_id = \$\d/);
  });
});
