/**
 * The contract checked from the outside by Portman and Newman: Portman turns
 * the served `/openapi.json` into a Postman collection with contract tests
 * (status, content type, JSON body, the response schema, the declared
 * headers) on every operation and variation tests (no, unknown and malformed
 * tokens, a role without the permission, path ids that are not UUIDs,
 * unknown ids, another project's call, the `EMPTY` trigger, bad export
 * bodies, a fuzzed body without its required field, a `{}` body on the
 * routes that take none, as clients send by default), from
 * `test/consumer/portman/portman-config.json`; Newman runs it against
 * `npm start`'s server (demo data) and against the standalone mock
 * (`callflow-api mock`). Every assertion must pass.
 *
 * Run by `node --test test/consumer/portman_newman.ts` (a stage of
 * `npm test`).
 *
 * @module
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { startServerMain } from "../support/server_main.ts";
import { startMockCli } from "../support/mock_cli.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const bin = (name: string) => join(ROOT, "node_modules", ".bin", name);
const CONFIG = join(ROOT, "test", "consumer", "portman", "portman-config.json");

/** What Newman's JSON reporter says of a run. */
interface NewmanReport {
  run: {
    stats: {
      requests: { total: number; failed: number };
      assertions: { total: number; failed: number };
    };
    failures: {
      source: { name: string };
      error: { test: string; message: string };
    }[];
  };
}

/**
 * Generates the collection from the document served at `base` and runs it
 * there; returns Newman's report.
 */
function portmanAndNewman(base: string, scratch: string): NewmanReport {
  const collection = join(scratch, "collection.json");
  const report = join(scratch, "newman.json");
  const generate = spawnSync(bin("portman"), [
    "--url",
    `${base}/openapi.json`,
    "--baseUrl",
    base,
    "--portmanConfigFile",
    CONFIG,
    "--output",
    collection,
  ], { cwd: scratch, encoding: "utf8" });
  assert.equal(generate.status, 0, generate.stdout + generate.stderr);
  assert.match(generate.stdout, /Collection written to/, generate.stdout);
  const run = spawnSync(bin("newman"), [
    "run",
    collection,
    "--reporters",
    "json",
    "--reporter-json-export",
    report,
  ], { cwd: scratch, encoding: "utf8" });
  const parsed = JSON.parse(readFileSync(report, "utf8")) as NewmanReport;
  const failures = parsed.run.failures.map((failure) =>
    `${failure.source.name}: ${failure.error.test}: ${failure.error.message}`
  );
  assert.deepEqual(failures, [], run.stderr);
  assert.equal(run.status, 0, run.stdout + run.stderr);
  return parsed;
}

/** Checks the size of a run: every generated request ran and asserted. */
function assertComplete(report: NewmanReport): void {
  const { requests, assertions } = report.run.stats;
  // 6 operations and 32 variations; each request asserts its status, content
  // type, JSON body and schema, and each declared (required) header.
  assert.equal(requests.total, 38);
  assert.ok(assertions.total >= 270, `assertions: ${assertions.total}`);
  console.log(
    `newman: ${requests.total} requests, ${assertions.total} assertions`,
  );
}

describe("Portman's contract and variation tests, run by Newman", () => {
  const scratch = mkdtempSync(join(tmpdir(), "portman-"));
  after(() => rmSync(scratch, { recursive: true, force: true }));

  it("pass against npm start's server (demo data)", async () => {
    // Unknown tokens are sent on purpose: no failed-authentication limit.
    const started = startServerMain({ AUTH_FAILURE_LIMIT: "9999" });
    try {
      const directory = join(scratch, "server");
      mkdirSync(directory);
      assertComplete(portmanAndNewman(await started.url, directory));
    } finally {
      await started.server.stop();
    }
  });

  it("pass against the standalone mock", async () => {
    const mock = await startMockCli(["mock", "--port", "0"]);
    try {
      const directory = join(scratch, "mock");
      mkdirSync(directory);
      assertComplete(portmanAndNewman(mock.url, directory));
    } finally {
      await mock.stop();
    }
  });
});
