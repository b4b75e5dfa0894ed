/**
 * The core (everything mod.ts reaches) uses Web APIs only: no `node:`
 * import, no `Deno.`, `Bun.` or `process` anywhere in it.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const IMPORT = /(?:import|export)[^;]*?from\s+"([^"]+)"|import\("([^"]+)"\)/g;
const RUNTIME_SPECIFIC = /\bDeno\.|\bBun\.|\bprocess\.|from\s+"node:|require\(/;

function reachableFiles(entry: string): Map<string, string> {
  const files = new Map<string, string>();
  const pending = [join(root, entry)];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (files.has(file)) continue;
    const text = readFileSync(file, "utf8");
    files.set(file, text);
    for (const match of text.matchAll(IMPORT)) {
      const specifier = match[1] ?? match[2]!;
      if (specifier.startsWith(".")) {
        pending.push(join(dirname(file), specifier));
      }
    }
  }
  return files;
}

function codeOnly(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
}

describe("the core", () => {
  const files = reachableFiles("mod.ts");

  it("reaches the handler, the store and the archive writer", () => {
    const names = [...files.keys()].map((file) => relative(root, file));
    for (
      const expected of [
        "src/handler.ts",
        "src/store/memory_store.ts",
        "src/transcript_archive.ts",
      ]
    ) {
      assert.ok(
        names.includes(expected),
        `${expected} not reached from mod.ts`,
      );
    }
  });

  it("has no runtime-specific code", () => {
    const offenders = [...files].filter(([, text]) =>
      RUNTIME_SPECIFIC.test(codeOnly(text))
    )
      .map(([file]) => relative(root, file));
    assert.deepEqual(offenders, []);
  });

  it("imports no package but zip.js and croner", () => {
    const packages = new Set<string>();
    for (const text of files.values()) {
      for (const match of codeOnly(text).matchAll(IMPORT)) {
        const specifier = match[1] ?? match[2]!;
        if (!specifier.startsWith(".")) packages.add(specifier);
      }
    }
    assert.deepEqual([...packages].sort(), [
      "@zip.js/zip.js/lib/zip-core-native.js",
      "croner",
    ]);
  });
});
