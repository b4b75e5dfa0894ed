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
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { startServerMain } from "../support/server_main.ts";
import { type RunningCli, startMockCli } from "../support/mock_cli.ts";
import type { ServerProcess } from "../deploy/processes.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const bin = (name: string) => join(ROOT, "node_modules", ".bin", name);
const CONFIG = join(ROOT, "test", "consumer", "portman", "portman-config.json");

/**
 * How long Portman or Newman may run: a few seconds on a quiet machine, many
 * times that on a loaded one; the bound is for a run that hangs, killed so
 * that the test fails with its output.
 */
const RUN_BOUND_MS = 240_000;

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

/** What this file started and has not stopped: stopped by its `after`. */
const running = new Set<ChildProcess>();

/**
 * Runs `command` in `cwd` without blocking the event loop (so that the
 * test's timeout and `after` still run), killed after
 * {@linkcode RUN_BOUND_MS}.
 */
function run(
  command: string,
  args: string[],
  cwd: string,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(command, args, {
    cwd,
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.add(child);
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (text) => stdout += text);
  child.stderr!.setEncoding("utf8").on("data", (text) => stderr += text);
  const timer = setTimeout(() => {
    stderr += `\n(killed after ${RUN_BOUND_MS} ms)`;
    child.kill("SIGKILL");
  }, RUN_BOUND_MS);
  return new Promise((resolve) => {
    const done = (status: number | null) => {
      clearTimeout(timer);
      running.delete(child);
      resolve({ status, stdout, stderr });
    };
    child.once("error", (error) => {
      stderr += String(error);
      done(null);
    });
    child.once("close", done);
  });
}

/**
 * Generates the collection from the document served at `base` and runs it
 * there; returns Newman's report.
 */
async function portmanAndNewman(
  base: string,
  scratch: string,
): Promise<NewmanReport> {
  const collection = join(scratch, "collection.json");
  const report = join(scratch, "newman.json");
  const generate = await run(bin("portman"), [
    "--url",
    `${base}/openapi.json`,
    "--baseUrl",
    base,
    "--portmanConfigFile",
    CONFIG,
    "--output",
    collection,
  ], scratch);
  assert.equal(generate.status, 0, generate.stdout + generate.stderr);
  assert.match(generate.stdout, /Collection written to/, generate.stdout);
  const newman = await run(bin("newman"), [
    "run",
    collection,
    "--reporters",
    "json",
    "--reporter-json-export",
    report,
  ], scratch);
  const parsed = JSON.parse(readFileSync(report, "utf8")) as NewmanReport;
  const failures = parsed.run.failures.map((failure) =>
    `${failure.source.name}: ${failure.error.test}: ${failure.error.message}`
  );
  assert.deepEqual(failures, [], newman.stderr);
  assert.equal(newman.status, 0, newman.stdout + newman.stderr);
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
  // A test that times out is abandoned, not stopped: its server, mock and
  // runs are stopped here, so that the file ends at its timeout.
  const servers = new Set<ServerProcess | RunningCli>();
  after(async () => {
    for (const child of running) child.kill("SIGKILL");
    await Promise.all([...servers].map((server) => server.stop()));
    rmSync(scratch, { recursive: true, force: true });
  });

  it("pass against npm start's server (demo data)", async () => {
    // Unknown tokens are sent on purpose: no failed-authentication limit.
    const started = startServerMain({ AUTH_FAILURE_LIMIT: "9999" });
    servers.add(started.server);
    try {
      const directory = join(scratch, "server");
      mkdirSync(directory);
      assertComplete(await portmanAndNewman(await started.url, directory));
    } finally {
      servers.delete(started.server);
      await started.server.stop();
    }
  });

  it("pass against the standalone mock", async () => {
    const mock = await startMockCli(["mock", "--port", "0"]);
    servers.add(mock);
    try {
      const directory = join(scratch, "mock");
      mkdirSync(directory);
      assertComplete(await portmanAndNewman(mock.url, directory));
    } finally {
      servers.delete(mock);
      await mock.stop();
    }
  });
});
