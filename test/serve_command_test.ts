/**
 * `callflow-api serve` (server/cli.ts dispatching to server/commands/serve.ts) as a
 * process of the runtime running this file: help, version, refusals, and the
 * real API served with the access log on stdout, stopped by SIGTERM.
 *
 * @module
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { after, describe, it } from "node:test";
import { runtimeName } from "../server/runtimes/mod.ts";
import { apiFixtures, CALLS, TOKENS } from "./support/api_fixtures.ts";
import { checkNoDemoTokens } from "./deploy/fetch_checks.ts";
import { ServerProcess } from "./deploy/processes.ts";
import { binCommand, runBin } from "./support/mock_cli.ts";
import { countRows, createTestDatabase } from "./support/postgres.ts";

/** The environment without the server settings of whoever runs the tests. */
function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined) env[key] = value;
  }
  for (
    const key of [
      "DATABASE_URL",
      "FIXTURES",
      "PORT",
      "HOST",
      "LOG_LEVEL",
      "LOG_FORMAT",
    ]
  ) delete env[key];
  return { ...env, ...extra };
}

function runServe(args: string[], env: Record<string, string> = {}) {
  return runBin(["serve", ...args], cleanEnv(env));
}

/** The address the server prints once it listens (20 s at most). */
async function listeningUrl(server: ServerProcess): Promise<string> {
  const deadline = Date.now() + 20_000;
  let match: RegExpMatchArray | null = null;
  while (match === null && Date.now() < deadline) {
    match = server.stdout.match(/API listening on (http:\/\/\S+)/);
    if (match === null) await new Promise((r) => setTimeout(r, 50));
  }
  assert.ok(match, server.output);
  return match[1]!;
}

describe(`callflow-api serve under ${runtimeName()}`, () => {
  const directory = mkdtempSync(join(tmpdir(), "serve-cli-"));
  const fixturesPath = join(directory, "fixtures.json");
  writeFileSync(fixturesPath, JSON.stringify(apiFixtures));
  after(() => rmSync(directory, { recursive: true, force: true }));

  it("prints its help and its version", async () => {
    const help = await runServe(["--help"]);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /Usage: callflow-api serve/);
    assert.match(help.stdout, /LOG_LEVEL/);
    const version = await runServe(["--version"]);
    assert.equal(version.code, 0);
    assert.equal(version.stdout.trim(), "0.1.0");
  });

  it("refuses an unknown flag or a malformed port with usage (exit 2)", async () => {
    for (const args of [["--bogus"], ["--port", " 80"], ["--port", "8e3"]]) {
      const result = await runServe(args);
      assert.equal(result.code, 2, `${args.join(" ")}\n${result.stderr}`);
      assert.match(result.stderr, /Usage: callflow-api serve/);
    }
  });

  it("refuses a malformed setting in the environment (exit 1)", async () => {
    const port = await runServe([], { PORT: " 80" });
    assert.equal(port.code, 1);
    assert.match(port.stderr, /PORT must be an integer from 0 to 65535/);
    const level = await runServe([], { LOG_LEVEL: "verbose" });
    assert.equal(level.code, 1);
    assert.match(level.stderr, /LOG_LEVEL must be one of debug, info/);
  });

  it("seeds nothing on Postgres without --fixtures: demo-owner gets 401", async () => {
    const db = await createTestDatabase();
    const [bin, binArgs] = binCommand(["serve", "--port", "0"]);
    const server = new ServerProcess(bin, binArgs, {
      cwd: directory,
      env: cleanEnv({
        DATABASE_URL: db.url,
        DATABASE_POOL_SIZE: String(db.max),
      }),
    });
    try {
      const url = await listeningUrl(server);
      await checkNoDemoTokens((path, init) => fetch(`${url}${path}`, init));
      assert.equal(await countRows(db.url, "tokens"), 0);
    } finally {
      await server.stop();
      await db.drop();
    }
    assert.equal(await server.exited, 0, server.output);
  });

  it("serves the fixtures, logs JSON lines, and stops on SIGTERM", async () => {
    const [bin, binArgs] = binCommand([
      "serve",
      "--port",
      "0",
      "--fixtures",
      fixturesPath,
    ]);
    const server = new ServerProcess(bin, binArgs, {
      cwd: directory,
      env: cleanEnv({ LOG_LEVEL: "debug" }),
    });
    try {
      const deadline = Date.now() + 20_000;
      const url = await listeningUrl(server);
      assert.match(server.stdout, new RegExp(`\\(${runtimeName()}, memory`));
      const response = await fetch(`${url}/v1/call/${CALLS.first}/message`, {
        headers: {
          authorization: `Bearer ${TOKENS.viewer}`,
          "x-request-id": "serve-cli-1",
        },
      });
      assert.equal(response.status, 200);
      await response.arrayBuffer();
      const health = await fetch(`${url}/healthz`);
      assert.equal(health.status, 200);
      await health.arrayBuffer();
      while (
        !server.stdout.includes('"/healthz"') && Date.now() < deadline
      ) await new Promise((r) => setTimeout(r, 50));
      const lines = server.jsonLines();
      const line = lines.find((line) => line.request_id === "serve-cli-1");
      assert.ok(line, server.output);
      assert.equal(line.status, 200);
      assert.ok(
        lines.some((line) => line.path === "/healthz"),
        "probes logged at debug",
      );
      assert.ok(!JSON.stringify(lines).includes(TOKENS.viewer));
    } finally {
      await server.stop();
    }
    assert.equal(await server.exited, 0, server.output);
    assert.match(server.stdout, /SIGTERM: shutting down/);
  });
});
