/**
 * The schema's migrations: plain SQL files under `migrations/`, applied in the
 * order of {@linkcode MIGRATION_FILES}.
 *
 * @module
 */
import { readFile } from "node:fs/promises";
import { sha256Hex } from "../src/store/mod.ts";

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
 * Reads the migration files that ship next to this module: from disk when the
 * module is a local file, over HTTP when it was imported from a URL.
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
    const sql = await readText(
      new URL(`./migrations/${file}`, import.meta.url),
    );
    return { file, version, sql, checksum: await sha256Hex(sql) };
  }));
}

async function readText(url: URL): Promise<string> {
  if (url.protocol === "file:") return await readFile(url, "utf8");
  const response = await fetch(url);
  if (!response.ok) {
    throw new Error(
      `Cannot load migration: ${url.href} answered ${response.status}`,
    );
  }
  return await response.text();
}
