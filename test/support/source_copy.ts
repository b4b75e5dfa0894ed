/**
 * A scratch copy of the sources a build reads (`server/`, `src/`,
 * `postgres/`, with their modification times) and the given root files, with
 * the repository's `node_modules` linked in: the build tests build and edit
 * it without touching the checkout.
 *
 * @module
 */
import { cpSync, mkdtempSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository's root. */
export const ROOT: string = fileURLToPath(new URL("../..", import.meta.url));

/**
 * Copies the sources into a new directory named from `prefix`; the caller
 * removes it.
 *
 * @param prefix The start of the directory's name.
 * @param rootFiles Files at the repository's root to copy too.
 * @returns The copy's path.
 */
export function copySources(prefix: string, rootFiles: string[]): string {
  const copy = mkdtempSync(join(tmpdir(), prefix));
  for (const folder of ["server", "src", "postgres"]) {
    // Its sources' times as they are: a build counts one just written as
    // possibly read half-written, and never trusts it.
    cpSync(join(ROOT, folder), join(copy, folder), {
      recursive: true,
      preserveTimestamps: true,
    });
  }
  for (const file of rootFiles) cpSync(join(ROOT, file), join(copy, file));
  symlinkSync(join(ROOT, "node_modules"), join(copy, "node_modules"));
  return copy;
}
