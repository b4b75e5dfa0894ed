/**
 * The `callflow-api` bin (server/cli.ts) as a process of the runtime running
 * this file: `--help` lists every command, `--version` prints the package's
 * version for each, usage errors share one wording, and `migrate` applies
 * the migrations (and seeds only when told) on a fresh database.
 *
 * @module
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { runtimeName } from "../server/runtimes/mod.ts";
import { demoFixtures } from "../src/store/demo_fixtures.ts";
import { apiFixtures, TOKENS } from "./support/api_fixtures.ts";
import { runBin, startMockCli } from "./support/mock_cli.ts";
import { countRows, createTestDatabase } from "./support/postgres.ts";
import { hashToken } from "../src/store/sha256.ts";
import postgres from "postgres";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const VERSION = (JSON.parse(
  readFileSync(join(ROOT, "package.json"), "utf8"),
) as { version: string }).version;

/** Runs the bin with `env` added to the environment, less the servers'. */
function cli(args: string[], env: Record<string, string> = {}) {
  return runBin(args, {
    ...process.env,
    DATABASE_URL: undefined,
    DATABASE_DIRECT_URL: undefined,
    DATABASE_READ_URL: undefined,
    FIXTURES: undefined,
    ...env,
  });
}

describe(`the callflow-api bin under ${runtimeName()}`, () => {
  const directory = mkdtempSync(join(tmpdir(), "callflow-cli-"));
  after(() => rmSync(directory, { recursive: true, force: true }));

  it("lists every command in --help", async () => {
    const help = await cli(["--help"]);
    assert.equal(help.code, 0, help.stderr);
    for (const command of ["serve", "migrate", "mock"]) {
      assert.match(help.stdout, new RegExp(`^  ${command} +\\S`, "m"));
    }
    const migrate = await cli(["migrate", "--help"]);
    assert.equal(migrate.code, 0);
    assert.match(
      migrate.stdout,
      /^Usage: callflow-api migrate[^]*DATABASE_URL/,
    );
  });

  it("prints the package's version for the bin and every command", async () => {
    for (
      const args of [
        ["-V"],
        ["serve", "--version"],
        ["migrate", "--version"],
        ["mock", "--version"],
      ]
    ) {
      const run = await cli(args);
      assert.equal(run.code, 0, args.join(" "));
      assert.equal(run.stdout.trim(), VERSION, args.join(" "));
    }
  });

  it("words usage errors one way across commands (exit 2)", async () => {
    const serve = await cli(["serve", "--port", "x"]);
    const mock = await cli(["mock", "--port", "x"]);
    for (const [name, run] of [["serve", serve], ["mock", mock]] as const) {
      assert.equal(run.code, 2);
      assert.equal(run.stdout, "");
      assert.match(
        run.stderr,
        new RegExp(
          `^--port must be an integer from 0 to 65535, got "x"\\n\\nUsage: callflow-api ${name} `,
        ),
      );
    }
    const limit = await cli(["mock", "--journal-limit", "0"]);
    assert.match(
      limit.stderr,
      /^--journal-limit must be a positive integer, got "0"\n\nUsage: callflow-api mock /,
    );
    const bogus = await cli(["migrate", "--bogus"]);
    assert.equal(bogus.code, 2);
    assert.match(
      bogus.stderr,
      /^Unknown option '--bogus'[^]*callflow-api migrate/,
    );
    const none = await cli([]);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /^Missing command: serve, migrate or mock\n\n/);
  });

  it("takes --fixtures demo for the demo data in the mock too", async () => {
    const mock = await startMockCli([
      "mock",
      "--port",
      "0",
      "--fixtures",
      "demo",
    ]);
    try {
      assert.match(mock.output(), /\(\w+, demo fixtures\)/);
      assert.match(mock.output(), /demo-owner +owner +Acme/);
    } finally {
      await mock.stop();
    }
  });

  it("refuses migrate without DATABASE_URL (exit 1)", async () => {
    const run = await cli(["migrate"]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /Cannot migrate: DATABASE_URL is not set/);
  });

  it("migrates through DATABASE_DIRECT_URL when it is set", async () => {
    const db = await createTestDatabase();
    try {
      const run = await cli(["migrate"], {
        // Closed: only the direct URL can be the one migrated through.
        DATABASE_URL: "postgres://postgres@127.0.0.1:1/none",
        DATABASE_DIRECT_URL: db.url,
      });
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout.trim(), "Applied 0001_initial.sql");
    } finally {
      await db.drop();
    }
  });

  it("migrates a fresh database, seeding only when told", async () => {
    const db = await createTestDatabase();
    try {
      // The API fixtures' tokens are short, as tests' are.
      const env = { DATABASE_URL: db.url, ALLOW_SHORT_TOKENS: "1" };
      const first = await cli(["migrate"], env);
      assert.equal(first.code, 0, first.stderr);
      assert.equal(first.stdout.trim(), "Applied 0001_initial.sql");
      assert.equal(await countRows(db.url, "tokens"), 0);

      const again = await cli(["migrate"], env);
      assert.equal(again.stdout.trim(), "Schema up to date: nothing to apply");

      const file = join(directory, "fixtures.json");
      writeFileSync(file, JSON.stringify(apiFixtures));
      const seeded = await cli(["migrate", "--fixtures", file], env);
      assert.equal(seeded.code, 0, seeded.stderr);
      assert.match(seeded.stdout, /Seeded fixtures .*fixtures\.json/);
      const sql = postgres(db.url, { max: 1, onnotice: () => {} });
      try {
        const [row] = await sql`
          SELECT role FROM tokens WHERE token_hash = ${await hashToken(
          TOKENS.owner,
        )}`;
        assert.equal(row?.role, "owner");
      } finally {
        await sql.end();
      }

      const demo = await cli(["migrate"], { ...env, FIXTURES: "demo" });
      assert.equal(demo.code, 0, demo.stderr);
      assert.match(demo.stderr, /Warning: FIXTURES=demo/);
      assert.equal(
        await countRows(db.url, "tokens"),
        apiFixtures.tokens!.length + demoFixtures.tokens.length,
      );

      const bad = join(directory, "bad.json");
      writeFileSync(bad, '{"projects": [');
      const refused = await cli(["migrate", "--fixtures", bad], env);
      assert.equal(refused.code, 1);
      assert.ok(refused.stderr.includes(bad), refused.stderr);
    } finally {
      await db.drop();
    }
  });
});
