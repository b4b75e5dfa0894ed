/**
 * The start build (`npm run build:start`, also run by `npm run build`):
 * `server/main.ts` bundled into `dist/start/` for `npm start` and
 * `npm run start:bun` (server/start.js), which run it only while every
 * source it was built from is unchanged, and run the sources otherwise:
 *
 * - `dist/start/node/`: for Node, ES modules split in chunks as the bin is
 *   (see build/npm_build.ts), so a start loads a handful of files, not about
 *   80, and strips no TypeScript: stripping loads a WebAssembly compiler,
 *   which costs more than the rest of a start whose compile cache is empty;
 * - `dist/start/bun/`: for Bun, one CommonJS file and its bytecode
 *   (`--bytecode`, which Bun has for CommonJS only, hence no top-level await
 *   in `server/main.ts`): Bun parses and compiles none of it at start. The
 *   bytecode is Bun's own for one version; another version ignores it and
 *   parses the file. Bundled by build/bun_bundle.ts, which takes `process`
 *   and `Buffer` from Bun's globals;
 * - `dist/start/sources.json`: every source either bundle holds, with its
 *   modification time (whole milliseconds: Bun's `Bun.file` has no
 *   finer) and size; one modified less than a second before the
 *   build began, or during it, is listed as never matching, since the
 *   bundle may hold an older text of it.
 *
 * The packages stay external, imported from `node_modules` as the sources
 * import them, but for those every start loads ({@linkcode BUNDLED}); the
 * directory is left out of the npm package (package.json's
 * `files`).
 *
 * @module
 */
import { execFileSync } from "node:child_process";
import {
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The packages bundled: those every start loads (croner, for the fixtures'
 * schedules), which Bun would otherwise parse at each start (1.2 ms of CPU).
 * The others stay external, loaded when used.
 */
const BUNDLED = ["croner"];

/** The script that bundles for Bun (build/bun_bundle.ts), run by Bun. */
export const BUN_BUNDLE: string = fileURLToPath(
  new URL("./bun_bundle.ts", import.meta.url),
);

/**
 * `bun build`'s options that keep every package of `root`'s package.json
 * external but those every start loads ({@linkcode BUNDLED}); used for the
 * bin too (build/npm_build.ts).
 *
 * @param root The project's root.
 * @returns One `--external=<name>` a package.
 *
 * @example
 * ```ts ignore
 * import { externalPackages } from "./start_build.ts";
 *
 * console.log(externalPackages(process.cwd()).join(" "));
 * ```
 */
export function externalPackages(root: string): string[] {
  const manifest = JSON.parse(
    readFileSync(join(root, "package.json"), "utf8"),
  ) as Record<string, Record<string, string> | undefined>;
  return [
    "dependencies",
    "peerDependencies",
    "optionalDependencies",
  ].flatMap((field) => Object.keys(manifest[field] ?? {}))
    .filter((name) => !BUNDLED.includes(name))
    .map((name) => `--external=${name}`);
}

/** One source of a bundle: its path from the root, mtime (whole ms), size. */
export type StartSource = [path: string, mtimeMs: number, size: number];

/**
 * Builds `dist/start/` under `root` (see the module's text).
 *
 * @param root The project's root, holding `server/main.ts` and
 * `node_modules/.bin/bun`.
 * @returns The sources the bundles hold, as `dist/start/sources.json` lists
 * them.
 *
 * @example
 * ```ts ignore
 * import { buildStart } from "./start_build.ts";
 *
 * const sources = buildStart(process.cwd());
 * console.log(`${sources.length} sources bundled`);
 * ```
 */
export function buildStart(root: string): StartSource[] {
  const out = join(root, "dist", "start");
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const entry = join(root, "server", "main.ts");
  const external = externalPackages(root);
  const bundles: [name: string, args: (metafile: string) => string[]][] = [
    ["node", (metafile) => [
      "build",
      "--target=node",
      "--format=esm",
      "--splitting",
      ...external,
      `--metafile=${metafile}`,
      `--outdir=${join(out, "node")}`,
      entry,
    ]],
    ["bun", (metafile) => [
      BUN_BUNDLE,
      entry,
      join(out, "bun"),
      ...external,
      `--metafile=${metafile}`,
    ]],
  ];
  return bundleListingSources(root, out, bundles.map(([, args]) => args));
}

/**
 * Runs `bun` once for each argument list (each given the metafile it is to
 * write), then writes `out/sources.json`: every source the bundles hold, with
 * its mtime (whole ms) and size, as the start checks compare them; a source
 * modified less than a second before the builds began, or during them, is
 * listed with mtime -1, never matching, since a bundle may hold an older text
 * of it. The builds of `dist/start/` and `dist/deno_serve/` both list theirs
 * so.
 *
 * @param root The project's root, holding `node_modules/.bin/bun`.
 * @param out The build's directory; the metafiles are written and removed
 * there.
 * @param builds Each bundle's arguments to `bun`, given its metafile's path.
 * @returns The sources, as `sources.json` lists them.
 *
 * @example
 * ```ts ignore
 * import { bundleListingSources } from "./start_build.ts";
 *
 * const sources = bundleListingSources(process.cwd(), "dist/x", [
 *   (metafile) => ["build", `--metafile=${metafile}`, "--outdir=dist/x", "mod.ts"],
 * ]);
 * console.log(`${sources.length} sources bundled`);
 * ```
 */
export function bundleListingSources(
  root: string,
  out: string,
  builds: ((metafile: string) => string[])[],
): StartSource[] {
  const bun = join(root, "node_modules", ".bin", "bun");
  const began = Date.now();
  const inputs = new Map<string, StartSource>();
  for (const [index, args] of builds.entries()) {
    const metafile = join(out, `meta-${index}.json`);
    execFileSync(bun, args(metafile), {
      cwd: root,
      stdio: ["ignore", "ignore", "inherit"],
    });
    const meta = JSON.parse(readFileSync(metafile, "utf8")) as {
      inputs: Record<string, unknown>;
    };
    rmSync(metafile);
    for (const input of Object.keys(meta.inputs)) {
      const path = relative(root, join(root, input)).replaceAll("\\", "/");
      if (!inputs.has(path)) inputs.set(path, source(root, path, began));
    }
  }
  const sources = [...inputs.values()];
  writeFileSync(join(out, "sources.json"), JSON.stringify({ sources }));
  return sources;
}

/** A source as it is now; its mtime -1 if it may have changed in the build. */
function source(root: string, path: string, began: number): StartSource {
  const { mtimeMs, size } = statSync(join(root, path));
  return [path, mtimeMs > began - 1000 ? -1 : Math.trunc(mtimeMs), size];
}

if (import.meta.main) {
  const root = fileURLToPath(new URL("..", import.meta.url));
  console.error(`bundled ${buildStart(root).length} sources into dist/start/`);
}
