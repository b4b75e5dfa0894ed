#!/usr/bin/env node
/**
 * The standalone mock server's command, the package's `bin`:
 *
 * ```sh
 * npx @callflow/api mock --port 4010 --fixtures fixtures.json
 * deno run --allow-net --allow-read npm:@callflow/api mock --port 4010
 * bunx @callflow/api mock --port 4010
 * ```
 *
 * Serves the real API over an in-memory store seeded with the fixtures (the
 * built-in demo set when none are given), with permissive CORS and the
 * control API (`POST /__mock/reset`, `PUT /__mock/fixtures`). Prints its
 * address and tokens at start; stops on SIGINT and SIGTERM.
 *
 * @module
 */
import process from "node:process";
import { parseArgs } from "node:util";
import { demoFixtures } from "../src/demo_fixtures.ts";
import { type Fixtures, FixturesError } from "../src/fixtures.ts";
import { describeTokens, readFixturesFile } from "../src/fixtures_file.ts";
import { runtimeName, serve } from "../src/serve.ts";
import { createMockServer } from "./mock_server.ts";

const USAGE = `Usage: callflow-api mock [options]

Serves a mock of the API: the real handler over an in-memory store.

Options:
  --port <n>         Port to listen on (default 4010; 0 picks a free one)
  --host <name>      Interface to listen on (default 127.0.0.1)
  --fixtures <file>  Fixtures file to seed from (default: the demo data)
  -h, --help         Show this help

Control API (no token needed):
  POST /__mock/reset     Back to the fixtures
  PUT  /__mock/fixtures  Replace the whole state with a fixtures document`;

/** A mistake on the command line: usage is printed, exit code 2. */
class UsageError extends Error {}

interface Settings {
  port: number;
  hostname: string;
  fixturesPath: string | undefined;
}

function parseSettings(args: string[]): Settings | undefined {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        port: { type: "string", default: "4010" },
        host: { type: "string", default: "127.0.0.1" },
        fixtures: { type: "string" },
        help: { type: "boolean", short: "h", default: false },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return undefined;
  const [command, ...extra] = positionals;
  if (command !== "mock") {
    throw new UsageError(
      command === undefined
        ? "Missing command: use `mock`"
        : `Unknown command "${command}": use \`mock\``,
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
  return { port, hostname: values.host, fixturesPath: values.fixtures };
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
  let settings: Settings | undefined;
  try {
    settings = parseSettings(args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`${error.message}\n\n${USAGE}`);
    return 2;
  }
  if (settings === undefined) {
    console.log(USAGE);
    return 0;
  }
  const { port, hostname, fixturesPath } = settings;

  let mock;
  try {
    mock = createMockServer({ fixtures: await loadFixtures(fixturesPath) });
  } catch (error) {
    if (!(error instanceof FixturesError)) throw error;
    // A problem inside the file names its path there: say which file too.
    const where = error.path === fixturesPath ? "" : ` (in ${fixturesPath})`;
    console.error(`${error.message}${where}`);
    return 1;
  }

  // Say when the control API changes the state: the tokens may be new.
  const handler = async (request: Request) => {
    const response = await mock.fetch(request);
    if (response.status !== 204) return response;
    const { pathname } = new URL(request.url);
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
      `Control API: POST ${server.url}/__mock/reset, PUT ${server.url}/__mock/fixtures`,
      `CORS: any origin allowed. Stop with Ctrl+C.`,
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

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error("Cannot run the mock server:", error);
    process.exit(1);
  },
);
