/**
 * The Postgres store: the same contract as `MemoryStore`, on a real server.
 *
 * @module
 */
import { type Context, context } from "@opentelemetry/api";
import type { MaybeRow, PendingQuery, RowList, Sql } from "postgres";
import type { Fixtures, FixturesInput, SeedOptions } from "../src/store/mod.ts";
import type {
  CallSummary,
  Flow,
  Grant,
  Role,
  Store,
  StoreDegraded,
  TranscriptChunk,
  Trigger,
} from "../src/store/mod.ts";
import { admit } from "./admission.ts";
import { BatchedLookups } from "./batched_lookups.ts";
import { PostgresTimeoutError, withDeadline } from "./deadline.ts";
import { denseRows } from "./dense_rows.ts";
import { GrantCache } from "./grant_cache.ts";
import { type QueryName, QueryTelemetry } from "./query_telemetry.ts";
import { ReadRouting, type ReadRoutingOptions } from "./read_routing.ts";
import { RenewablePool } from "./renewable_pool.ts";
import { stuckPoolOf } from "./stuck_pools.ts";
import {
  isNeverSent,
  retryLostConnection,
  type RetryOptions,
} from "./retry.ts";
import { seedFixtures } from "./seed_fixtures.ts";
import type { SessionSettings } from "./session_settings.ts";

/**
 * Options of {@linkcode PostgresStore}: its own, its read routing's and the
 * timeouts of its transactions (seeding).
 */
export interface PostgresStoreOptions
  extends ReadRoutingOptions, SessionSettings {
  /**
   * A pool on a read replica: authentication, lookups, trigger tests and
   * exports read from it, falling back to the primary while it cannot be
   * reached (see `ReadRouting`); deletes always go to the primary.
   * {@linkcode PostgresStore.close} ends it.
   */
  replica?: Sql;
  /**
   * The pool that seeding goes through: a direct connection, past any
   * transaction pooler (`DATABASE_DIRECT_URL`). Default: the primary's.
   * {@linkcode PostgresStore.close} ends it.
   */
  direct?: Sql;
  /**
   * How many messages a bulk export fetches per query: the bound on what an
   * export holds in memory. Default 1000.
   */
  exportBatchSize?: number;
  /**
   * The longest one attempt of an operation (or of an export batch) waits
   * for Postgres, in milliseconds, whatever postgres.js is doing: for a
   * statement waiting for a free connection, or on a connection nothing
   * watches (TLS; see `watchedSockets` for the others), this is what fails
   * it. Keep it above the connect timeout. Default 10000.
   */
  timeout?: number;
  /**
   * Milliseconds after a lost connection (a terminated backend, a restart, a
   * failover) within which a read, or an export's batch, is sent again on a
   * fresh connection; `0` retries nothing. Default 10000.
   */
  retryWithin?: number;
  /**
   * Milliseconds a token's grant is kept after it was read, so that a request
   * whose token was seen a moment ago sends one statement, not two; `0`
   * keeps none. A token revoked (or its role changed) in the database stops
   * working on every instance at most this long after the change commits
   * (plus the replica's lag when grants are read from one). Default 1000.
   */
  grantCacheMs?: number;
  /**
   * Opens a pool like the primary's. With it, a primary pool whose
   * connections stop connecting (a postgres.js 3.4 fault, see
   * `RenewablePool`) is replaced by a fresh one when a query times out
   * connecting. {@linkcode openPostgresStore} passes it.
   */
  reopen?: () => Sql;
}

/**
 * A {@linkcode Store} on Postgres, through a postgres.js pool on a database
 * that {@linkcode migrate} has brought up to date. Every query is scoped to
 * the caller's project; each operation is a constant number of queries.
 *
 * @example Serving the API from Postgres
 * ```ts ignore
 * import { createHandler } from "../mod.ts";
 * import { connectPostgres, migrate, PostgresStore } from "./mod.ts";
 *
 * const sql = connectPostgres("postgres://postgres@127.0.0.1:5432/app");
 * await migrate(sql);
 * const store = new PostgresStore(sql);
 * const handler = createHandler({ store });
 * // ... and on shutdown:
 * await store.close();
 * ```
 *
 * @example Reads from a replica, deletes on the primary
 * ```ts ignore
 * import { connectPostgres, PostgresStore } from "./mod.ts";
 *
 * const store = new PostgresStore(connectPostgres("postgres://db-1/app"), {
 *   replica: connectPostgres("postgres://db-2/app"),
 *   onReplicaChange: (degraded) => console.warn(degraded ?? "replica back"),
 * });
 * ```
 */
