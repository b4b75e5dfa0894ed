/**
 * The deploy entry, `@callflow/api/server`: a module whose default export is
 * `{ fetch }`, the shape `deno serve`, Deno Deploy and `bun <file>` serve by
 * themselves. It is built from the environment on import, with the settings
 * of `npm start`: `DATABASE_URL` selects Postgres (migrated on start, seeded
 * only from `FIXTURES`), otherwise a memory store seeded from `FIXTURES` or
 * the demo data; the
 * access log goes to stdout (`LOG_LEVEL`, `LOG_FORMAT`).
 *
 * ```sh
 * deno serve --allow-net --allow-env --allow-read --port 8787 npm:@callflow/api/server
 * bun node_modules/@callflow/api/dist/server/mod.js      # PORT, HOST as usual
 * node node_modules/@callflow/api/dist/server/mod.js     # @hono/node-server
 * ```
 *
 * Run directly by Node (`node server.js`), it listens by itself through the
 * Node adapter, as `callflow-api serve` does.
 *
 * A memory store lives in one process, worker or isolate: `deno serve
 * --parallel` gives each worker its own. Postgres is the shared store.
 *
 * On SIGTERM or SIGINT it shuts down gracefully under every runtime, as
 * `npm start` does: `/readyz` answers 503, requests in flight finish, then
 * the process exits 0, within `SHUTDOWN_TIMEOUT` seconds.
 *
 * @example Serving it from your own module under Deno or Bun
 * ```ts ignore
 * export { default } from "@callflow/api/server";
 * ```
 *
 * @module
 */
import "./runtimes/require_supported_runtime.ts";
import process from "node:process";
import type { BunServer } from "./runtimes/bun.ts";
import { openServerApp } from "./app.ts";
import { readServerSettings } from "./settings/settings.ts";
import { stdoutIsTerminal } from "./observability/log_lines.ts";
import { runtimeName } from "./runtimes/mod.ts";
import {
  shutDownOnStopSignal,
  type StoppableServer,
} from "./runtimes/shutdown.ts";

/** What `deno serve`, Deno Deploy and Bun read from the default export. */
export interface ServerEntry {
  /**
   * The API's handler; the second argument is what the runtime passes
   * (Deno's `info`, Bun's `server`), which its steps read to drain on
   * shutdown.
   */
  fetch(request: Request, runtimeArgument?: unknown): Promise<Response>;
  /** Bun: the port, from `PORT` (default 8787). `deno serve` uses `--port`. */
  port: number;
  /** Bun: the interface, from `HOST` (default 127.0.0.1). */
  hostname: string;
  /** Bun: no idle timeout, so a slow client can read a large export. */
  idleTimeout: number;
  /** `deno serve`: called once it listens. */
  onListen(address: { hostname: string; port: number }): void;
}

const settings = readServerSettings(process.env, stdoutIsTerminal());
const app = await openServerApp(settings);
console.error(`API ready (${runtimeName()}, ${app.description})`);

/** The server Bun runs for the default export, seen with its requests. */
let bunServer: BunServer | undefined;
/** deno serve's or Bun's server, as a shutdown drives it. */
const runtimeServer: StoppableServer = {
  // deno serve's listener cannot be closed from JavaScript: exiting does.
  close: async () => await bunServer?.stop(),
  cut: () => void bunServer?.stop(true),
};

/** The API, served from the environment's settings. */
const entry: ServerEntry = {
  fetch: runtimeName() === "bun"
    ? (request, server) => {
      bunServer = server as BunServer;
      return app.handler(request, server);
    }
    : app.handler,
  port: settings.port,
  hostname: settings.hostname,
  idleTimeout: 0,
  onListen({ hostname, port }) {
    const host = hostname.includes(":") ? `[${hostname}]` : hostname;
    console.error(`API listening on http://${host}:${port}`);
  },
};

export default entry;

/**
 * Whether Node runs this module as its program (`node server.js`). Its
 * modules are loaded on Node only: under `deno serve`, `node:fs` and
 * `node:url` are Node polyfills compiled at start (30 ms of CPU cold).
 */
async function runByNode(): Promise<boolean> {
  if (runtimeName() !== "node" || process.argv[1] === undefined) return false;
  const { realpathSync } = await import("node:fs");
  const { fileURLToPath } = await import("node:url");
  try {
    return realpathSync(process.argv[1]) ===
      realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

// Deno and Bun serve the default export themselves; Node needs the adapter.
if (await runByNode()) {
  const { serveApp } = await import("./run_server.ts");
  process.exit(await serveApp(app, settings));
} else {
  // Not awaited: deno serve and Bun read the default export once this
  // module is evaluated. stdout is the access log's.
  shutDownOnStopSignal(
    runtimeServer,
    app,
    settings.shutdownTimeout,
    console.error,
  ).then(() => process.exit(0));
}
