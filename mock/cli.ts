#!/usr/bin/env node
/**
 * The package's `bin`: the standalone mock server's command (and `serve`,
 * the real API, in server/_serve_command.ts):
 *
 * ```sh
 * npx @callflow/api mock --port 4010 --fixtures fixtures.json
 * deno run --allow-net --allow-read npm:@callflow/api mock --port 4010
 * bunx @callflow/api mock --port 4010
 * ```
 *
 * Serves the real API over an in-memory store seeded with the fixtures (the
 * built-in demo set when none are given), with permissive CORS and the
 * control API under `/__mock/` (reset, fixtures, state, request journal,
 * faults; described at `/__mock/openapi.json`). Prints its address and
 * tokens at start, with `--verbose` one line per request; stops on SIGINT
 * and SIGTERM. `--version` prints the package's version.
 *
 * @module
 */
import "../server/_require_supported_runtime.ts";
import { readFileSync } from "node:fs";
import process from "node:process";
import { parseArgs } from "node:util";
import { demoFixtures } from "../src/store/demo_fixtures.ts";
import { type Fixtures, FixturesError } from "../src/store/fixtures.ts";
import { describeTokens, readFixturesFile } from "../server/_fixtures_file.ts";
import { pathnameOf } from "../src/router.ts";
import { runtimeName, serve } from "../server/_serve.ts";
import { DEFAULT_FIXTURES_LIMIT } from "./control_api.ts";
import { isDroppedConnection } from "./drop_connection.ts";
import { isLoopbackHost } from "./guard.ts";
import { DEFAULT_JOURNAL_LIMIT } from "./journal.ts";
import { createMockServer } from "./mock_server.ts";

const USAGE = `Usage: callflow-api mock [options]
       callflow-api --version

Serves a mock of the API: the real handler over an in-memory store.

Options:
  --port <n>             Port to listen on (default 4010; 0 picks a free one)
  --host <name>          Interface to listen on (default 127.0.0.1). Another
                         than a loopback address also lifts the Host check
  --fixtures <file>      Fixtures file to seed from (default: the demo data)
  --journal-limit <n>    Requests the journal keeps (default ${DEFAULT_JOURNAL_LIMIT})
  --fixtures-limit <n>   Largest PUT /__mock/fixtures body in bytes
                         (default ${DEFAULT_FIXTURES_LIMIT})
  -v, --verbose          Print one line per request: method, path, status, ms
  -V, --version          Print the version
  -h, --help             Show this help

Control API (no token; JSON bodies; pages on other sites are refused):
  POST   /__mock/reset         Back to the fixtures; clears journal and faults
  PUT    /__mock/fixtures      Replace the whole state with a fixtures document
  GET    /__mock/state         The current state as a fixtures document
  GET    /__mock/requests      The requests answered, oldest first
  DELETE /__mock/requests      Forget them
  GET    /__mock/faults        The fault rules in force
  POST   /__mock/faults        Add one, e.g. {"operation": "testTrigger",
                               "status": 503, "times": 1}
  DELETE /__mock/faults[/id]   Remove all, or one
  GET    /__mock/openapi.json  The control API's OpenAPI document
Any API request may send Prefer: code=<status> for a status its operation
defines in /openapi.json.`;

/** A mistake on the command line: usage is printed, exit code 2. */
class UsageError extends Error {}

interface Settings {
  port: number;
  hostname: string;
  fixturesPath: string | undefined;
  verbose: boolean;
  journalLimit: number;
  fixturesLimit: number;
}

/** The package's version, from the package.json next to the sources or dist. */
function packageVersion(): string {
  for (const path of ["../package.json", "../../package.json"]) {
    try {
      const manifest = JSON.parse(
        readFileSync(new URL(path, import.meta.url), "utf8"),
      ) as { name?: string; version?: string };
      if (manifest.name === "@callflow/api") return manifest.version ?? "";
    } catch {
      // Not there: try the next place.
    }
  }
  return "unknown";
}

function positiveInteger(name: string, value: string): number {
  const number = Number(value);
  if (!/^\d+$/.test(value) || number < 1 || !Number.isSafeInteger(number)) {
    throw new UsageError(
      `Invalid --${name} "${value}": expected a positive integer`,
    );
  }
  return number;
}