export class PostgresStore implements Store {
  readonly #pool: RenewablePool;
  readonly #sql: Sql;
  readonly #direct: Sql | undefined;
  readonly #reads: ReadRouting;
  /** Spans and connection counts, per pool (primary, replica). */
  readonly #telemetry = new Map<Sql, QueryTelemetry>();
  readonly #options: PostgresStoreOptions;
  readonly #exportBatchSize: number;
  readonly #timeout: number;
  /** How reads are retried, and writes (only when never sent). */
  readonly #readRetry: RetryOptions;
  readonly #writeRetry: RetryOptions;
  readonly #grants: GrantCache;
  /** The workflow lookups of one turn of the event loop, one statement. */
  readonly #flows = new BatchedLookups<Lookup, FlowRow>((keys) =>
    this.#findFlows(keys)
  );
  /** The message lists asked in one turn of the event loop, one statement. */
  readonly #messages = new BatchedLookups<Lookup, string[]>((keys) =>
    this.#messagesOf(keys)
  );
  /**
   * The deletes asked in one turn: one alone is its DELETE; more share one
   * existence lookup on the primary first (see `#deleteOrFind`).
   */
  readonly #deletes = new BatchedLookups<Lookup, DeleteStep>((keys) =>
    this.#deleteOrFind(keys)
  );

  /**
   * Creates a store on a pool; the constructor sends no query.
   *
   * @param sql The pool on the primary; {@linkcode PostgresStore.close} ends
   *   it.
   * @param options Export batch size, deadline, replica and direct pools.
   */
  constructor(sql: Sql, options: PostgresStoreOptions = {}) {
    this.#pool = new RenewablePool(sql, options.reopen);
    this.#sql = this.#pool.sql;
    this.#direct = options.direct;
    this.#reads = new ReadRouting(this.#sql, options.replica, options);
    const pools = [["primary", this.#sql], ["replica", options.replica]];
    for (const [name, pool] of pools as [string, Sql | undefined][]) {
      if (pool === undefined) continue;
      this.#telemetry.set(
        pool,
        new QueryTelemetry({
          name,
          database: pool.options.database,
          max: pool.options.max,
        }),
      );
    }
    this.#options = options;
    this.#exportBatchSize = options.exportBatchSize ?? 1000;
    this.#timeout = options.timeout ?? 10_000;
    this.#readRetry = {
      within: options.retryWithin ?? 10_000,
      onError: (error) => this.#renewFor(error),
      onRetry: (error) => this.#renewBeforeRetry(error),
    };
    this.#writeRetry = { ...this.#readRetry, retryOn: isNeverSent };
    this.#grants = new GrantCache({ ttl: options.grantCacheMs ?? 1000 });
  }

  /**
   * Adds or replaces the records of a fixtures document, as
   * `MemoryStore.seed` does: checked whole first, then written in one
   * transaction (a bad document or a failure changes nothing; the same
   * document twice duplicates nothing). The tokens of the projects it
   * declares that it does not list are revoked (see `SeedOptions`).
   *
   * @param input Fixtures, any list left out.
   * @param options `keepOtherTokens: true` revokes nothing.
   * @throws {FixturesError} naming the first offending path.
   */
  async seed(
    input: FixturesInput | Fixtures,
    options: SeedOptions = {},
  ): Promise<void> {
    try {
      await seedFixtures(
        this.#direct ?? this.#sql,
        input,
        options,
        this.#options,
      );
    } finally {
      // A seed may revoke tokens: this instance sees it at once.
      this.#grants.clear();
    }
  }

  /**
   * Ends the pools: waits up to `timeout` seconds for running queries, then
   * closes every connection.
   *
   * @param timeout Seconds to wait for running queries. Default 5.
   */
  async close(timeout = 5): Promise<void> {
    const { replica, direct } = this.#options;
    for (const telemetry of this.#telemetry.values()) telemetry.close();
    await Promise.all([
      this.#pool.end(timeout),
      ...[replica, direct].map((sql) => sql?.end({ timeout })),
    ]);
  }

  /**
   * Looks up a token's grant by the token's SHA-256 hex digest; a grant read
   * less than `grantCacheMs` ago is answered without a query.
   */
  findGrant(tokenHash: string): Promise<Grant | undefined> {
    return this.#grants.get(tokenHash, async () => {
      const [row] = await this.#read(
        { operation: "SELECT", table: "tokens" },
        (sql) =>
          sql<{ project_id: string; role: Role }[]>`
          SELECT project_id, role FROM tokens WHERE token_hash = ${tokenHash}`,
      );
      return row && { projectId: row.project_id, role: row.role };
    });
  }

  /**
   * A call's messages as JSON texts in one query, or `undefined`; the lists
   * asked in the same turn of the event loop share it (see `#lookUp`).
   */
  callMessages(
    projectId: string,
    callId: string,
  ): Promise<string[] | undefined> {
    return this.#lookUp(
      this.#messages,
      (keys) => this.#messagesOf(keys),
      projectId,
      callId,
    );
  }

  /**
   * The message lists of `keys`, in their order: one call's as a request
   * alone sends it; more in one statement, each row tagged with its place.
   */
  async #messagesOf(
    keys: readonly Lookup[],
  ): Promise<(string[] | undefined)[]> {
    const name = { operation: "SELECT", table: "call_messages" };
    if (keys.length === 1) {
      const { projectId, id, parent } = keys[0]!;
      const rows = await this.#read(
        name,
        (sql) =>
          sql<{ body: string | null }[]>`
          SELECT m.body::text AS body
          FROM calls c LEFT JOIN call_messages m ON m.call_id = c.call_id
          WHERE c.project_id = ${projectId} AND c.call_id = ${id}
          ORDER BY m.position`,
        parent,
      );
      if (rows.length === 0) return [undefined];
      return [rows.flatMap((row) => row.body === null ? [] : [row.body])];
    }
    const rows = await this.#read(
      name,
      (sql) =>
        sql<{ ordinal: number; body: string | null }[]>`
        SELECT k.ordinal::int AS ordinal, m.body::text AS body
        FROM unnest(
          ${keys.map((key) => key.projectId)}::uuid[],
          ${keys.map((key) => key.id)}::uuid[]
        ) WITH ORDINALITY AS k(project_id, call_id, ordinal)
        JOIN calls c
          ON c.call_id = k.call_id AND c.project_id = k.project_id
        LEFT JOIN call_messages m ON m.call_id = c.call_id
        ORDER BY k.ordinal, m.position`,
      keys.map((key) => key.parent),
    );
    const found = new Array<string[] | undefined>(keys.length).fill(undefined);
    for (const { ordinal, body } of rows) {
      const messages = found[ordinal - 1] ??= [];
      if (body !== null) messages.push(body);
    }
    return found;
  }

  /**
   * Keyset batches in call order, one short query each: a connection is held
   * only while a batch is read, never while the reader takes its time. Each
   * batch resumes after the last (call, position) read, so a batch whose
   * connection is lost is read again on a fresh one (within `retryWithin`),
   * and one that still fails fails the stream; nothing is skipped or
   * repeated. A batch comes back as one row per call, its messages joined
   * (see `MESSAGE_SEPARATOR`), not one row per message: postgres.js reads
   * and parses a few long values instead of a thousand short rows. The first
   * batch (or the end of an empty result) is the first thing the iterator
   * yields.
   */
  async *transcripts(
    projectId: string,
    callIds: readonly string[],
  ): AsyncGenerator<TranscriptChunk, void, undefined> {
    const limit = this.#exportBatchSize;
    // A batch looks at a slice of the ids, so that no query sorts the
    // messages of every call asked for; the slice grows to about twice the
    // calls a full batch covered.
    let from = 0;
    let slice = Math.min(limit, 64);
    let afterPosition = -1;
    // Later batches are read as the client pulls the ZIP, outside the
    // request's context: their spans nest under the request's all the same.
    const parent = context.active();
    while (from < callIds.length) {
      const ids = callIds.slice(from, from + slice);
      const rows = await this.#read({
        operation: "SELECT",
        table: "call_messages",
      }, (sql) =>
        sql<JoinedMessages[]>`
          SELECT b.ordinal::int AS ordinal, count(*)::int AS count,
            max(b.position) AS last_position,
            string_agg(b.body::text, ${MESSAGE_SEPARATOR} ORDER BY b.position)
              AS bodies
          FROM (
            -- r.ordinal uncast: its order is the GROUP BY's, no sort again.
            SELECT r.ordinal, m.position, m.body
            FROM unnest(${ids as string[]}::uuid[]) WITH ORDINALITY
              AS r(call_id, ordinal)
            JOIN calls c
              ON c.call_id = r.call_id AND c.project_id = ${projectId}
            CROSS JOIN LATERAL (
              SELECT position, body FROM call_messages
              WHERE call_id = c.call_id
                AND (r.ordinal > 1 OR position > ${afterPosition})
              ORDER BY position
              LIMIT ${limit}
            ) m
            ORDER BY r.ordinal, m.position
            LIMIT ${limit}
          ) b
          GROUP BY b.ordinal
          ORDER BY b.ordinal`, parent);
      let messages = 0;
      for (const row of rows) {
        messages += row.count;
        yield {
          callId: ids[row.ordinal - 1]!,
          messages: row.bodies.split(MESSAGE_SEPARATOR),
        };
      }
      if (messages < limit) {
        from += ids.length;
        afterPosition = -1;
        slice = Math.min(limit, slice * 2);
      } else {
        const last = rows[rows.length - 1]!;
        from += last.ordinal - 1;
        afterPosition = last.last_position;
        slice = Math.min(limit, Math.max(16, last.ordinal * 2));
      }
    }
  }

  /**
   * Deletes the integration and, by cascade, its tools and tool cache. A
   * delete asked alone in its turn of the event loop is one DELETE; the
   * deletes asked together first look their integrations up on the primary
   * in one statement (see `#deleteOrFind`), and only those found send a
   * DELETE each: under load, deletes of unknown integrations (404s) share a
   * statement, as lookups do.
   */
  async deleteIntegration(
    projectId: string,
    integrationId: string,
  ): Promise<boolean> {
    const step = await this.#lookUp(
      this.#deletes,
      (keys) => this.#deleteOrFind(keys),
      projectId,
      integrationId,
    );
    if (step === "present") return this.#delete(projectId, integrationId);
    return step === "deleted";
  }

  /**
   * The first step of the deletes of `keys`: a key alone is deleted at once
   * (`"deleted"` or `undefined`), as a request alone sends it; more are
   * looked up in one statement on the primary, never a replica (one behind
   * would miss an integration just made): `"present"`, left to `#delete`,
   * or `undefined`, a 404 that was true when the statement ran, after the
   * request arrived. The lookup takes no lock, so batches cannot deadlock;
   * it is a read, sent again after a lost connection like any other.
   */
  async #deleteOrFind(
    keys: readonly Lookup[],
  ): Promise<(DeleteStep | undefined)[]> {
    if (keys.length === 1) {
      const { projectId, id, parent } = keys[0]!;
      return [
        await this.#delete(projectId, id, parent) ? "deleted" : undefined,
      ];
    }
    const rows = await retryLostConnection(
      () =>
        this.#ask(
          { operation: "SELECT", table: "integrations" },
          (sql) =>
            sql<{ ordinal: number }[]>`
            SELECT k.ordinal::int AS ordinal
            FROM unnest(
              ${keys.map((key) => key.projectId)}::uuid[],
              ${keys.map((key) => key.id)}::uuid[]
            ) WITH ORDINALITY AS k(project_id, integration_id, ordinal)
            JOIN integrations i ON i.integration_id = k.integration_id
              AND i.project_id = k.project_id`,
          keys.map((key) => key.parent),
        ),
      this.#readRetry,
    );
    const found = new Array<DeleteStep | undefined>(keys.length);
    for (const { ordinal } of rows) found[ordinal - 1] = "present";
    return found;
  }

  /**
   * One integration's DELETE on the primary, traced under `parent`: true
   * when it deleted the row.
   */
  async #delete(
    projectId: string,
    integrationId: string,
    parent: Context = context.active(),
  ): Promise<boolean> {
    // One statement is one transaction: the HTTP tools and the MCP tool cache
    // go with the integration by ON DELETE CASCADE, all or nothing. A
    // concurrent delete of the same row waits for this one's row lock, then
    // finds nothing: exactly one of them gets true.
    // Sent again only if its connection never opened: a delete cut off
    // midway may have committed, and a second one would answer 404.
    const deleted = await retryLostConnection(
      () =>
        this.#ask(
          { operation: "DELETE", table: "integrations" },
          (sql) =>
            sql`
            DELETE FROM integrations
            WHERE project_id = ${projectId}
              AND integration_id = ${integrationId}`,
          parent,
        ),
      this.#writeRetry,
    );
    return deleted.count === 1;
  }

  /**
   * A workflow of the project, or `undefined`; the lookups asked in the same
   * turn of the event loop (the trigger tests of the requests that arrived
   * together) share one statement (see `#lookUp`).
   */
  async findFlow(projectId: string, flowId: string): Promise<Flow | undefined> {
    const row = await this.#lookUp(
      this.#flows,
      (keys) => this.#findFlows(keys),
      projectId,
      flowId,
    );
    return row && { flowId, projectId, name: row.name, trigger: row.trigger };
  }

  /**
   * The workflows of `keys`, in their order: one key by its primary key, as
   * a request alone sends it; more in one statement, joined to their places.
   */
  async #findFlows(keys: readonly Lookup[]): Promise<(FlowRow | undefined)[]> {
    const name = { operation: "SELECT", table: "flows" };
    if (keys.length === 1) {
      const { projectId, id, parent } = keys[0]!;
      const [row] = await this.#read(
        name,
        (sql) =>
          sql<FlowRow[]>`
          SELECT name, trigger FROM flows
          WHERE project_id = ${projectId} AND flow_id = ${id}`,
        parent,
      );
      return [row];
    }
    const rows = await this.#read(
      name,
      (sql) =>
        sql<(FlowRow & { ordinal: number })[]>`
        SELECT k.ordinal::int AS ordinal, f.name, f.trigger
        FROM unnest(
          ${keys.map((key) => key.projectId)}::uuid[],
          ${keys.map((key) => key.id)}::uuid[]
        ) WITH ORDINALITY AS k(project_id, flow_id, ordinal)
        JOIN flows f
          ON f.flow_id = k.flow_id AND f.project_id = k.project_id`,
      keys.map((key) => key.parent),
    );
    const found = new Array<FlowRow | undefined>(keys.length).fill(undefined);
    for (const row of rows) found[row.ordinal - 1] = row;
    return found;
  }

  /** The project's most recent calls, newest first, then by call id. */
  async recentCalls(projectId: string, limit: number): Promise<CallSummary[]> {
    const rows = await this.#read(
      { operation: "SELECT", table: "calls" },
      (sql) =>
        sql<
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

  /**
   * Sends `SELECT 1` to the primary: resolves once it answers. With a
   * replica, also probes it (waiting up to a second) and resolves with
   * `{ degraded }` while reads go to the primary instead.
   */
  async ping(): Promise<void | StoreDegraded> {
    const [, degraded] = await Promise.all([
      this.#ask({ operation: "SELECT" }, (sql) => sql`SELECT 1`),
      this.#reads.check(1000),
    ]);
    return degraded === undefined ? undefined : { degraded };
  }

  /**
   * Looks `id` of `projectId` up with the other lookups of `lookups` asked
   * in this turn of the event loop, in one statement (see
   * `BatchedLookups`): a batch fails or succeeds for all its requests, is
   * retried as `lookUp` retries (a read, or a delete alone as a write), and
   * shows in each request's trace. Ids that are not UUIDs are looked up
   * alone by `lookUp`, so that Postgres refusing one fails only its request.
   */
  #lookUp<V>(
    lookups: BatchedLookups<Lookup, V>,
    lookUp: (keys: readonly Lookup[]) => Promise<(V | undefined)[]>,
    projectId: string,
    id: string,
  ): Promise<V | undefined> {
    const key = { projectId, id, parent: context.active() };
    return UUID.test(projectId) && UUID.test(id)
      ? lookups.get(key)
      : lookUp([key]).then(([value]) => value);
  }

  /**
   * Runs a read where {@linkcode ReadRouting} sends it, as `#ask` does, sent
   * again on a fresh connection while its connections are lost within
   * `retryWithin` (see `retryLostConnection`). An export's batch is a read
   * too: retried, it resumes after the last message sent. The retry wraps
   * the routing, not the replica's attempt: an unreachable replica reaches
   * the routing at once, which reads from the primary instead.
   */
  #read<T extends readonly MaybeRow[]>(
    name: QueryName,
    query: (sql: Sql) => PendingQuery<T>,
    parent: Context | readonly Context[] = context.active(),
  ): Promise<RowList<T>> {
    return retryLostConnection(
      () => this.#reads.read((sql) => this.#ask(name, query, parent, sql)),
      this.#readRetry,
    );
  }

  /**
   * After any failed attempt: a connection that fell silent (`ETIMEDOUT`,
   * see `watchedSockets`) says its server is gone, and the pool's other
   * connections to it with it: the pool is replaced, so that no later
   * statement waits on one of them; so is a pool with a stuck connection
   * (see `stuckPoolOf`), at once.
   */
  #renewFor(error: unknown): void {
    const stuck = stuckPoolOf(error);
    if (stuck !== undefined) this.#pool.renewIfCurrent(stuck);
    if ((error as { code?: unknown }).code === "ETIMEDOUT") this.#pool.renew();
  }

  /** A connect that timed out is retried on a fresh pool. */
  #renewBeforeRetry(error: unknown): void {
    if ((error as { code?: unknown }).code === "CONNECT_TIMEOUT") {
      this.#pool.renew();
    }
  }

  /**
   * Runs the query `query` builds on the pool `sql`, once that pool has a
   * connection free for it (see `admit`), failing when Postgres has not
   * answered by the deadline, the wait included; the rows are checked against
   * the server's count (see `denseRows`). It is counted and traced as `name`
   * (see `QueryTelemetry`) on `sql`, under `parent` (under each request it
   * serves, for a batch). The primary's queries wait their turn on the pool
   * current when they are asked, and are built on the one current when
   * admitted: a query that waited across a renewal goes to the fresh pool,
   * not to the one ending. At its deadline a query gives up its place: one
   * still waiting is dropped when its turn comes, one sent that never
   * settles no longer holds up the queries behind.
   */
  #ask<T extends readonly MaybeRow[]>(
    name: QueryName,
    query: (sql: Sql) => PendingQuery<T>,
    parent: Context | readonly Context[] = context.active(),
    sql: Sql = this.#sql,
  ): Promise<RowList<T>> {
    const telemetry = this.#telemetry.get(sql)!;
    const pool = sql === this.#sql ? this.#pool.current : sql;
    // Past its deadline a query gives up its place: not sent if it still
    // waited, nobody waiting for it if it was sent and hangs.
    const late = new AbortController();
    const giveUp = () => late.abort(new PostgresTimeoutError(this.#timeout));
    return telemetry
      .run(
        name,
        () =>
          withDeadline(
            admit(pool, () => query(sql), late.signal),
            this.#timeout,
            giveUp,
          ),
        parent,
      )
      .then(denseRows);
  }
}

/** A lookup by id: the project, the id, and the context of its request. */
interface Lookup {
  projectId: string;
  id: string;
  parent: Context;
}

/**
 * Where a delete stands after its turn's first statement: done, or its
 * integration found and its own DELETE still to send.
 */
type DeleteStep = "deleted" | "present";

/** What a workflow lookup reads of the row. */
interface FlowRow {
  name: string;
  trigger: Trigger;
}

/**
 * A UUID as Postgres's `uuid` reads it, hyphenated (the form the handler
 * passes): only such ids share a batch, which one that Postgres refuses
 * would fail whole.
 */
const UUID = /^[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}$/i;

/**
 * What joins a call's messages in an export batch's row: ASCII's record
 * separator, which no JSON text holds (a control character, escaped inside
 * strings, and not whitespace), and `json` checks every message on input.
 */
const MESSAGE_SEPARATOR = "\x1e";

/** One call's messages of an export batch, as one row. */
interface JoinedMessages {
  /** The call's place in the batch's slice of ids, from 1. */
  ordinal: number;
  /** How many messages `bodies` joins. */
  count: number;
  /** The position of the last of them. */
  last_position: number;
  /** Their JSON texts in order, joined by `MESSAGE_SEPARATOR`. */
  bodies: string;
}
