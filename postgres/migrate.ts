/**
 * Applying the schema's migrations, once each, safely from many processes.
 *
 * @module
 */
import type { Sql } from "postgres";
import { loadMigrations, type Migration } from "./migrations.ts";
import {
  applySessionSettings,
  type SessionSettings,
} from "./session_settings.ts";

/**
 * The advisory lock that serialises migration runs on one database: a process
 * that starts while another migrates waits, then finds the work done.
 */
const MIGRATION_LOCK = 4_826_137_011;

/** Options of {@linkcode migrate}: the migrations and the timeouts. */
export interface MigrateOptions extends SessionSettings {
  /** The migrations to apply; default: the files shipped with this module. */
  migrations?: readonly Migration[];
}

/**
 * Brings the database's schema up to date: in one transaction, under an
 * advisory lock, applies every migration not yet recorded in
 * `schema_migrations` and records it. Safe to run on every start and from
 * several processes at once; a failure changes nothing. The lock and the
 * timeouts (`SET LOCAL`) belong to the transaction, not the session, so
 * this holds through a transaction pooler too.
 *
 * @param sql A postgres.js instance.
 * @param options The migrations to apply (for tests) and the timeouts.
 * @returns The files applied by this run (empty when the schema was current).
 * @throws {Error} when an applied migration's file has changed since.
 *
 * @example
 * ```ts ignore
 * import assert from "node:assert/strict";
 * import { connectPostgres, migrate } from "./mod.ts";
 *
 * const sql = connectPostgres("postgres://postgres@127.0.0.1:5432/app");
 * await migrate(sql); // on a new database: ["0001_initial.sql", ...]
 * assert.deepEqual(await migrate(sql), []); // then nothing left to apply
 * await sql.end();
 * ```
 */
export async function migrate(
  sql: Sql,
  options: MigrateOptions = {},
): Promise<string[]> {
  const migrations = options.migrations ?? await loadMigrations();
  return await sql.begin(async (tx) => {
    await applySessionSettings(tx, options);
    await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`;
    await tx`
      CREATE TABLE IF NOT EXISTS schema_migrations (
        version text PRIMARY KEY,
        file text NOT NULL,
        checksum text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`;
    const rows = await tx<{ version: string; checksum: string }[]>`
      SELECT version, checksum FROM schema_migrations`;
    const applied = new Map(rows.map((row) => [row.version, row.checksum]));
    const files: string[] = [];
    for (const migration of migrations) {
      const checksum = applied.get(migration.version);
      if (checksum === migration.checksum) continue;
      if (checksum !== undefined) {
        throw new Error(
          `Cannot migrate: "${migration.file}" has changed since it was applied`,
        );
      }
      await tx.unsafe(migration.sql).simple();
      await tx`
        INSERT INTO schema_migrations (version, file, checksum)
        VALUES (${migration.version}, ${migration.file}, ${migration.checksum})`;
      files.push(migration.file);
    }
    return files;
  });
}