function parseSettings(args: string[]): Settings | "help" | "version" {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        port: { type: "string", default: "4010" },
        host: { type: "string", default: "127.0.0.1" },
        fixtures: { type: "string" },
        "journal-limit": {
          type: "string",
          default: `${DEFAULT_JOURNAL_LIMIT}`,
        },
        "fixtures-limit": {
          type: "string",
          default: `${DEFAULT_FIXTURES_LIMIT}`,
        },
        verbose: { type: "boolean", short: "v", default: false },
        version: { type: "boolean", short: "V", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return "help";
  if (values.version) return "version";
  const [command, ...extra] = positionals;
  if (command !== "mock") {
    throw new UsageError(
      command === undefined
        ? "Missing command: use `mock` or `serve`"
        : `Unknown command "${command}": use \`mock\` or \`serve\``,
    );
  }
  if (extra.length > 0) {
    throw new UsageError(`Unexpected argument "${extra[0]}"`);
  }
  const port = Number(values.port);
  if (!/^\d+$/.test(values.port) || port > 65535) {
    throw new UsageError(
      `Invalid --port "${values.port}": expected 0 to 65535`,
    );
  }
  return {
    port,
    hostname: values.host,
    fixturesPath: values.fixtures,
    verbose: values.verbose,
    journalLimit: positiveInteger("journal-limit", values["journal-limit"]),
    fixturesLimit: positiveInteger("fixtures-limit", values["fixtures-limit"]),
  };
}

function loadFixtures(path: string | undefined): Promise<Fixtures> {
  return path === undefined
    ? Promise.resolve(demoFixtures)
    : readFixturesFile(path);
}

function isAddressInUse(error: unknown): boolean {
  const { code, name, message } = (error ?? {}) as {
    code?: unknown;
    name?: unknown;
    message?: unknown;
  };
  return code === "EADDRINUSE" || name === "AddrInUse" ||
    (typeof message === "string" && /address already in use/i.test(message));
}

async function main(args: string[]): Promise<number> {
  let settings: Settings | "help" | "version";
  try {
    settings = parseSettings(args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`${error.message}\n\n${USAGE}`);
    return 2;
  }
  if (settings === "help") {
    console.log(USAGE);
    return 0;
  }
  if (settings === "version") {
    console.log(packageVersion());
    return 0;
  }
  const { port, hostname, fixturesPath, verbose } = settings;

  let mock;
  try {
    mock = createMockServer({
      fixtures: await loadFixtures(fixturesPath),
      journalLimit: settings.journalLimit,
      fixturesLimit: settings.fixturesLimit,
      // Bound to another interface on purpose: other names reach it.
      allowAnyHost: !isLoopbackHost(hostname) && hostname !== "::1",
    });
  } catch (error) {
    if (!(error instanceof FixturesError)) throw error;
    // A problem inside the file names its path there: say which file too.
    const where = error.path === fixturesPath ? "" : ` (in ${fixturesPath})`;
    console.error(`${error.message}${where}`);
    return 1;
  }

  // Say when the control API changes the state: the tokens may be new.
  const handler = async (request: Request, env?: unknown) => {
    const started = verbose ? performance.now() : 0;
    const response = await mock.fetch(request, env);
    if (verbose) {
      const status = isDroppedConnection(response)
        ? "dropped"
        : response.status;
      console.log(
        `${request.method} ${pathnameOf(request.url)} ${status} ${
          Math.round(performance.now() - started)
        }ms`,
      );
    }
    if (response.status !== 204) return response;
    const pathname = pathnameOf(request.url);
    if (pathname === "/__mock/reset") {
      console.log("Reset: back to the fixtures");
    } else if (pathname === "/__mock/fixtures") {
      console.log(
        `Fixtures replaced. Tokens (token, role, project):\n${
          describeTokens(mock.fixtures)
        }`,
      );
    }
    return response;
  };

  let server;
  try {
    server = await serve(handler, { port, hostname });
  } catch (error) {
    if (!isAddressInUse(error)) throw error;
    console.error(
      `Cannot start the mock server: port ${port} on ${hostname} is already in use (pick another with --port)`,
    );
    return 1;
  }

  const source = fixturesPath === undefined
    ? "demo fixtures"
    : `fixtures ${fixturesPath}`;
  const tokens = mock.fixtures.tokens.length > 0
    ? describeTokens(mock.fixtures)
    : "  (none: add some to the fixtures' tokens list)";
  console.log(
    [
      `Mock API listening on ${server.url} (${runtimeName()}, ${source})`,
      `Tokens (token, role, project):`,
      tokens,
      `Control API: ${server.url}/__mock/ (reset, fixtures, state, requests, faults; see ${server.url}/__mock/openapi.json)`,
      `CORS: any origin for the API; the control API only for pages on localhost. Stop with Ctrl+C.`,
    ].join("\n"),
  );

  const running = server;
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      console.log(`${signal}: shutting down`);
      running.close().then(resolve, resolve);
    };
    process.once("SIGINT", () => stop("SIGINT"));
    process.once("SIGTERM", () => stop("SIGTERM"));
  });
  return 0;
}

// `serve` runs the real API (server/_serve_command.ts), loaded only when asked.
const run = process.argv[2] === "serve"
  ? import("../server/_serve_command.ts").then(({ serveCommand }) =>
    serveCommand(process.argv.slice(3))
  )
  : main(process.argv.slice(2));
run.then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error("Cannot run the mock server:", error);
    process.exit(1);
  },
);
