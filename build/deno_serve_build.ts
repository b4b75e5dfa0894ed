/**
 * The build of `deno serve server/mod.ts` (`npm run build:deno`, also run by
 * `npm run build`): server/runtimes/deploy_entry.ts bundled into
 * `dist/deno_serve/`, which server/mod.ts runs under Deno while every source
 * it was built from is unchanged (and the sources otherwise):
 *
 * - `deploy_entry.js` and its chunks: ES modules split as the start build's for
 *   Node are (build/start_build.ts), so that a start whose `DENO_DIR` is
 *   empty transpiles no TypeScript and compiles a handful of modules, not
 *   about 70; the packages stay external, as there;
 * - `deflate_worker.js`: the Deno export's worker, beside the chunk that
 *   starts it (server/gzip_pool/worker_pool.ts);
 * - `sources.json`: every source the bundle holds, with its modification time
 *   (whole milliseconds) and size; one modified less than a second before
 *   the build began, or during it, is listed as never matching, since the
 *   bundle may hold an older text of it.
 *
 * The directory is left out of the npm package (package.json's `files`).
 *
 * @module
 */
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  bundleListingSources,
  externalPackages,
  type StartSource,
} from "./start_build.ts";

/**
 * Builds `dist/deno_serve/` under `root` (see the module's text).
 *
 * @param root The project's root, holding `server/runtimes/deploy_entry.ts` and
 * `node_modules/.bin/bun`.
 * @returns The sources the bundle holds, as `sources.json` lists them.
 *
 * @example
 * ```ts ignore
 * import { buildDenoServe } from "./deno_serve_build.ts";
 *
 * const sources = buildDenoServe(process.cwd());
 * console.log(`${sources.length} sources bundled`);
 * ```
 */
export function buildDenoServe(root: string): StartSource[] {
  const out = join(root, "dist", "deno_serve");
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  // One build each: the worker must sit in the folder itself, beside the
  // chunk that starts it, not under gzip_pool/.
  return bundleListingSources(
    root,
    out,
    [
      "server/runtimes/deploy_entry.ts",
      "server/gzip_pool/deflate_worker.ts",
    ].map((entry) => (metafile) => [
      "build",
      "--target=node",
      "--format=esm",
      "--splitting",
      ...externalPackages(root),
      `--metafile=${metafile}`,
      `--outdir=${out}`,
      join(root, entry),
    ]),
  );
}

if (import.meta.main) {
  const root = fileURLToPath(new URL("..", import.meta.url));
  const sources = buildDenoServe(root);
  console.error(`dist/deno_serve/: ${sources.length} sources`);
}
