/**
 * `callflow-api migrate` (and `npm run migrate`, `deno task migrate` in this
 * repository): brings the schema of the database at `DATABASE_URL` (through
 * `DATABASE_DIRECT_URL` when set) up to date, as the server does on start, and seeds it when `--fixtures` (or
 * `FIXTURES`) says so: for deploying ahead of the servers, and for a Worker,
 * which neither migrates nor seeds.
 *
 * ```sh
 * DATABASE_URL=postgres://app@db:5432/app node_modules/.bin/callflow-api migrate
 * # Applied 0001_initial.sql
 * ```
 *
 * @module
 */
import process from "node:process";
import { connectPostgres } from "../../postgres/connect.ts";
import { migrate } from "../../postgres/migrate.ts";
import { seedFixtures } from "../../postgres/seed_fixtures.ts";
import type { Command } from "./command_line.ts";
import { loadStartFixtures } from "../app.ts";
import { readServerSettings } from "../settings/settings.ts";

/** The command's help text. */
export const MIGRATE_USAGE = `Usage: callflow-api migrate [options]

Applies the migrations the installed package ships to the database at
DATABASE_URL, through DATABASE_DIRECT_URL when set (the server does the same
on start), then seeds it when --fixtures says so. Safe to run again and from several places at once.

Options:
  --fixtures <file>  Fixtures file to seed from after migrating, or demo for
                     the demo data (FIXTURES; default: nothing is seeded).
                     Its tokens need at least 32 characters
  --allow-short-tokens
                     Seed shorter tokens too, for tests (ALLOW_SHORT_TOKENS=1)
  -V, --version      Print the package's version
  -h, --help         Show this help

Environment: DATABASE_URL (required), DATABASE_DIRECT_URL (a direct
connection to the same database, past a pooler).`;

/**
 * `callflow-api migrate`: run it with `runCommand(args, migrateCommand)`;
 * the bin loads this module only for this command (it imports postgres.js).
 * Exit code 0 once migrated (and seeded), 1 when the database or the
 * fixtures refuse, 2 for a usage error.
 */
export const migrateCommand: Command = {
  usage: MIGRATE_USAGE,
  options: {
    fixtures: { type: "string" },
    "allow-short-tokens": { type: "boolean", default: false },
  },
  async run(values) {
    try {
      const settings = readServerSettings(process.env);
      const url = settings.databaseDirectUrl ?? settings.databaseUrl;
      if (url === undefined) {
        throw new Error("Cannot migrate: DATABASE_URL is not set");
      }
      const fixturesSetting = values.fixtures as string | undefined ??
        settings.fixturesPath;
      // Read before connecting: a bad file changes nothing.
      const start = await loadStartFixtures(
        fixturesSetting,
        "postgres",
        settings.allowShortTokens || values["allow-short-tokens"] === true,
      );
      const sql = connectPostgres(url, { max: 1 });
      try {
        const applied = await migrate(sql);
        console.log(
          applied.length === 0
            ? "Schema up to date: nothing to apply"
            : applied.map((file) => `Applied ${file}`).join("\n"),
        );
        if (start.fixtures !== undefined) {
          await seedFixtures(sql, start.fixtures);
          console.log(`Seeded ${start.description}`);
        }
      } finally {
        await sql.end({ timeout: 5 });
      }
      return 0;
    } catch (error) {
      console.error(error instanceof Error ? error.message : error);
      return 1;
    }
  },
};
