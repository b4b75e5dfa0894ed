/**
 * `deno serve server/mod.ts` in a copy of the project: from the sources
 * without a build, from `dist/deno_serve/` (build/deno_serve_build.ts) while
 * the sources it was built from are unchanged, and from the sources again once
 * one is edited, so that an edit is never served stale. Deno serves in a
 * child process, whichever runtime runs this file.
 *
 * @module
 */
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import { after, before, describe, it } from "node:test";
import { buildDenoServe } from "../build/deno_serve_build.ts";
import {
  denoServeArgs,
  freePort,
  ServerProcess,
  UNSET_SERVER_SETTINGS,
} from "./deploy/processes.ts";
import { copySources, ROOT } from "./support/source_copy.ts";

/** What the test makes the build print in place of the sources' line. */
const LISTENING = "API listening on";
const MARKED = "API listening (from dist/deno_serve) on";

let copy: string;
before(() => {
  copy = copySources("deno-serve-build-", ["package.json", "deno.json"]);
});
after(() => rmSync(copy, { recursive: true, force: true }));

/** Serves server/mod.ts with `deno serve` in the copy; its stderr once up. */
async function startOutput(): Promise<string> {
  const port = await freePort();
  const server = new ServerProcess(
    join(ROOT, "node_modules", ".bin", "deno"),
    denoServeArgs(port),
    { cwd: copy, env: { ...process.env, ...UNSET_SERVER_SETTINGS } },
  );
  try {
    await server.ready(`http://127.0.0.1:${port}/healthz`);
    return server.stderr;
  } finally {
    await server.stop();
  }
}

describe("deno serve server/mod.ts", () => {
  it("serves from the sources while there is no build", async () => {
    assert.match(await startOutput(), /API listening on/);
  });

  it("runs dist/deno_serve/ while its sources are as they were", async () => {
    const sources = buildDenoServe(copy);
    assert.ok(
      sources.some(([path]) => path === "server/runtimes/deploy_entry.ts"),
    );
    assert.ok(sources.every(([, mtimeMs]) => mtimeMs > 0), "all trusted");
    const build = join(copy, "dist/deno_serve");
    for (const name of await readdir(build)) {
      if (!name.endsWith(".js")) continue;
      const text = await readFile(join(build, name), "utf8");
      if (text.includes(LISTENING)) {
        await writeFile(join(build, name), text.replace(LISTENING, MARKED));
      }
    }
    assert.match(
      await startOutput(),
      /API listening \(from dist\/deno_serve\)/,
    );
  });

  it("runs the sources once one of them is edited", async () => {
    const file = join(copy, "server/runtimes/deploy_entry.ts");
    const text = await readFile(file, "utf8");
    await writeFile(
      file,
      text.replace("API listening", "API (edited) listening"),
    );
    const stdout = await startOutput();
    assert.match(stdout, /API \(edited\) listening on/);
    assert.doesNotMatch(stdout, /from dist\/deno_serve/);
  });
});
