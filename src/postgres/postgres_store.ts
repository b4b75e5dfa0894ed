/**
 * The Postgres store: the same contract as `MemoryStore`, on a real server.
 *
 * @module
 */
import type { MaybeRow, PendingQuery, RowList, Sql } from "postgres";
import type { Fixtures, FixturesInput } from "../fixtures.ts";
import type {
  CallSummary,
  Flow,
  Grant,
  Role,
  Store,
  TranscriptChunk,
  Trigger,
} from "../store.ts";
import { cursorBatches } from "./cursor_batches.ts";
import { withDeadline } from "./deadline.ts";
import { seedFixtures } from "./seed_fixtures.ts";

/** Options of {@linkcode PostgresStore}. */
export interface PostgresStoreOptions {
  /**
   * How many messages a bulk export fetches from its cursor at a time: the
   * bound on what an export holds in memory. Default 1000.
   */
  exportBatchSize?: number;
  /**
   * The longest an operation (or one export batch) waits for Postgres, in
   * milliseconds, whatever postgres.js is doing: when the server cannot say
   * anything (a half-open connection, a peer that hangs up at once), this is
   * what fails the request. Keep it above the connect and statement timeouts.
   * Default 40000.
   */
  timeout?: number;
}

/**
 * A {@linkcode Store} on Postgres, through a postgres.js pool on a database
 * that {@linkcode migrate} has brought up to date. Every query is scoped to
 * the caller's project; each operation is a constant number of queries.
 *
 * @example Serving the API from Postgres
 * ```ts ignore
 * import { createHandler } from "../../mod.ts";
 * import { connectPostgres, migrate, PostgresStore } from "./mod.ts";
 *
 * const sql = connectPostgres("postgres://postgres@127.0.0.1:5432/app");
 * await migrate(sql);
 * const store = new PostgresStore(sql);
 * const handler = createHandler({ store });
 * // ... and on shutdown:
 * await store.close();
 * ```
 */
export class PostgresStore implements Store {
  readonly #sql: Sql;
  readonly #exportBatchSize: number;
  readonly #timeout: number;

  /**
   * Creates a store on a pool; the constructor sends no query.
   *
   * @param sql The pool to use; {@linkcode PostgresStore.close} ends it.
   * @param options Export batch size and deadline.
   */
  constructor(sql: Sql, options: PostgresStoreOptions = {}) {
    this.#sql = sql;
    this.#exportBatchSize = options.exportBatchSize ?? 1000;
    this.#timeout = options.timeout ?? 40_000;
  }

