/**
 * `callflow-api serve`: the real API from the installed package, as
 * `npm start` runs it from the source tree.
 *
 * ```sh
 * node_modules/.bin/callflow-api serve --port 8787 --fixtures fixtures.json
 * DATABASE_URL=postgres://... node_modules/.bin/callflow-api serve --host 0.0.0.0
 * ```
 *
 * @module
 */
import process from "node:process";
import { type Command, optionValue } from "./command_line.ts";
import { runServer } from "../run_server.ts";
import { parsePort, readServerSettings } from "../settings/settings.ts";
import { stdoutIsTerminal } from "../observability/log_lines.ts";

/** The command's help text. */
export const SERVE_USAGE = `Usage: callflow-api serve [options]

Serves the API: from memory, seeded with the demo data or --fixtures; or
from Postgres when DATABASE_URL is set (migrated on start; seeded only from
--fixtures, or with the demo data when it says demo). Access log: one JSON
line per request on stdout. Stop with Ctrl+C (SIGINT) or SIGTERM:
it drains, then exits 0.

Options (each overrides its environment variable):
  --port <n>         Port to listen on (PORT; default 8787; 0 picks a free one)
  --host <name>      Interface to listen on (HOST; default 127.0.0.1)
  --fixtures <file>  Fixtures file to seed from, or demo (FIXTURES; default:
                     the demo data in memory, nothing on Postgres)
  -V, --version      Print the package's version
  -h, --help         Show this help

Environment: DATABASE_URL, DATABASE_DIRECT_URL (migrations and seeding),
DATABASE_READ_URL (a read replica), DATABASE_POOL_SIZE (default 10),
MAX_CONCURRENT_EXPORTS (default 16), MAX_EXPORTS_PER_PROJECT (default half),
EXPORT_STALL_TIMEOUT (seconds, default 60), EXPORT_MIN_RATE (bytes/s,
default 4096), SHUTDOWN_TIMEOUT (seconds,
default 30), LOG_LEVEL (debug, info, warn, error, off; default info),
LOG_FORMAT (json, pretty; default pretty on a terminal, json otherwise),
AUTH_FAILURE_LIMIT (default 20), AUTH_FAILURE_WINDOW (seconds, default 60),
TRUST_PROXY (proxies in front, default 0), ALLOW_SHORT_TOKENS (0, 1).`;

/**
 * `callflow-api serve`: run it with `runCommand(args, serveCommand)`. Exit
 * code 0 after a graceful stop, 1 when it cannot start, 2 for a usage error.
 */
export const serveCommand: Command = {
  usage: SERVE_USAGE,
  options: {
    port: { type: "string" },
    host: { type: "string" },
    fixtures: { type: "string" },
  },
  async run(values) {
    const port = optionValue(() =>
      parsePort(values.port as string | undefined, "--port")
    );
    try {
      const settings = readServerSettings(process.env, stdoutIsTerminal());
      return await runServer({
        ...settings,
        ...(port !== undefined && { port }),
        ...(values.host !== undefined && { hostname: values.host as string }),
        ...(values.fixtures !== undefined &&
          { fixturesPath: values.fixtures as string }),
      });
    } catch (error) {
      // A malformed setting, bad fixtures, a database or port refused.
      console.error(error instanceof Error ? error.message : error);
      return 1;
    }
  },
};
