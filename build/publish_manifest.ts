/**
 * The manifest the package is published with: this repository's
 * `package.json` without its `scripts`, which run files the package does not
 * ship (`server/main.ts`, `scripts/test.sh`, the build itself) and which no
 * consumer runs. `npm pack` and `npm publish` read `package.json` after
 * `prepack`, so `prepack` strips it (`node build/publish_manifest.ts strip`,
 * keeping the original in `.package.json.unpublished`) and `postpack` puts
 * the original back (`... restore`). A pack that failed midway leaves the
 * copy behind: `restore` (or another `strip`, which refuses to strip twice)
 * brings it back.
 *
 * @module
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const manifest = join(root, "package.json");
const original = join(root, ".package.json.unpublished");

const [command] = process.argv.slice(2);
if (command === "strip") {
  if (existsSync(original)) {
    throw new Error(
      "Cannot strip package.json: .package.json.unpublished exists " +
        "(a pack failed midway; run `node build/publish_manifest.ts restore`)",
    );
  }
  const text = readFileSync(manifest, "utf8");
  writeFileSync(original, text);
  const { scripts: _scripts, ...published } = JSON.parse(text);
  writeFileSync(manifest, JSON.stringify(published, null, 2) + "\n");
} else if (command === "restore") {
  if (existsSync(original)) renameSync(original, manifest);
} else {
  throw new Error(`Unknown command "${command}": use strip or restore`);
}
