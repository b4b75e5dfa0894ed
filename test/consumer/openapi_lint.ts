/**
 * The served document as linters read it: `npm start`'s `/openapi.json`
 * through Spectral's `spectral:oas`
 * and Redocly's `recommended` rules, with no ruleset of ours: nothing at
 * all may be reported, not even a hint.
 *
 * Run by `node --test test/consumer/openapi_lint.ts` (a stage of
 * `npm test`).
 *
 * @module
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { startServerMain } from "../support/server_main.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const bin = (name: string) => join(ROOT, "node_modules", ".bin", name);

describe("linters on the served OpenAPI document", () => {
  const scratch = mkdtempSync(join(tmpdir(), "openapi-lint-"));
  const started = startServerMain({});
  const document = join(scratch, "openapi.json");

  before(async () => {
    const base = await started.url;
    writeFileSync(document, await (await fetch(`${base}/openapi.json`)).text());
    writeFileSync(
      join(scratch, ".spectral.yaml"),
      'extends: ["spectral:oas"]\n',
    );
  });
  after(async () => {
    await started.server.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  it("Spectral spectral:oas reports nothing", () => {
    const run = spawnSync(
      bin("spectral"),
      ["lint", "--format", "json", "--quiet", document],
      { cwd: scratch, encoding: "utf8" },
    );
    assert.deepEqual(JSON.parse(run.stdout || "[]"), [], run.stderr);
    assert.equal(run.status, 0, run.stderr);
  });

  it("Redocly recommended reports nothing", () => {
    const run = spawnSync(
      bin("redocly"),
      ["lint", "--format", "json", "--extends", "recommended", document],
      { cwd: scratch, encoding: "utf8" },
    );
    const report = JSON.parse(run.stdout) as {
      totals: { errors: number; warnings: number; ignored: number };
      problems: unknown[];
    };
    assert.deepEqual(report.problems, [], run.stderr);
    assert.deepEqual(report.totals, { errors: 0, warnings: 0, ignored: 0 });
    assert.equal(run.status, 0);
  });
});
