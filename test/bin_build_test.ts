/**
 * The built bin (build/bin_build.ts) on the runtime running this file: its
 * entry, `callflow-api.js`, runs `bun/cli.js` (with Bun's bytecode) on Bun
 * and the ES modules (`cli.js` and its chunks) on Node and Deno, and on Bun
 * it still serves when the bytecode is of another Bun version or broken:
 * Bun then parses the file.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  copyFileSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { buildBin } from "../build/bin_build.ts";
import {
  freePort,
  ServerProcess,
  UNSET_SERVER_SETTINGS,
} from "./deploy/processes.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const isBun = "Bun" in globalThis;

let project: string;
let entry: string;
before(() => {
  // A package's layout: the bin in dist/bin/, package.json two folders up,
  // the packages in node_modules/.
  project = mkdtempSync(join(tmpdir(), "bin-build-"));
  copyFileSync(join(ROOT, "package.json"), join(project, "package.json"));
  symlinkSync(join(ROOT, "node_modules"), join(project, "node_modules"));
  entry = buildBin(ROOT, join(project, "dist", "bin"));
});
after(() => rmSync(project, { recursive: true, force: true }));

/** Starts the entry's `mock`; its stdout once `/healthz` answers 200. */
async function mockOutput(): Promise<string> {
  const port = await freePort();
  const args = ["mock", "--port", String(port)];
  const server = new ServerProcess(
    process.execPath,
    "Deno" in globalThis
      ? ["run", "--allow-all", entry, ...args]
      : [entry, ...args],
    { cwd: project, env: { ...process.env, ...UNSET_SERVER_SETTINGS } },
  );
  try {
    await server.ready(`http://127.0.0.1:${port}/healthz`);
    return server.stdout;
  } finally {
    await server.stop();
  }
}

describe("the built bin", () => {
  it("runs the bundle of the runtime running it", async () => {
    // The other runtime's bundle gone: the entry must not load it.
    rmSync(join(project, "dist", "bin", isBun ? "cli.js" : "bun/cli.js"));
    assert.match(await mockOutput(), /listening/i);
  });

  it("serves on Bun with bytecode of another Bun version, or broken", {
    skip: !isBun && "Bun's bytecode",
  }, async () => {
    const bytecode = join(project, "dist", "bin", "bun", "cli.js.jsc");
    const built = readFileSync(bytecode);
    // JavaScriptCore's cache version: the first 4 bytes.
    const otherVersion = Buffer.from(built);
    for (let index = 0; index < 4; index++) otherVersion[index]! ^= 0xff;
    for (const content of [otherVersion, Buffer.from("not bytecode")]) {
      writeFileSync(bytecode, content);
      assert.match(await mockOutput(), /listening/i);
    }
  });
});