  /**
   * Adds or replaces the records of a fixtures document, as
   * `MemoryStore.seed` does: checked whole first, then written in one
   * transaction (a bad document or a failure changes nothing; the same
   * document twice duplicates nothing).
   *
   * @param input Fixtures, any list left out.
   * @throws {FixturesError} naming the first offending path.
   */
  seed(input: FixturesInput | Fixtures): Promise<void> {
    return seedFixtures(this.#sql, input);
  }

  /**
   * Ends the pool: waits up to `timeout` seconds for running queries, then
   * closes every connection.
   *
   * @param timeout Seconds to wait for running queries. Default 5.
   */
  close(timeout = 5): Promise<void> {
    return this.#sql.end({ timeout });
  }

  /** Looks up a token's grant by the token's SHA-256 hex digest. */
  async findGrant(tokenHash: string): Promise<Grant | undefined> {
    const [row] = await this.#ask(
      this.#sql<{ project_id: string; role: Role }[]>`
        SELECT project_id, role FROM tokens WHERE token_hash = ${tokenHash}`,
    );
    return row && { projectId: row.project_id, role: row.role };
  }

  /** A call's messages as JSON texts in one query, or `undefined`. */
  async callMessages(
    projectId: string,
    callId: string,
  ): Promise<string[] | undefined> {
    const rows = await this.#ask(this.#sql<{ body: string | null }[]>`
      SELECT m.body::text AS body
      FROM calls c LEFT JOIN call_messages m ON m.call_id = c.call_id
      WHERE c.project_id = ${projectId} AND c.call_id = ${callId}
      ORDER BY m.position`);
    if (rows.length === 0) return undefined;
    return rows.flatMap((row) => row.body === null ? [] : [row.body]);
  }

  /**
   * One query, read through a cursor `exportBatchSize` messages at a time:
   * the first batch (or the end of an empty result) is the first thing the
   * iterator yields, so whether anything exists is known before streaming.
   */
  async *transcripts(
    projectId: string,
    callIds: readonly string[],
  ): AsyncGenerator<TranscriptChunk, void, undefined> {
    if (callIds.length === 0) return;
    const query = this.#sql<{ call_id: string; body: string }[]>`
      SELECT r.call_id, m.body::text AS body
      FROM unnest(${callIds as string[]}::uuid[]) WITH ORDINALITY
        AS r(call_id, ordinal)
      JOIN calls c ON c.call_id = r.call_id AND c.project_id = ${projectId}
      JOIN call_messages m ON m.call_id = c.call_id
      ORDER BY r.ordinal, m.position`;
    const batches = cursorBatches(
      query,
      this.#exportBatchSize,
      this.#sql.CLOSE,
      this.#timeout,
    );
    for await (const rows of batches) {
      let chunk: TranscriptChunk | undefined;
      for (const { call_id: callId, body } of rows) {
        if (chunk?.callId !== callId) {
          if (chunk !== undefined) yield chunk;
          chunk = { callId, messages: [] };
        }
        chunk.messages.push(body);
      }
      if (chunk !== undefined) yield chunk;
    }
  }

  /** Deletes the integration and, by cascade, its tools and tool cache. */
  async deleteIntegration(
    projectId: string,
    integrationId: string,
  ): Promise<boolean> {
    // One statement is one transaction: the HTTP tools and the MCP tool cache
    // go with the integration by ON DELETE CASCADE, all or nothing. A
    // concurrent delete of the same row waits for this one's row lock, then
    // finds nothing: exactly one of them gets true.
    const deleted = await this.#ask(this.#sql`
      DELETE FROM integrations
      WHERE project_id = ${projectId} AND integration_id = ${integrationId}`);
    return deleted.count === 1;
  }

  /** A workflow of the project, or `undefined`. */
  async findFlow(projectId: string, flowId: string): Promise<Flow | undefined> {
    const [row] = await this.#ask(
      this.#sql<{ name: string; trigger: Trigger }[]>`
        SELECT name, trigger FROM flows
        WHERE project_id = ${projectId} AND flow_id = ${flowId}`,
    );
    return row && { flowId, projectId, name: row.name, trigger: row.trigger };
  }

  /** The project's most recent calls, newest first, then by call id. */
  async recentCalls(projectId: string, limit: number): Promise<CallSummary[]> {
    const rows = await this.#ask(
      this.#sql<
        { call_id: string; created_at: Date; message_count: number }[]
      >`
        SELECT c.call_id, c.created_at,
          (SELECT count(*)::int FROM call_messages m
            WHERE m.call_id = c.call_id) AS message_count
        FROM calls c
        WHERE c.project_id = ${projectId}
        ORDER BY c.created_at DESC, c.call_id ASC
        LIMIT ${limit}`,
    );
    return rows.map((row) => ({
      callId: row.call_id,
      createdAt: row.created_at.toISOString(),
      messageCount: row.message_count,
    }));
  }

  /** Sends `SELECT 1`: resolves once Postgres answers. */
  async ping(): Promise<void> {
    await this.#ask(this.#sql`SELECT 1`);
  }

  /** Runs a query, failing when Postgres has not answered by the deadline. */
  #ask<T extends readonly MaybeRow[]>(
    query: PendingQuery<T>,
  ): Promise<RowList<T>> {
    return withDeadline(query, this.#timeout);
  }
}
