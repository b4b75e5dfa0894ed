/**
 * The npm build (`npm run build`, run by `prepack`): compiles the TypeScript
 * sources to JavaScript and `.d.ts` files in `dist/` with tsc, copies the
 * files beside the sources (e.g. the Postgres store's `.sql` migrations) next
 * to the compiled modules, and bundles the bin, `callflow-api`, into
 * `dist/bin/` (see {@linkcode bundleBin}).
 *
 * @module
 */
import { execFileSync } from "node:child_process";
import { cpSync, globSync, rmSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { buildStart, externalPackages } from "./start_build.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
const dist = join(root, "dist");

rmSync(dist, { recursive: true, force: true });
execFileSync(
  process.execPath,
  [
    join(root, "node_modules", "typescript", "bin", "tsc"),
    "-p",
    join(root, "tsconfig.build.json"),
  ],
  { stdio: "inherit" },
);
const assets = globSync([
  "src/**/*",
  "server/**/*",
  "postgres/**/*",
  "mock/**/*",
], {
  cwd: root,
  withFileTypes: true,
}).filter((entry) => entry.isFile() && !entry.name.endsWith(".ts"));
for (const entry of assets) {
  const source = join(entry.parentPath, entry.name);
  const target = join(dist, source.slice(root.length));
  rmSync(target, { force: true });
  cpSync(source, target);
  // stderr: `npm pack --json` runs this build and prints its JSON on stdout.
  console.error(`copied ${source.slice(root.length)} to dist/`);
}

bundleBin();
buildStart(root);

/**
 * Bundles `server/cli.ts` into `dist/bin/cli.js` with `bun build
 * --splitting`: each command's modules in chunks loaded when it runs, the
 * packages left external (imported from `node_modules` as the library's
 * modules import them) but croner, which every start loads
 * (`externalPackages`). Node's ESM loader spends about 0.5 ms on each module,
 * and a start loads about 80 of them: bundled, `callflow-api serve` starts in
 * about a third less CPU. The Deno deflate worker is an entry of its own,
 * `dist/bin/deflate_worker.js`, beside the chunk that starts it
 * (server/gzip_pool/worker_pool.ts finds it relative to its own module).
 */
function bundleBin(): void {
  execFileSync(
    join(root, "node_modules", ".bin", "bun"),
    [
      "build",
      "--target=node",
      "--format=esm",
      "--splitting",
      ...externalPackages(root),
      "--entry-naming=[name].[ext]",
      `--outdir=${join(dist, "bin")}`,
      join(root, "server", "cli.ts"),
      join(root, "server", "gzip_pool", "deflate_worker.ts"),
    ],
    // stdout: the sizes, which would break `npm pack --json`'s JSON.
    { cwd: root, stdio: ["ignore", "ignore", "inherit"] },
  );
}
