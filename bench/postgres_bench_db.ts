/**
 * A fresh database for the PostgreSQL benches: created on the server of
 * `DATABASE_URL`, migrated and seeded with the API suite's fixtures by
 * `callflow-api migrate --fixtures` under Node, dropped at the end.
 *
 * @module
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import postgres from "postgres";
import { apiFixtures } from "../test/support/api_fixtures.ts";
import { cpuSeconds, RUNTIME_COMMANDS } from "./hot_path.ts";

/** A bench's database, and what its servers need. */
export interface BenchDatabase {
  /** The environment of `server/main.ts` on it (and of the peer). */
  env: Record<string, string>;
  /** The fixtures file, for `FIXTURES` of a server on the memory store. */
  fixtures: string;
  /** CPU seconds of the backends serving the database so far. */
  postgresCpu(): Promise<number>;
  /** Drops the database (its connections too) and the fixtures file. */
  drop(): Promise<void>;
}

/**
 * Creates, migrates and seeds a database named `<prefix>_<pid>` (with
 * `BENCH_DB_TAG=x`, `<prefix>_x_<pid>`: benches run side by side on one
 * server tell theirs apart) on the server of `serverUrl` (a role that may
 * create databases).
 *
 * @param serverUrl `DATABASE_URL` of the bench.
 * @param prefix The start of the database's name.
 * @returns The database; {@linkcode BenchDatabase.drop} it at the end.
 *
 * @example
 * ```ts ignore
 * import { openBenchDatabase } from "./postgres_bench_db.ts";
 *
 * const database = await openBenchDatabase(process.env.DATABASE_URL!, "b");
 * console.log(database.env.DATABASE_URL);
 * await database.drop();
 * ```
 */
export async function openBenchDatabase(
  serverUrl: string,
  prefix: string,
): Promise<BenchDatabase> {
  const work = mkdtempSync(join(tmpdir(), "bench-pg-"));
  const admin = postgres(serverUrl, { max: 1, onnotice() {} });
  const tag = process.env.BENCH_DB_TAG;
  const name = [prefix, tag, process.pid].filter(Boolean).join("_");
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const fixtures = join(work, "fixtures.json");
  writeFileSync(fixtures, JSON.stringify(apiFixtures));
  // The API suite's tokens are short test tokens: allowed, as in the tests.
  const env = {
    DATABASE_URL: url.href,
    PORT: "0",
    HOST: "127.0.0.1",
    ALLOW_SHORT_TOKENS: "1",
  };
  const node = RUNTIME_COMMANDS.node!;
  execFileSync(
    node[0]!,
    ["server/cli.ts", "migrate", "--fixtures", fixtures],
    { env: { ...process.env, ...env }, stdio: "inherit" },
  );
  return {
    env,
    fixtures,
    async postgresCpu() {
      const rows = await admin<{ pid: number }[]>`
        SELECT pid FROM pg_stat_activity WHERE datname = ${name}`;
      let total = 0;
      for (const { pid } of rows) {
        try {
          total += cpuSeconds(pid);
        } catch {
          // ended in between
        }
      }
      return total;
    },
    async drop() {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
      rmSync(work, { recursive: true, force: true });
    },
  };
}
