/**
 * The layer picture of docs/architecture.md, drawn from the layers declared
 * in layers.json (the order `npm run check:layers` enforces), so that the
 * page and the check cannot drift: test/architecture_doc_test.ts compares the
 * page's block with {@linkcode layerPicture}, and
 * `node build/layer_picture.ts` writes it into the page after a change to
 * layers.json.
 *
 * @module
 */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** A declared folder (or file) and its label in the picture. */
export interface Layer {
  /** Its path: under the root for a package, under `src/` for a layer. */
  path: string;
  /** What the picture shows, Mermaid's `<br/>` for a line break. */
  label: string;
}

/** layers.json: each list of levels bottom to top, a level's folders. */
export interface DeclaredLayers {
  /** The top-level folders (and the root `mod.ts`). */
  packages: Layer[][];
  /** The layers of `src/`, the package `src` among `packages`. */
  src: Layer[][];
}

const ROOT = fileURLToPath(new URL("..", import.meta.url));
/** The page the picture is drawn in. */
export const ARCHITECTURE_PAGE = "docs/architecture.md";

/** The layers declared in layers.json. */
export function declaredLayers(): DeclaredLayers {
  return JSON.parse(readFileSync(`${ROOT}layers.json`, "utf8"));
}

/** A Mermaid node id for a path: letters, digits and `_`. */
function nodeId(prefix: string, path: string): string {
  return `${prefix}_${path.replace(/\.ts$/, "").replace(/\W/g, "_")}`;
}

/**
 * The arrows from each node of a level to each of the level below, top
 * first.
 *
 * @param levels The nodes' ids, level by level, top first.
 */
function arrows(levels: string[][]): string[] {
  return levels.slice(0, -1).flatMap((level, index) =>
    level.flatMap((from) => levels[index + 1]!.map((to) => `${from} --> ${to}`))
  );
}

/**
 * The Mermaid flowchart of the declared layers, top to bottom: an arrow from
 * each folder to each of the level below, `src/` a box of its own layers.
 *
 * @param layers The declared layers.
 * @returns The flowchart's text, without its fence.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { layerPicture } from "./layer_picture.ts";
 *
 * const picture = layerPicture({
 *   packages: [[{ path: "src", label: "src/" }], [
 *     { path: "server", label: "server/" },
 *   ]],
 *   src: [[{ path: "zip", label: "zip/" }], [
 *     { path: "handler.ts", label: "handler.ts" },
 *   ]],
 * });
 * assert.ok(picture.includes("pkg_server --> pkg_src"));
 * assert.ok(picture.includes("src_handler --> src_zip"));
 * ```
 */
export function layerPicture(layers: DeclaredLayers): string {
  const top = <T>(levels: T[][]) => [...levels].reverse();
  const srcIds = top(layers.src).map((level) =>
    level.map(({ path }) => nodeId("src", path))
  );
  const packageIds = top(layers.packages).map((level) =>
    level.map(({ path }) => nodeId("pkg", path))
  );
  const lines = ["flowchart TD"];
  for (const level of top(layers.packages)) {
    for (const { path, label } of level) {
      if (path === "src") continue;
      lines.push(`    ${nodeId("pkg", path)}["${label}"]`);
    }
  }
  const core = layers.packages.flat().find(({ path }) => path === "src");
  lines.push(
    `    subgraph ${nodeId("pkg", "src")}["${core?.label ?? "src/"}"]`,
  );
  for (const level of top(layers.src)) {
    for (const { path, label } of level) {
      lines.push(`        ${nodeId("src", path)}["${label}"]`);
    }
  }
  for (const arrow of arrows(srcIds)) lines.push(`        ${arrow}`);
  lines.push("    end");
  for (const arrow of arrows(packageIds)) lines.push(`    ${arrow}`);
  return `${lines.join("\n")}\n`;
}

/**
 * The page with its layer picture replaced by `picture`: the first Mermaid
 * block under the heading "The layers".
 *
 * @param page The page's text.
 * @param picture The flowchart's text, without its fence.
 * @returns The page's text and the picture it had.
 * @throws {Error} when the page has no such block.
 */
export function withPicture(
  page: string,
  picture: string,
): { page: string; was: string } {
  const section = page.indexOf("\n## The layers\n");
  const open = page.indexOf("```mermaid\n", section);
  const close = page.indexOf("```\n", open + 1);
  if (section === -1 || open === -1 || close === -1) {
    throw new Error(
      `Cannot find the layer picture in ${ARCHITECTURE_PAGE}: a mermaid block under "## The layers"`,
    );
  }
  const start = open + "```mermaid\n".length;
  return {
    page: `${page.slice(0, start)}${picture}${page.slice(close)}`,
    was: page.slice(start, close),
  };
}

if (import.meta.main) {
  const path = `${ROOT}${ARCHITECTURE_PAGE}`;
  const { page } = withPicture(
    readFileSync(path, "utf8"),
    layerPicture(declaredLayers()),
  );
  writeFileSync(path, page);
}
