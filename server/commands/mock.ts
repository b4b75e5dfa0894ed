/**
 * `callflow-api mock`: the standalone mock server, for tests in any
 * language.
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
 * address and how many tokens it loaded at start (the demo tokens
 * themselves, which are public), with `--verbose` one line per request; stops
 * on SIGINT and SIGTERM.
 *
 * @module
 */
import { FixturesError } from "../../src/store/mod.ts";
import { pathnameOf } from "../../src/http/mod.ts";
import { DEFAULT_FIXTURES_LIMIT } from "../../mock/control_api.ts";
import { isDroppedConnection } from "../../mock/drop_connection.ts";
import { isLoopbackHost } from "../../mock/guard.ts";
import { DEFAULT_JOURNAL_LIMIT } from "../../mock/journal.ts";
import { createMockServer } from "../../mock/mock_server.ts";
import { announceTokens } from "../files/fixtures_file.ts";
import {
  bodyFramingSteps,
  runtimeName,
  runtimeSteps,
  serve,
} from "../runtimes/mod.ts";
import { type Command, optionValue } from "./command_line.ts";
import { parsePort, parsePositiveInteger } from "../settings/settings.ts";
import { loadStartFixtures, startFixtures } from "../app.ts";
import { referencePage } from "../files/reference_page.ts";
import { onStopSignal } from "../runtimes/shutdown.ts";
import { flushCompileCacheSoon } from "../runtimes/compile_cache.ts";

/** The command's help text. */
export const MOCK_USAGE = `Usage: callflow-api mock [options]

Serves a mock of the API: the real handler over an in-memory store.

Options:
  --port <n>             Port to listen on (default 4010; 0 picks a free one)
  --host <name>          Interface to listen on (default 127.0.0.1). Another
                         than a loopback address lets the API (not the
                         control API) answer any Host
  --allowed-host <name>  A name the control API answers to beside localhost
                         and the bound address (repeatable), e.g. a
                         container's service name
  --fixtures <file>      Fixtures file to seed from (default, or demo: the
                         demo data)
  --journal-limit <n>    Requests the journal keeps (default ${DEFAULT_JOURNAL_LIMIT})
  --fixtures-limit <n>   Largest PUT /__mock/fixtures body in bytes
                         (default ${DEFAULT_FIXTURES_LIMIT})
  --no-docs              Serve no reference page at /docs (the JSON only)
  --no-ui                Serve no live page at /__mock/ (the control API
                         alone)
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
  GET    /__mock/journal.har   The requests answered, as a HAR 1.2 file
  GET    /__mock/              The live page: journal, state, faults
  GET    /__mock/openapi.json  The control API's OpenAPI document
Any API request may send Prefer: code=<status> for a status its operation
defines in /openapi.json.`;

interface Settings {
  port: number;
  hostname: string;
  fixturesPath: string | undefined;
  allowedHosts: string[];
  verbose: boolean;
  docs: boolean;
  ui: boolean;
  journalLimit: number;
  fixturesLimit: number;
}

function mockSettings(values: Record<string, unknown>): Settings {
  return optionValue(() => ({
    port: parsePort(values.port as string, "--port")!,
    hostname: values.host as string,
    fixturesPath: values.fixtures as string | undefined,
    allowedHosts: (values["allowed-host"] as string[] | undefined) ?? [],
    verbose: values.verbose === true,
    docs: values["no-docs"] !== true,
    ui: values["no-ui"] !== true,
    journalLimit: parsePositiveInteger(
      values["journal-limit"] as string,
      "--journal-limit",
    ),
    fixturesLimit: parsePositiveInteger(
      values["fixtures-limit"] as string,
      "--fixtures-limit",
    ),
  }));
}

/** Addresses that bind every interface: no name a client sends. */
const WILDCARD_ADDRESSES: ReadonlySet<string> = new Set(["0.0.0.0", "::"]);

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
      middleware: [
        ...runtimeSteps(),
        ...bodyFramingSteps(),
        ...(settings.docs ? [referencePage()] : []),
      ],
      fixturesLimit: settings.fixturesLimit,
      ui: settings.ui,
      // Bound to another interface on purpose: the API answers other
      // names; the control API only its own and those it was told.
      allowAnyHost: !isLoopbackHost(hostname) && hostname !== "::1",
      allowedHosts: [
        ...(WILDCARD_ADDRESSES.has(hostname)
          ? []
          : [hostname.includes(":") ? `[${hostname}]` : hostname]),
        ...settings.allowedHosts,
      ],
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
      console.log(`Fixtures replaced. ${announceTokens(mock.fixtures)}`);
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

  flushCompileCacheSoon();
  const source = startFixtures(fixturesPath, "memory").description;
  const tokens = mock.fixtures.tokens.length > 0
    ? announceTokens(mock.fixtures)
    : "Tokens: none (add some to the fixtures' tokens list)";
  console.log(
    [
      `Mock API listening on ${server.url} (${runtimeName()}, ${source})`,
      tokens,
      `Control API: ${server.url}/__mock/ (reset, fixtures, state, requests, faults, journal.har; see ${server.url}/__mock/openapi.json)`,
      ...(settings.ui
        ? [`Live page: ${server.url}/__mock/ (open it in a browser)`]
        : []),
      `CORS: any origin for the API; the control API only for pages on localhost${
        settings.allowedHosts.length === 0
          ? ""
          : ` or ${settings.allowedHosts.join(", ")}`
      }. Stop with Ctrl+C.`,
    ].join("\n"),
  );

  const running = server;
  await new Promise<void>((resolve) => {
    onStopSignal((signal) => {
      console.log(`${signal}: shutting down`);
      running.close().then(resolve, resolve);
    }, { repeatKills: true });
  });
  return 0;
}

/**
 * `callflow-api mock`: run it with `runCommand(args, mockCommand)`. Exit
 * code 0 after a stop, 1 when it cannot start, 2 for a usage error.
 */
export const mockCommand: Command = {
  usage: MOCK_USAGE,
  options: {
    port: { type: "string", default: "4010" },
    host: { type: "string", default: "127.0.0.1" },
    fixtures: { type: "string" },
    "allowed-host": { type: "string", multiple: true },
    "journal-limit": { type: "string", default: `${DEFAULT_JOURNAL_LIMIT}` },
    "fixtures-limit": { type: "string", default: `${DEFAULT_FIXTURES_LIMIT}` },
    verbose: { type: "boolean", short: "v", default: false },
    "no-docs": { type: "boolean", default: false },
    "no-ui": { type: "boolean", default: false },
  },
  run: (values) => serveMock(mockSettings(values)),
};
