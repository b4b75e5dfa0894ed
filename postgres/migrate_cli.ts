/**
 * `npm run migrate` (or `deno task migrate`): brings the schema of the
 * database at `DATABASE_DIRECT_URL` (a direct connection, past any pooler)
 * or else `DATABASE_URL` up to date and says what it applied. The server
 * does the same on start; this is for deploying the schema ahead of it.
 *
 * @example
 * ```sh
 * DATABASE_URL=postgres://postgres@127.0.0.1:5432/app npm run migrate
 * # Applied 0001_initial.sql
 * ```
 *
 * @module
 */
import process from "node:process";
import { connectPostgres } from "./connect.ts";
import { migrate } from "./migrate.ts";

async function main(): Promise<void> {
  const url = process.env.DATABASE_DIRECT_URL || process.env.DATABASE_URL;
  if (!url) {
    throw new Error(
      "Cannot migrate: neither DATABASE_DIRECT_URL nor DATABASE_URL is set",
    );
  }
  const sql = connectPostgres(url, { max: 1 });
  try {
    const applied = await migrate(sql);
    console.log(
      applied.length === 0
        ? "Schema up to date: nothing to apply"
        : applied.map((file) => `Applied ${file}`).join("\n"),
    );
  } finally {
    await sql.end({ timeout: 5 });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
