/**
 * Loading a fixtures document into Postgres: checked whole, then upserted in
 * one transaction, so a restart with the same file duplicates nothing and a
 * bad file changes nothing. The document is the truth for the tokens of the
 * projects it declares: their tokens it does not list are revoked.
 *
 * @module
 */
import type { Sql, TransactionSql } from "postgres";
import {
  checkFixtures,
  type Fixtures,
  type FixturesInput,
  type ProjectReference,
  resolveFixtures,
  type SeedOptions,
} from "../src/store/mod.ts";
import { hashToken } from "../src/store/mod.ts";
import {
  applySessionSettings,
  type SessionSettings,
} from "./session_settings.ts";

/** Rows per statement: bounds each statement's size, whatever the document's. */
const ROWS_PER_STATEMENT = 5_000;

/**
 * Adds or replaces the records of a fixtures document, with the same meaning
 * as `MemoryStore.seed`: a call's messages, an integration's tools and tool
 * cache are replaced as a whole; entries may refer to projects the database
 * already holds. The document is checked before anything is written (its
 * references to projects it does not declare against the database), and
 * everything is written in one transaction; fixtures from `parseFixtures` are
 * not parsed again. The tokens of the projects the document declares are
 * replaced by the document's (unless `keepOtherTokens`), in the same
 * transaction, so no reader sees a project without its tokens.
 *
 * @param sql A postgres.js pool on a migrated database.
 * @param input A fixtures document, any list left out.
 * @param options `keepOtherTokens: true` revokes nothing.
 * @param settings The transaction's timeouts (`SET LOCAL`).
 * @throws {FixturesError} naming the first offending path; nothing written.
 *
 * @example
 * ```ts ignore
 * import { connectPostgres, migrate } from "./mod.ts";
 * import { seedFixtures } from "./seed_fixtures.ts";
 *
 * const sql = connectPostgres("postgres://postgres@127.0.0.1:5432/app");
 * await migrate(sql);
 * await seedFixtures(sql, {
 *   projects: [{ project_id: "0b6f1c2e-8d3a-4c55-9a57-3e3c2d1f0a11", name: "Acme" }],
 * });
 * ```
 */
export async function seedFixtures(
  sql: Sql,
  input: FixturesInput | Fixtures,
  options: SeedOptions = {},
  settings: SessionSettings = {},
): Promise<void> {
  await sql.begin(async (tx) => {
    await applySessionSettings(tx, settings);
    const check = checkFixtures(input);
    const fixtures = resolveFixtures(
      check,
      await storedProjects(tx, check.references),
    );
    await upsertProjects(tx, fixtures);
    if (!options.keepOtherTokens) await revokeTokens(tx, fixtures);
    await upsertTokens(tx, fixtures);
    await upsertCalls(tx, fixtures);
    await replaceIntegrations(tx, fixtures);
    await upsertFlows(tx, fixtures);
  });
}

/**
 * Which of the projects that the document refers to without declaring them
 * the database holds: one query, and none when there are no such references.
 */
async function storedProjects(
  tx: TransactionSql,
  references: readonly ProjectReference[],
): Promise<(projectId: string) => boolean> {
  if (references.length === 0) return () => false;
  const projectIds = [...new Set(references.map((ref) => ref.projectId))];
  const rows = await tx<{ project_id: string }[]>`
    SELECT project_id FROM projects WHERE project_id = ANY(${projectIds}::uuid[])`;
  const stored = new Set(rows.map((row) => row.project_id));
  return (projectId) => stored.has(projectId);
}

async function upsertProjects(
  tx: TransactionSql,
  { projects }: Fixtures,
): Promise<void> {
  for (const rows of batches(projects)) {
    await tx`
      INSERT INTO projects (project_id, name)
      SELECT * FROM unnest(
        ${rows.map((project) => project.project_id)}::uuid[],
        ${rows.map((project) => project.name)}::text[])
      ON CONFLICT (project_id) DO UPDATE SET name = excluded.name`;
  }
}

/**
 * Revokes the tokens of the projects the document declares; the document's
 * own are written again right after, in the same transaction.
 */
async function revokeTokens(
  tx: TransactionSql,
  { projects }: Fixtures,
): Promise<void> {
  for (const rows of batches(projects)) {
    await tx`
      DELETE FROM tokens
      WHERE project_id = ANY(${rows.map((p) => p.project_id)}::uuid[])`;
  }
}

/** Upserts the tokens, keyed by their hash; the clear text is not kept. */
async function upsertTokens(
  tx: TransactionSql,
  { tokens }: Fixtures,
): Promise<void> {
  const hashes = await Promise.all(tokens.map(({ token }) => hashToken(token)));
  const rows = tokens.map((token, i) => ({ ...token, hash: hashes[i]! }));
  for (const batch of batches(rows)) {
    await tx`
      INSERT INTO tokens (token_hash, project_id, role)
      SELECT * FROM unnest(
        ${batch.map((token) => token.hash)}::text[],
        ${batch.map((token) => token.project_id)}::uuid[],
        ${batch.map((token) => token.role)}::text[])
      ON CONFLICT (token_hash) DO UPDATE
        SET project_id = excluded.project_id, role = excluded.role`;
  }
}

