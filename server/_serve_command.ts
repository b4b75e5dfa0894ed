/**
 * `callflow-api serve`: the real API from the installed package, as
 * `npm start` runs it from the source tree.
 *
 * ```sh
 * npx @callflow/api serve --port 8787 --fixtures fixtures.json
 * DATABASE_URL=postgres://... npx @callflow/api serve --host 0.0.0.0
 * ```
 *
 * @module
 */
import process from "node:process";
import { parseArgs } from "node:util";
import { openApiDocument } from "../src/openapi.ts";
import { runServer } from "./_run_server.ts";
import {
  parsePort,
  readServerSettings,
  type ServerSettings,
  SettingsError,
} from "./_settings.ts";

/** The command's help text. */
export const SERVE_USAGE = `Usage: callflow-api serve [options]

Serves the API: memory store seeded with the demo data or --fixtures, or
Postgres when DATABASE_URL is set. Access log: one JSON line per request on
stdout. Stop with Ctrl+C (SIGINT) or SIGTERM.

Options (each overrides its environment variable):
  --port <n>         Port to listen on (PORT; default 8787; 0 picks a free one)
  --host <name>      Interface to listen on (HOST; default 127.0.0.1)
  --fixtures <file>  Fixtures file to seed from (FIXTURES; default: demo data)
  --version          Print the version
  -h, --help         Show this help

Environment: DATABASE_URL, DATABASE_DIRECT_URL (migrations and seeding),
DATABASE_READ_URL (a read replica), DATABASE_POOL_SIZE (default 10),
LOG_LEVEL (debug, info, warn, error, off; default info),
LOG_FORMAT (json, pretty; default pretty on a terminal, json otherwise).`;

/** A mistake on the command line: usage is printed, exit code 2. */
class UsageError extends Error {}

function parseCommandLine(args: string[]): ServerSettings | "help" | "version" {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: {
        port: { type: "string" },
        host: { type: "string" },
        fixtures: { type: "string" },
        version: { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values } = parsed;
  if (values.help) return "help";
  if (values.version) return "version";
  let port: number | undefined;
  try {
    port = parsePort(values.port, "--port");
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const settings = readServerSettings(process.env, process.stdout.isTTY);
  return {
    ...settings,
    ...(port !== undefined && { port }),
    ...(values.host !== undefined && { hostname: values.host }),
    ...(values.fixtures !== undefined && { fixturesPath: values.fixtures }),
  };
}

/**
 * Runs `serve` with the arguments after the word `serve`.
 *
 * @param args e.g. `["--port", "0"]`.
 * @returns The exit code: 0 after a graceful stop, 1 when it cannot start,
 * 2 for a usage mistake.
 *
 * @example
 * ```ts ignore
 * import process from "node:process";
 * import { serveCommand } from "./_serve_command.ts";
 *
 * process.exit(await serveCommand(["--port", "8787"]));
 * ```
 */
export async function serveCommand(args: string[]): Promise<number> {
  let settings;
  try {
    settings = parseCommandLine(args);
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`${error.message}\n\n${SERVE_USAGE}`);
      return 2;
    }
    if (error instanceof SettingsError) {
      console.error(error.message);
      return 1;
    }
    throw error;
  }
  if (settings === "help") {
    console.log(SERVE_USAGE);
    return 0;
  }
  if (settings === "version") {
    console.log(openApiDocument.info.version);
    return 0;
  }
  try {
    return await runServer(settings);
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    return 1;
  }
}
