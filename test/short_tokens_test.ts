/**
 * Tokens loaded into a real database from a fixtures file need at least 32
 * characters: `callflow-api migrate --fixtures` and a server seeding
 * Postgres refuse shorter ones (naming where, never the token) unless
 * `ALLOW_SHORT_TOKENS=1` (or `--allow-short-tokens`) says they are tests';
 * the memory store takes any.
 *
 * @module
 */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { after, before, describe, it } from "node:test";
import { runBin } from "./support/mock_cli.ts";
import { countRows, createTestDatabase } from "./support/postgres.ts";
import { startServerMain } from "./support/server_main.ts";

const PROJECT = "3f1c9a52-7a4b-4e2d-9c11-5b8f2e6d7a90";
const SHORT = "weak-Zq81";
const LONG = "9f2c4e6a8b0d1f3e5a7c9b1d3f5e7a9c";

const fixtures = (tokens: string[]) => ({
  projects: [{ project_id: PROJECT, name: "P" }],
  tokens: tokens.map((token) => ({
    token,
    project_id: PROJECT,
    role: "owner",
  })),
});

let directory: string;
let shortFile: string;
let longFile: string;
before(async () => {
  directory = await mkdtemp(join(tmpdir(), "callflow-tokens-"));
  shortFile = join(directory, "short.json");
  longFile = join(directory, "long.json");
  await writeFile(shortFile, JSON.stringify(fixtures([LONG, SHORT])));
  await writeFile(longFile, JSON.stringify(fixtures([LONG])));
});
after(() => rm(directory, { recursive: true, force: true }));

describe("callflow-api migrate --fixtures", () => {
  it("refuses a short token, naming where it is, and seeds nothing", async () => {
    const db = await createTestDatabase();
    try {
      const env = { ...process.env, DATABASE_URL: db.url };
      const refused = await runBin(["migrate", "--fixtures", shortFile], env);
      assert.equal(refused.code, 1, refused.output);
      assert.match(refused.stderr, /tokens\[1\]\.token: 9 characters/);
      assert.match(refused.stderr, /at least 32/);
      assert.equal(refused.output.includes(SHORT), false);
      const long = await runBin(["migrate", "--fixtures", longFile], env);
      assert.equal(long.code, 0, long.output);
      assert.equal(await countRows(db.url, "tokens"), 1);
      const allowed = await runBin(
        ["migrate", "--fixtures", shortFile, "--allow-short-tokens"],
        env,
      );
      assert.equal(allowed.code, 0, allowed.output);
      assert.equal(await countRows(db.url, "tokens"), 2);
    } finally {
      await db.drop();
    }
  });
});

describe("a server seeding a database from FIXTURES", () => {
  it("refuses to start with a short token, and starts with ALLOW_SHORT_TOKENS=1", async () => {
    const db = await createTestDatabase();
    try {
      const env = {
        DATABASE_URL: db.url,
        DATABASE_POOL_SIZE: String(db.max),
        FIXTURES: shortFile,
      };
      const refused = startServerMain(env);
      await assert.rejects(refused.url, /tokens\[1\]\.token/);
      assert.equal(refused.server.output.includes(SHORT), false);
      await refused.server.stop();
      // Refused before the database was even migrated.
      await assert.rejects(countRows(db.url, "tokens"), /does not exist/);

      const allowed = startServerMain({ ...env, ALLOW_SHORT_TOKENS: "1" });
      try {
        const url = await allowed.url;
        const response = await fetch(`${url}/readyz`);
        assert.equal(response.status, 200);
        await response.body?.cancel();
      } finally {
        await allowed.server.stop();
      }
    } finally {
      await db.drop();
    }
  });

  it("serving from memory, takes a short token", async () => {
    const { server, url } = startServerMain({ FIXTURES: shortFile });
    try {
      const response = await fetch(`${await url}/v1/integration/${PROJECT}`, {
        method: "DELETE",
        headers: { authorization: `Bearer ${SHORT}` },
      });
      assert.equal(response.status, 404, "the short token was known");
      await response.body?.cancel();
    } finally {
      await server.stop();
    }
  });
});
