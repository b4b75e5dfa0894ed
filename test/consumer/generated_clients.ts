/**
 * Clients generated from the served document work as written: with
 * `npm start`'s server running, its `/openapi.json` goes through
 * openapi-typescript (called with openapi-fetch), @hey-api/openapi-ts and
 * orval (its fetch client); each consumer's code in `clients/` (and the
 * README's openapi-fetch example) is checked
 * by `tsc --strict` (its `@ts-expect-error` lines are misuses the types
 * must refuse), then run against the server: the trigger events and the
 * call messages come back typed, a 403 and a 422 typed by status.
 *
 * Run by `node --test test/consumer/generated_clients.ts` (a stage of
 * `npm test`).
 *
 * @module
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { codeBlockWith } from "../support/docs.ts";
import { startServerMain } from "../support/server_main.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const bin = (name: string) => join(ROOT, "node_modules", ".bin", name);

describe("clients generated from the served document", () => {
  // Inside the project, so that the clients find openapi-fetch.
  mkdirSync(join(ROOT, ".tmp"), { recursive: true });
  const scratch = mkdtempSync(join(ROOT, ".tmp", "clients-"));
  const started = startServerMain({});
  let base: string;

  before(async () => {
    base = await started.url;
    const document = await (await fetch(`${base}/openapi.json`)).text();
    cpSync(fileURLToPath(new URL("clients", import.meta.url)), scratch, {
      recursive: true,
    });
    writeFileSync(join(scratch, "openapi.json"), document);
    const run = (command: string, args: string[]) =>
      execFileSync(bin(command), args, {
        cwd: scratch,
        stdio: ["ignore", "ignore", "inherit"],
      });
    run("openapi-typescript", ["openapi.json", "-o", "openapi_typescript.ts"]);
    // The README's example, on the same types under the name it uses.
    cpSync(join(scratch, "openapi_typescript.ts"), join(scratch, "api.ts"));
    writeFileSync(
      join(scratch, "readme_usage.ts"),
      `${codeBlockWith("README.md", "ts", "openapi-fetch")}\nexport {};\n`,
    );
    run("openapi-ts", ["-i", "openapi.json", "-o", "hey_api"]);
    run("orval", ["--config", "orval.config.mjs"]);
  });
  after(async () => {
    await started.server.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  it("compile with tsc --strict, misuses refused", () => {
    execFileSync(bin("tsc"), ["-p", "tsconfig.json"], {
      cwd: scratch,
      stdio: ["ignore", "inherit", "inherit"],
    });
  });

  for (const client of ["openapi_fetch", "hey_api", "orval"]) {
    it(`${client}: typed events and messages, a 403 and a 422`, () => {
      const output = execFileSync(
        bin("bun"),
        [join(scratch, `${client}_usage.ts`), base],
        { cwd: scratch, encoding: "utf8" },
      );
      const checked = JSON.parse(output);
      assert.equal(checked.times.length, 3);
      for (const time of checked.times) {
        assert.match(time, /^\d{4}-\d\d-\d\dT08:00:00\.000Z$/);
      }
      assert.equal(
        checked.texts[0],
        "Thanks for calling Acme, how can I help?",
      );
      assert.deepEqual(checked.forbidden, [403, "UNAUTHORIZED_ROLE"]);
      assert.deepEqual(checked.invalid, [422, ["path", "call_id"]]);
    });
  }
});
