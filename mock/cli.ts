#!/usr/bin/env node
/**
 * The package's `bin`, `callflow-api`, and its commands: `serve` (the real
 * API, server/_serve_command.ts), `migrate` (server/_migrate_command.ts) and
 * `mock`, the standalone mock server:
 *
 * ```sh
 * node_modules/.bin/callflow-api mock --port 4010 --fixtures fixtures.json
 * deno run --allow-net --allow-read npm:@callflow/api mock --port 4010
 * bunx --bun @callflow/api mock --port 4010
 * ```
 *
 * The mock serves the real API over an in-memory store seeded with the
 * fixtures (the built-in demo set when none are given), with permissive CORS
 * and the control API under `/__mock/` (reset, fixtures, state, request
 * journal, faults; described at `/__mock/openapi.json`). It prints its
 * address and tokens at start, with `--verbose` one line per request; stops
 * on SIGINT and SIGTERM. Every command takes `--help` and `--version` (the
 * package's version).
 *
 * @module
 */
import "../server/_require_supported_runtime.ts";
import process from "node:process";
import { FixturesError } from "../src/store/fixtures.ts";
import { describeTokens } from "../server/_fixtures_file.ts";
import { pathnameOf } from "../src/router.ts";
import { runtimeName, serve } from "../server/_serve.ts";
import {
  type Command,
  runCommand,
  USAGE_EXIT_CODE,
  UsageError,
  usageErrorText,
} from "../server/_command_line.ts";
import { parsePort } from "../server/_settings.ts";
import { loadStartFixtures, startFixtures } from "../server/_app.ts";
import { DEFAULT_FIXTURES_LIMIT } from "./control_api.ts";
import { isDroppedConnection } from "./drop_connection.ts";
import { isLoopbackHost } from "./guard.ts";
import { DEFAULT_JOURNAL_LIMIT } from "./journal.ts";
import { createMockServer } from "./mock_server.ts";

/** `callflow-api --help`: every command. */
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

const MOCK_USAGE = `Usage: callflow-api mock [options]

Serves a mock of the API: the real handler over an in-memory store.

Options:
  --port <n>             Port to listen on (default 4010; 0 picks a free one)
  --host <name>          Interface to listen on (default 127.0.0.1). Another
                         than a loopback address also lifts the Host check
  --fixtures <file>      Fixtures file to seed from (default, or demo: the
                         demo data)
  --journal-limit <n>    Requests the journal keeps (default ${DEFAULT_JOURNAL_LIMIT})
  --fixtures-limit <n>   Largest PUT /__mock/fixtures body in bytes
                         (default ${DEFAULT_FIXTURES_LIMIT})
  -v, --verbose          Print one line per request: method, path, status, ms
  -V, --version          Print the package's version
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

interface Settings {
  port: number;
  hostname: string;
  fixturesPath: string | undefined;
  verbose: boolean;
  journalLimit: number;
  fixturesLimit: number;
}

/** A positive integer option, worded as the settings word theirs. */
function positiveInteger(name: string, value: string): number {
  const number = Number(value);
  if (!/^\d+$/.test(value) || number < 1 || !Number.isSafeInteger(number)) {
    throw new UsageError(
      `--${name} must be a positive integer, got ${JSON.stringify(value)}`,
    );
  }
  return number;
}

function mockSettings(values: Record<string, unknown>): Settings {
  let port: number;
  try {
    port = parsePort(values.port as string, "--port")!;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  return {
    port,
    hostname: values.host as string,
    fixturesPath: values.fixtures as string | undefined,
    verbose: values.verbose === true,
    journalLimit: positiveInteger(
      "journal-limit",
      values["journal-limit"] as string,
    ),
    fixturesLimit: positiveInteger(
      "fixtures-limit",
      values["fixtures-limit"] as string,
    ),
  };
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

async function serveMock(settings: Settings): Promise<number> {
  const { port, hostname, fixturesPath, verbose } = settings;

  let mock;
  try {
    mock = createMockServer({
      fixtures: (await loadStartFixtures(fixturesPath, "memory")).fixtures!,
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

  const source = startFixtures(fixturesPath, "memory").description;
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

/** `callflow-api mock`. */
const mockCommand: Command = {
  usage: MOCK_USAGE,
  options: {
    port: { type: "string", default: "4010" },
    host: { type: "string", default: "127.0.0.1" },
    fixtures: { type: "string" },
    "journal-limit": { type: "string", default: `${DEFAULT_JOURNAL_LIMIT}` },
    "fixtures-limit": { type: "string", default: `${DEFAULT_FIXTURES_LIMIT}` },
    verbose: { type: "boolean", short: "v", default: false },
  },
  run: (values) => serveMock(mockSettings(values)),
};

/** `callflow-api` without a command: its help, its version, or a usage error. */
const topCommand: Command = {
  usage: USAGE,
  options: {},
  run: () => {
    throw new UsageError("Missing command: serve, migrate or mock");
  },
};

/** Runs the command `args` name; `serve` and `migrate` are loaded only then. */
async function main(args: string[]): Promise<number> {
  const [name, ...rest] = args;
  switch (name) {
    case "serve": {
      const { serveCommand } = await import("../server/_serve_command.ts");
      return await runCommand(rest, serveCommand);
    }
    case "migrate": {
      const { migrateCommand } = await import("../server/_migrate_command.ts");
      return await runCommand(rest, migrateCommand);
    }
    case "mock":
      return await runCommand(rest, mockCommand);
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

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error("callflow-api failed:", error);
    process.exit(1);
  },
);
