/**
 * A fresh machine where nothing but `npm install` ran: `npx deno task start`
 * runs the server with the Deno that npm installed (the tasks call
 * `$(which deno)`, which resolves to it), and it answers.
 *
 * Run under Node only: `node --test test/deploy/fresh_machine.ts`.
 *
 * @module
 */
import assert from "node:assert/strict";
import { dirname } from "node:path";
import process from "node:process";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { freePort, ServerProcess } from "./processes.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

describe("a fresh machine", () => {
  it("runs `npx deno task start` with the Deno from npm install", async () => {
    const port = await freePort();
    // Only Node's own directory and the system's: no Deno on PATH.
    const server = new ServerProcess("npx", ["deno", "task", "start"], {
      cwd: ROOT,
      env: {
        HOME: process.env.HOME,
        PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
        PORT: String(port),
        npm_config_update_notifier: "false",
      },
    });
    try {
      await server.ready(`http://127.0.0.1:${port}/healthz`);
      assert.match(
        server.stdout,
        new RegExp(`API listening on http://127\\.0\\.0\\.1:${port} \\(deno,`),
      );
    } finally {
      await server.stop();
    }
  });
});
