/**
 * docs/architecture.md names the project's files and folders: each one it
 * names, in its tree and in backticks, exists, so that the page a newcomer
 * reads first does not lead them to a file that moved; and its layer picture
 * is the one drawn from the order declared in layers.json, which
 * `npm run check:layers` enforces. And server/ keeps its files grouped by
 * concern, as src/ does: at most 8 at its root.
 *
 * @module
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync } from "node:fs";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { documentText, fencedBlocks } from "./support/docs.ts";
import {
  declaredLayers,
  layerPicture,
  withPicture,
} from "../build/layer_picture.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const DOCUMENT = "docs/architecture.md";
/** A path in the project: a top-level folder, then names. */
const PATH =
  /\b(?:src|server|mock|postgres|test|bench)\/[\w./-]*[\w/]|\bmod\.ts\b/g;

describe(DOCUMENT, () => {
  const text = documentText(DOCUMENT);

  it("draws the layers declared in layers.json", () => {
    const layers = declaredLayers();
    const { was } = withPicture(text, layerPicture(layers));
    assert.equal(
      was,
      layerPicture(layers),
      "the picture differs: run `node build/layer_picture.ts`",
    );
  });

  it("declares every folder of src/ in one layer, and nothing else", () => {
    const declared = declaredLayers().src.flat().map(({ path }) => path);
    assert.deepEqual(
      [...declared].sort(),
      readdirSync(`${ROOT}src`).sort(),
    );
    assert.equal(new Set(declared).size, declared.length);
  });

  it("names only paths that exist, in backticks and in prose", () => {
    const missing = [...new Set(text.match(PATH))]
      .filter((path) => !existsSync(`${ROOT}${path}`));
    assert.deepEqual(missing, []);
  });

  it("lists in its tree every folder and file it names, each existing", () => {
    const tree = fencedBlocks(text).find((block) => block.lang === "");
    assert.ok(tree, "the tree of where each concern lives");
    const lines = text.split("\n").slice(tree.line);
    const code = lines.slice(0, lines.indexOf("```"));
    let folder = "";
    const missing: string[] = [];
    for (const line of code) {
      // An entry starts its line, or two spaces in under its folder; the
      // rest of the line, and the lines indented further, describe it.
      const entry = /^( {0,2})([\w./]+\/|[\w./]+\.ts)\s/.exec(line + " ");
      if (entry === null) continue;
      const path = entry[1] === "" ? entry[2]! : `${folder}${entry[2]}`;
      if (entry[1] === "" && path.endsWith("/")) folder = path;
      if (!existsSync(`${ROOT}${path}`)) missing.push(path);
    }
    assert.deepEqual(missing, []);
  });

  it("finds server/'s files grouped by concern: at most 8 at its root", () => {
    const files = readdirSync(`${ROOT}server`, { withFileTypes: true })
      .filter((entry) => entry.isFile()).map((entry) => entry.name);
    assert.ok(files.length <= 8, `server/ holds ${files.join(", ")}`);
  });
});
