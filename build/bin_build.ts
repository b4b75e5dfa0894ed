/**
 * The bin's build (part of `npm run build`): `server/cli.ts` bundled into
 * `dist/bin/` twice, behind one entry, `dist/bin/callflow-api.js`
 * (package.json's `bin`), which runs the one for the runtime running it. The
 * packages stay external (imported from `node_modules` as the library's
 * modules import them) but croner, which every start loads
 * (`externalPackages`, build/start_build.ts):
 *
 * - `dist/bin/cli.js`, for Node and Deno, with `bun build --splitting`: each
 *   command's modules in chunks loaded when it runs. Node's ESM loader spends
 *   about 0.5 ms on each module, and a start loads about 80 of them: bundled,
 *   `callflow-api serve` starts in about a third less CPU. The Deno deflate
 *   worker is an entry of its own, `dist/bin/deflate_worker.js`, beside the
 *   chunk that starts it (server/gzip_pool/worker_pool.ts finds it relative
 *   to its own module);
 * - `dist/bin/bun/cli.js`, for Bun, one CommonJS file and its bytecode,
 *   `cli.js.jsc` (`--bytecode`, which Bun has for CommonJS only, as in the
 *   start build): Bun parses and compiles none of it at start, which takes
 *   about a third off the bin's start CPU on Bun. The bytecode is of one Bun
 *   version: Bun checks the version written in it and, from another
 *   version, ignores it and parses the file (Bun's documentation, "Bytecode
 *   Caching": a mismatch is silently rejected; test/bin_build_test.ts).
 *   Bundled by build/bun_bundle.ts, which takes `process` and `Buffer` from
 *   Bun's globals.
 *
 * @module
 */
import { execFileSync, type ExecFileSyncOptions } from "node:child_process";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BUN_BUNDLE, externalPackages } from "./start_build.ts";

/**
 * The entry: on Bun the bundle with its bytecode, elsewhere the ES modules.
 * A file of its own: an ES module runs its static imports before its first
 * line, so the choice cannot be made in either bundle. On Bun, `// @bun`
 * (the mark Bun writes on its own output) spares the entry Bun's
 * transpiler, and `import.meta.require` loads the CommonJS bundle without
 * the ES module loader's wrapping of a dynamic `import()`: together about
 * 0.9 ms of CPU, an eighth of Bun's bare start.
 */
const ENTRY = `#!/usr/bin/env node
// @bun
// callflow-api: the bin's entry, written by build/bin_build.ts.
if (globalThis.Bun !== undefined) import.meta.require("./bun/cli.js");
else await import("./cli.js");
`;

/**
 * Builds the bin into `out` (see the module's text).
 *
 * @param root The project's root, holding `server/cli.ts` and
 * `node_modules/.bin/bun`.
 * @param out Where to write it. Default: `<root>/dist/bin`.
 * @returns The entry's path, `<out>/callflow-api.js`.
 *
 * @example
 * ```ts ignore
 * import { buildBin } from "./bin_build.ts";
 *
 * console.log(`built ${buildBin(process.cwd())}`);
 * ```
 */
export function buildBin(
  root: string,
  out: string = join(root, "dist", "bin"),
): string {
  const bun = join(root, "node_modules", ".bin", "bun");
  const cli = join(root, "server", "cli.ts");
  const external = externalPackages(root);
  // stdout: the sizes, which would break `npm pack --json`'s JSON.
  const options: ExecFileSyncOptions = {
    cwd: root,
    stdio: ["ignore", "ignore", "inherit"],
  };
  execFileSync(bun, [
    "build",
    "--target=node",
    "--format=esm",
    "--splitting",
    ...external,
    "--entry-naming=[name].[ext]",
    `--outdir=${out}`,
    cli,
    join(root, "server", "gzip_pool", "deflate_worker.ts"),
  ], options);
  execFileSync(bun, [BUN_BUNDLE, cli, join(out, "bun"), ...external], options);
  const entry = join(out, "callflow-api.js");
  writeFileSync(entry, ENTRY);
  chmodSync(entry, 0o755);
  return entry;
}
