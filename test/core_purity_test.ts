/**
 * The core (`src/` and everything mod.ts reaches) uses Web APIs only: no
 * `node:` import, no `Deno.`, `Bun.` or `process` anywhere in it, and no
 * import leaving `src/` (the runtime-specific code lives in `server/` and
 * `postgres/`). The type checker proves the rest: scripts/test.sh checks the
 * core against the DOM and ES libraries alone (test/core_tsconfig.json).
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
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

/** Every module under `src/`, whether mod.ts reaches it or not. */
function coreFiles(): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of readdirSync(join(root, "src"), { recursive: true })) {
    const name = String(entry);
    if (!name.endsWith(".ts")) continue;
    const file = join(root, "src", name);
    files.set(file, readFileSync(file, "utf8"));
  }
  return files;
}

function codeOnly(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
}

describe("the core", () => {
  const files = new Map([...reachableFiles("mod.ts"), ...coreFiles()]);

  it("reaches the handler, the store and the archive writer", () => {
    const names = [...files.keys()].map((file) => relative(root, file));
    for (
      const expected of [
        "src/handler.ts",
        "src/store/memory_store.ts",
        "src/operations/transcript_archive.ts",
      ]
    ) {
      assert.ok(
        names.includes(expected),
        `${expected} not reached from mod.ts`,
      );
    }
  });

  it("stays inside src/ (and mod.ts)", () => {
    const outside = [...files.keys()].map((file) => relative(root, file))
      .filter((name) => name !== "mod.ts" && !name.startsWith("src/"));
    assert.deepEqual(outside, []);
  });

  it("has no runtime-specific code", () => {
    const offenders = [...files].filter(([, text]) =>
      RUNTIME_SPECIFIC.test(codeOnly(text))
    )
      .map(([file]) => relative(root, file));
    assert.deepEqual(offenders, []);
  });

  it("imports no package but croner, fflate and the OpenTelemetry API", () => {
    const packages = new Set<string>();
    for (const text of files.values()) {
      for (const match of codeOnly(text).matchAll(IMPORT)) {
        const specifier = match[1] ?? match[2]!;
        if (!specifier.startsWith(".")) packages.add(specifier);
      }
    }
    assert.deepEqual([...packages].sort(), [
      "@opentelemetry/api",
      "croner",
      "fflate",
    ]);
  });
});
