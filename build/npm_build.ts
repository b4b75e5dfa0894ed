/**
 * The npm build (`npm run build`, run by `prepack`): compiles the TypeScript
 * sources to JavaScript and `.d.ts` files in `dist/` with tsc, copies the
 * files beside the sources (e.g. the Postgres store's `.sql` migrations) next
 * to the compiled modules, and bundles the bin, `callflow-api`, into
 * `dist/bin/` (build/bin_build.ts), the start build into `dist/start/`
 * (build/start_build.ts) and `deno serve`'s into `dist/deno_serve/`
 * (build/deno_serve_build.ts).
 *
 * @module
 */
import { execFileSync } from "node:child_process";
import { cpSync, globSync, rmSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { buildBin } from "./bin_build.ts";
import { buildStart } from "./start_build.ts";
import { buildDenoServe } from "./deno_serve_build.ts";

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

buildBin(root);
buildStart(root);
buildDenoServe(root);
