/**
 * The schema's migrations: plain SQL files under `migrations/`, applied in the
 * order of {@linkcode MIGRATION_FILES}, their text imported from
 * `migration_sql.ts` (generated from the files).
 *
 * @module
 */
import { sha256Hex } from "../src/store/mod.ts";
import { MIGRATION_SQL } from "./migration_sql.ts";

/**
 * The migration files, in the order they apply. A new migration is a new file
 * appended here; a file that has been applied anywhere is never edited (the
 * runner refuses a changed checksum).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MIGRATION_FILES } from "./migrations.ts";
 *
 * assert.equal(MIGRATION_FILES[0], "0001_initial.sql");
 * ```
 */
export const MIGRATION_FILES: readonly string[] = ["0001_initial.sql"];

/** One migration, ready to apply. */
export interface Migration {
  /** The file name, e.g. `0001_initial.sql`. */
  file: string;
  /** The number the file starts with, e.g. `0001`. */
  version: string;
  /** The SQL text. */
  sql: string;
  /** The lowercase hex SHA-256 of the SQL text. */
  checksum: string;
}

const FILE_NAME = /^(\d{4})_[a-z0-9_]+\.sql$/;

/**
 * The migrations of {@linkcode MIGRATION_FILES}, their SQL as the files hold
 * it: imported from the module `build/migration_sql.ts` generates from them,
 * so the store reads no file and runs bundled too.
 *
 * @returns Every migration of {@linkcode MIGRATION_FILES}, in order.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadMigrations } from "./migrations.ts";
 *
 * const migrations = await loadMigrations();
 * assert.equal(migrations[0]!.version, "0001");
 * ```
 */
export function loadMigrations(): Promise<Migration[]> {
  return Promise.all(MIGRATION_FILES.map(async (file) => {
    const version = FILE_NAME.exec(file)?.[1];
    if (version === undefined) {
      throw new Error(`Cannot load migration: bad file name "${file}"`);
    }
    const sql = MIGRATION_SQL[file];
    if (sql === undefined) {
      throw new Error(
        `Cannot load migration: ${file} is not in migration_sql.ts (run node build/migration_sql.ts)`,
      );
    }
    return { file, version, sql, checksum: await sha256Hex(sql) };
  }));
}
