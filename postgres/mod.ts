/**
 * The Postgres store, behind its own entry point so that the core never loads
 * postgres.js (an optional peer dependency: install `postgres` to use this).
 *
 * @example Serving the API from Postgres
 * ```ts ignore
 * import { createHandler } from "@callflow/api";
 * import { openPostgresStore } from "@callflow/api/postgres";
 *
 * const store = await openPostgresStore("postgres://postgres@127.0.0.1:5432/app");
 * const handler = createHandler({ store });
 * ```
 *
 * @module
 */
export { connectPostgres, type ConnectPostgresOptions } from "./connect.ts";
export { migrate, type MigrateOptions } from "./migrate.ts";
export {
  loadMigrations,
  type Migration,
  MIGRATION_FILES,
} from "./migrations.ts";
export {
  openPostgresStore,
  type OpenPostgresStoreOptions,
} from "./open_postgres_store.ts";
export { PostgresStore, type PostgresStoreOptions } from "./postgres_store.ts";
export { ReadRouting, type ReadRoutingOptions } from "./read_routing.ts";
export {
  type SocketFactory,
  type SocketTarget,
  watchedSockets,
} from "./silent_peer.ts";
export {
  applySessionSettings,
  type SessionSettings,
} from "./session_settings.ts";