/** Upserts the calls and replaces their transcripts. */
async function upsertCalls(
  tx: TransactionSql,
  { calls }: Fixtures,
): Promise<void> {
  for (const rows of batches(calls)) {
    const callIds = rows.map((call) => call.call_id);
    await tx`
      INSERT INTO calls (call_id, project_id, created_at)
      SELECT * FROM unnest(
        ${callIds}::uuid[],
        ${rows.map((call) => call.project_id)}::uuid[],
        ${rows.map((call) => call.created_at)}::timestamptz[])
      ON CONFLICT (call_id) DO UPDATE
        SET project_id = excluded.project_id, created_at = excluded.created_at`;
    await tx`DELETE FROM call_messages WHERE call_id = ANY(${callIds}::uuid[])`;
  }
  await insertJsonLists(
    tx,
    "call_messages",
    ["call_id", "body"],
    calls.map((call) => [call.call_id, call.messages]),
  );
}

/**
 * Replaces the integrations: an existing one is deleted first (its tools and
 * tool cache go with it), then written again with what the document holds.
 */
async function replaceIntegrations(
  tx: TransactionSql,
  { integrations }: Fixtures,
): Promise<void> {
  for (const rows of batches(integrations)) {
    const ids = rows.map((integration) => integration.integration_id);
    await tx`DELETE FROM integrations WHERE integration_id = ANY(${ids}::uuid[])`;
    await tx`
      INSERT INTO integrations (integration_id, project_id, kind, name)
      SELECT * FROM unnest(
        ${ids}::uuid[],
        ${rows.map((integration) => integration.project_id)}::uuid[],
        ${rows.map((integration) => integration.kind)}::text[],
        ${rows.map((integration) => integration.name)}::text[])`;
  }
  const tools = integrations.flatMap((integration) =>
    integration.kind === "http"
      ? integration.tools.map((tool) => ({ ...tool, integration }))
      : []
  );
  for (const rows of batches(tools)) {
    await tx`
      INSERT INTO http_tools (tool_id, integration_id, name)
      SELECT * FROM unnest(
        ${rows.map((tool) => tool.tool_id)}::uuid[],
        ${rows.map((tool) => tool.integration.integration_id)}::uuid[],
        ${rows.map((tool) => tool.name)}::text[])
      ON CONFLICT (tool_id) DO UPDATE
        SET integration_id = excluded.integration_id, name = excluded.name`;
  }
  await insertJsonLists(
    tx,
    "mcp_tool_cache",
    ["integration_id", "tool"],
    integrations.flatMap((integration) =>
      integration.kind === "mcp"
        ? [[integration.integration_id, integration.cached_tools]]
        : []
    ),
  );
}

/**
 * Writes ordered lists of JSON objects (a call's messages, an integration's
 * tool cache) as one row per object: its owner, its position, its JSON text.
 */
async function insertJsonLists(
  tx: TransactionSql,
  table: "call_messages" | "mcp_tool_cache",
  [owner, value]: [string, string],
  lists: [string, Record<string, unknown>[]][],
): Promise<void> {
  const rows = lists.flatMap(([ownerId, objects]) =>
    objects.map((object, position) => ({
      ownerId,
      position,
      text: JSON.stringify(object),
    }))
  );
  for (const batch of batches(rows)) {
    await tx`
      INSERT INTO ${tx(table)} (${tx(owner)}, position, ${tx(value)})
      SELECT * FROM unnest(
        ${batch.map((row) => row.ownerId)}::uuid[],
        ${batch.map((row) => row.position)}::int[],
        ${batch.map((row) => row.text)}::text[]::json[])`;
  }
}

async function upsertFlows(
  tx: TransactionSql,
  { flows }: Fixtures,
): Promise<void> {
  for (const rows of batches(flows)) {
    await tx`
      INSERT INTO flows (flow_id, project_id, name, trigger)
      SELECT * FROM unnest(
        ${rows.map((flow) => flow.flow_id)}::uuid[],
        ${rows.map((flow) => flow.project_id)}::uuid[],
        ${rows.map((flow) => flow.name)}::text[],
        ${rows.map((flow) => JSON.stringify(flow.trigger))}::text[]::json[])
      ON CONFLICT (flow_id) DO UPDATE
        SET project_id = excluded.project_id, name = excluded.name,
          trigger = excluded.trigger`;
  }
}

function* batches<T>(rows: readonly T[]): Generator<T[]> {
  for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
    yield rows.slice(start, start + ROWS_PER_STATEMENT);
  }
}
