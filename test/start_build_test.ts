/**
 * `npm start` and `npm run start:bun` (server/start.js) in a copy of the
 * project: from the sources without a start build, from `dist/start/`
 * (build/start_build.ts) while the sources it was built from are unchanged,
 * and from the sources again once one is edited, so that an edit is never
 * served stale. On the runtime running this file; Deno runs
 * `server/main.ts`, not server/start.js.
 *
 * @module
 */
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import { after, before, describe, it } from "node:test";
import { buildStart } from "../build/start_build.ts";
import {
  freePort,
  ServerProcess,
  UNSET_SERVER_SETTINGS,
} from "./deploy/processes.ts";
import { copySources } from "./support/source_copy.ts";

/** What the test makes the built bundles print in place of the sources'. */
const LISTENING = "API listening on";
const MARKED = "API listening (from dist/start) on";

let copy: string;
before(() => {
  copy = copySources("start-build-", ["package.json"]);
});
after(() => rmSync(copy, { recursive: true, force: true }));

/** Starts server/start.js in the copy; its stdout once `/healthz` is 200. */
async function startOutput(): Promise<string> {
  const port = await freePort();
  const server = new ServerProcess(process.execPath, ["server/start.js"], {
    cwd: copy,
    env: {
      ...process.env,
      ...UNSET_SERVER_SETTINGS,
      PORT: String(port),
      HOST: "127.0.0.1",
      NODE_DISABLE_COMPILE_CACHE: "1",
    },
  });
  try {
    await server.ready(`http://127.0.0.1:${port}/healthz`);
    return server.stdout;
  } finally {
    await server.stop();
  }
}

describe("server/start.js", {
  skip: "Deno" in globalThis && "Node's and Bun's start (npm start, start:bun)",
}, () => {
  it("serves from the sources while there is no start build", async () => {
    const stdout = await startOutput();
    assert.match(stdout, /API listening on/);
  });

  it("runs dist/start/ while its sources are as they were", async () => {
    const sources = buildStart(copy);
    assert.ok(sources.some(([path]) => path === "server/run_server.ts"));
    assert.ok(sources.every(([, mtimeMs]) => mtimeMs > 0), "all trusted");
    for (const folder of ["node", "bun"]) {
      for (const name of await readdir(join(copy, "dist/start", folder))) {
        if (!name.endsWith(".js")) continue;
        const file = join(copy, "dist/start", folder, name);
        const text = await readFile(file, "utf8");
        if (text.includes(LISTENING)) {
          await writeFile(file, text.replace(LISTENING, MARKED));
        }
      }
    }
    const stdout = await startOutput();
    assert.match(stdout, /API listening \(from dist\/start\) on/);
  });

  it("runs the sources once one of them is edited", async () => {
    const file = join(copy, "server/run_server.ts");
    const text = await readFile(file, "utf8");
    await writeFile(
      file,
      text.replace("API listening", "API (edited) listening"),
    );
    const stdout = await startOutput();
    assert.match(stdout, /API \(edited\) listening on/);
    assert.doesNotMatch(stdout, /from dist\/start/);
  });
});
