#!/usr/bin/env node
/**
 * The package's `bin`, `callflow-api`: one entry with three modes, each
 * with its own options, `--help` and `--version` (the package's version):
 *
 * - `serve`: the real API, from memory or Postgres (server/commands/serve.ts);
 * - `mock`: the standalone mock server with its control API, for tests in
 *   any language (server/commands/mock.ts);
 * - `migrate`: migrates (and seeds) the database at `DATABASE_URL`
 *   (server/commands/migrate.ts; also `npm run migrate` in this repository).
 *
 * ```sh
 * node_modules/.bin/callflow-api serve --port 8787
 * node_modules/.bin/callflow-api mock --port 4010 --fixtures fixtures.json
 * deno run --allow-net --allow-read npm:@callflow/api mock --port 4010
 * bunx --bun @callflow/api mock --port 4010
 * ```
 *
 * A usage error prints the problem, a blank line and the usage on stderr,
 * and exits 2.
 *
 * @module
 */
import "./runtimes/require_supported_runtime.ts";
import process from "node:process";
import {
  type Command,
  runCommand,
  USAGE_EXIT_CODE,
  UsageError,
  usageErrorText,
} from "./commands/command_line.ts";
import { enableCompileCache } from "./runtimes/compile_cache.ts";

/** `callflow-api --help`: every mode. */
const USAGE = `Usage: callflow-api <command> [options]

Commands:
  serve     Serve the API: from memory (the demo data), or from Postgres
            when DATABASE_URL is set
  migrate   Apply the migrations to the database at DATABASE_URL (and seed
            it with --fixtures)
  mock      Serve a mock of the API with a control API, for tests in any
            language

Options:
  -V, --version  Print the package's version
  -h, --help     Show this help; callflow-api <command> --help shows a
                 command's options`;

/** Each mode, loaded only when run (`migrate` imports postgres.js). */
const MODES: Record<string, () => Promise<Command>> = {
  serve: async () => (await import("./commands/serve.ts")).serveCommand,
  migrate: async () => (await import("./commands/migrate.ts")).migrateCommand,
  mock: async () => (await import("./commands/mock.ts")).mockCommand,
};

/** `callflow-api` without a command: its help, its version, or a usage error. */
const topCommand: Command = {
  usage: USAGE,
  options: {},
  run: () => {
    throw new UsageError("Missing command: serve, migrate or mock");
  },
};

/** Runs the mode `args` name, with the rest of them. */
async function main(args: string[]): Promise<number> {
  const [name, ...rest] = args;
  if (name !== undefined && Object.hasOwn(MODES, name)) {
    return await runCommand(rest, await MODES[name]!());
  }
  if (name !== undefined && !name.startsWith("-")) {
    console.error(
      usageErrorText(
        `Unknown command "${name}": use serve, migrate or mock`,
        USAGE,
      ),
    );
    return USAGE_EXIT_CODE;
  }
  return await runCommand(args, topCommand);
}

// Before a mode's modules load, so that Node caches them.
enableCompileCache();
main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error("callflow-api failed:", error);
    process.exit(1);
  },
);
