/**
 * Bundling an entry into one JavaScript file for runtimes that load a single
 * script (workerd, edge-runtime), with `bun build` from devDependencies: it
 * works offline and needs no other bundler.
 *
 * @module
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** Options of {@linkcode bundle}. */
export interface BundleOptions {
  /** `esm` for a module (workerd), `iife` for a classic script. */
  format: "esm" | "iife";
  /** Export conditions, e.g. `workerd` for postgres.js's Workers build. */
  conditions?: string[];
  /** Expressions replaced at build time, e.g. `import.meta.url` in a script. */
  define?: Record<string, string>;
  /**
   * The project the entry lives in, whose node_modules resolve its imports
   * (e.g. a scratch project with the packed package). Default this repository.
   */
  root?: string;
}

/** Bundles `entry` (relative to `options.root`); returns the code. */
export function bundle(entry: string, options: BundleOptions): string {
  const directory = mkdtempSync(join(tmpdir(), "callflow-bundle-"));
  const outfile = join(directory, "bundle.js");
  const root = options.root ?? ROOT;
  try {
    execFileSync(join(ROOT, "node_modules", ".bin", "bun"), [
      "build",
      join(root, entry),
      "--target=browser",
      `--format=${options.format}`,
      ...(options.conditions ?? []).map((name) => `--conditions=${name}`),
      ...Object.entries(options.define ?? {}).map(([name, value]) =>
        `--define=${name}=${value}`
      ),
      `--outfile=${outfile}`,
    ], { cwd: root, stdio: ["ignore", "ignore", "pipe"] });
    return readFileSync(outfile, "utf8");
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
