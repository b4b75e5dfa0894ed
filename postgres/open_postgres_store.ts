/**
 * The one call a server makes to serve from Postgres.
 *
 * @module
 */
import { connectPostgres, type ConnectPostgresOptions } from "./connect.ts";
import { migrate } from "./migrate.ts";
import { PostgresStore, type PostgresStoreOptions } from "./postgres_store.ts";

/** Options of {@linkcode openPostgresStore}: the pool's and the store's. */
export type OpenPostgresStoreOptions =
  & ConnectPostgresOptions
  & PostgresStoreOptions;

/**
 * Connects to `url`, brings the schema up to date and returns the store. When
 * the database cannot be reached or migrated, the pool is ended and the error
 * thrown, so a failed start leaves nothing open.
 *
 * @param url A `postgres://user:password@host:port/database` URL.
 * @param options Pool size, timeouts, export batch size.
 * @returns The store; `close()` ends its pool.
 *
 * @example Starting a server on Postgres
 * ```ts ignore
 * import process from "node:process";
 * import { openPostgresStore } from "./mod.ts";
 *
 * const store = await openPostgresStore(process.env.DATABASE_URL!, {
 *   max: Number(process.env.DATABASE_POOL_SIZE ?? 10),
 * });
 * await store.seed({ projects: [] });
 * await store.close();
 * ```
 */
export async function openPostgresStore(
  url: string,
  options: OpenPostgresStoreOptions = {},
): Promise<PostgresStore> {
  const sql = connectPostgres(url, options);
  try {
    await migrate(sql);
  } catch (error) {
    await sql.end({ timeout: 1 });
    throw error;
  }
  return new PostgresStore(sql, {
    ...options,
    reopen: () => connectPostgres(url, options),
  });
}
