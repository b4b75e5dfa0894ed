/**
 * The one call a server makes to serve from Postgres.
 *
 * @module
 */
import type { Sql } from "postgres";
import { connectPostgres, type ConnectPostgresOptions } from "./connect.ts";
import { migrate } from "./migrate.ts";
import { PostgresStore, type PostgresStoreOptions } from "./postgres_store.ts";
import { watchedSockets } from "./silent_peer.ts";

/** The default of {@linkcode OpenPostgresStoreOptions.silenceTimeout}. */
const DEFAULT_SILENCE_TIMEOUT_MS = 3000;

/** Options of {@linkcode openPostgresStore}: the pools' and the store's. */
export interface OpenPostgresStoreOptions
  extends
    ConnectPostgresOptions,
    Omit<PostgresStoreOptions, "replica" | "direct"> {
  /**
   * A direct connection to the primary (`DATABASE_DIRECT_URL`), for
   * migrating and seeding past a transaction pooler; one connection, open
   * only while they run. Default: `url`.
   */
  directUrl?: string | undefined;
  /**
   * Milliseconds a connection of the serving pools (primary, replica) may
   * await an answer without receiving a byte before it is closed and
   * replaced, failing what it carried (see `watchedSockets`): how fast a
   * vanished server is noticed. Migrating and seeding (which may wait on a
   * lock) are not watched; neither are TLS connections. `0` watches
   * nothing. Default 3000.
   */
  silenceTimeout?: number | undefined;
  /**
   * A read replica (`DATABASE_READ_URL`): authentication, lookups, trigger
   * tests and exports read from it, from `url` while it cannot be reached.
   * Its pool has the same size as the primary's.
   */
  readUrl?: string | undefined;
}

/**
 * Connects to `url`, brings the schema up to date (through `directUrl` when
 * given) and returns the store. The serving pools replace a connection whose
 * server fell silent (`silenceTimeout`). When the database cannot be reached (at
 * `url` or `directUrl`) or migrated, the pools are ended and the error
 * thrown, so a failed start leaves nothing open. An unreachable replica does not fail the start: reads
 * go to the primary until it answers.
 *
 * @param url A `postgres://user:password@host:port/database` URL: the primary,
 *   directly or through a pooler (add `?prepare=false` for a transaction
 *   pooler).
 * @param options Pool size, timeouts, export batch size, direct and replica
 *   URLs.
 * @returns The store; `close()` ends its pools.
 *
 * @example Starting a server on Postgres
 * ```ts ignore
 * import process from "node:process";
 * import { openPostgresStore } from "./mod.ts";
 *
 * const store = await openPostgresStore(process.env.DATABASE_URL!, {
 *   max: Number(process.env.DATABASE_POOL_SIZE ?? 10),
 *   directUrl: process.env.DATABASE_DIRECT_URL,
 *   readUrl: process.env.DATABASE_READ_URL,
 * });
 * await store.seed({ projects: [] });
 * await store.close();
 * ```
 */
export async function openPostgresStore(
  url: string,
  options: OpenPostgresStoreOptions = {},
): Promise<PostgresStore> {
  const { directUrl, readUrl, silenceTimeout, ...rest } = options;
  const silence = silenceTimeout ?? DEFAULT_SILENCE_TIMEOUT_MS;
  const serving = {
    ...rest,
    ...(silence > 0 && { socket: watchedSockets(silence) }),
  };
  const sql = connectPostgres(url, serving);
  // Migrating and seeding go through a pool of their own, unwatched: a
  // migration waits silently for another process's lock.
  const direct = connectPostgres(directUrl ?? url, {
    ...rest,
    max: 1,
    idleTimeout: 1,
  });
  const replica = readUrl === undefined
    ? undefined
    : connectPostgres(readUrl, serving);
  const pools = [sql, direct, replica].filter((pool): pool is Sql =>
    pool !== undefined
  );
  try {
    await migrate(direct, rest);
    // Migrated: still, a start fails when the primary's own URL (a pooler,
    // typically) cannot be reached.
    await sql`SELECT 1`;
  } catch (error) {
    await Promise.all(pools.map((pool) => pool.end({ timeout: 1 })));
    throw error;
  }
  return new PostgresStore(sql, {
    ...rest,
    ...(replica && { replica }),
    direct,
    reopen: () => connectPostgres(url, serving),
  });
}
