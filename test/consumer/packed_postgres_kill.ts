/**
 * The kill scenario (test/support/kill_scenario.ts) against what a user
 * installs: the packed package and `postgres` from the registry, put into a
 * fresh project with `npm install <tarball> postgres`, its `serve` command
 * run by Node, Deno and Bun. The same goals hold as for this repository's
 * run (test/postgres_kill_test.ts), since both run the registry's
 * postgres.js unpatched. `KILL_SECONDS` sets how long the kills last
 * (default 6). Needs DATABASE_URL; skipped without it.
 *
 * Run under Node only: `node --test test/consumer/packed_postgres_kill.ts`.
 *
 * @module
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import process from "node:process";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import {
  assertKillGoals,
  describeTally,
  runKillScenario,
  type ServerCommand,
} from "../support/kill_scenario.ts";
import { packedTarball } from "../support/packed_tarball.ts";
import { createTestDatabase, type TestDatabase } from "../support/postgres.ts";

const SERVER_URL = process.env.DATABASE_URL;
const SECONDS = Number(process.env.KILL_SECONDS ?? 6);
const BIN = fileURLToPath(new URL("../../node_modules/.bin", import.meta.url));

describe("The installed package on PostgreSQL while backends are killed", {
  skip: !SERVER_URL &&
    "needs DATABASE_URL: a server whose backends can be killed",
}, () => {
  const project = mkdtempSync(join(tmpdir(), "callflow-kill-consumer-"));
  const installed = join(project, "node_modules/@callflow/api");
  /** The bin the installed package declares, as npx would run it. */
  let cli: string;
  let db: TestDatabase;

  before(async () => {
    writeFileSync(
      join(project, "package.json"),
      JSON.stringify({ name: "consumer", private: true, type: "module" }),
    );
    execFileSync("npm", [
      "install",
      "--no-audit",
      "--no-fund",
      "--no-package-lock",
      packedTarball().path,
      "postgres",
    ], {
      cwd: project,
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        ...process.env,
        PATH: `${dirname(process.execPath)}:${process.env.PATH}`,
      },
    });
    const { bin } = JSON.parse(
      readFileSync(join(installed, "package.json"), "utf8"),
    ) as { bin: Record<string, string> };
    cli = join(installed, bin["callflow-api"]!);
    db = await createTestDatabase();
  });
  after(async () => {
    await db?.drop();
    rmSync(project, { recursive: true, force: true });
  });

  it("installs postgres.js from the registry, as the repository does", () => {
    const version = (path: string) =>
      (JSON.parse(readFileSync(path, "utf8")) as { version: string }).version;
    const installed = version(
      join(project, "node_modules/postgres/package.json"),
    );
    const repository = version(
      fileURLToPath(
        new URL("../../node_modules/postgres/package.json", import.meta.url),
      ),
    );
    console.log(`postgres.js ${installed} installed, ${repository} here`);
    assert.equal(installed, repository);
  });

  const servers: [string, () => ServerCommand][] = [
    ["node", () => ({
      command: process.execPath,
      args: [cli, "serve"],
      cwd: project,
    })],
    ["deno", () => ({
      command: join(BIN, "deno"),
      args: ["run", "--allow-all", cli, "serve"],
      cwd: project,
    })],
    ["bun", () => ({
      command: join(BIN, "bun"),
      args: [cli, "serve"],
      cwd: project,
    })],
  ];
  for (const [runtime, server] of servers) {
    it(`survives, retries lost reads, and recovers within a second (${runtime})`, async () => {
      const tally = await runKillScenario(
        server(),
        db.url,
        SERVER_URL!,
        SECONDS,
      );
      console.log(describeTally(`installed package, ${runtime}`, tally));
      assertKillGoals(tally);
    });
  }
});
