/**
 * The `./server` entry's server (server/mod.ts): the API built from the
 * environment, served as `deno serve`, Deno Deploy, Bun and Node serve that
 * entry. server/mod.ts runs this module, or under Deno its build
 * (`dist/deno_serve/`, build/deno_serve_build.ts) while that is fresh.
 *
 * @module
 */
import "./require_supported_runtime.ts";
import process from "node:process";
import type { BunServer } from "./bun.ts";
import { openServerApp } from "../app.ts";
import { readServerSettings } from "../settings/settings.ts";
import { stdoutIsTerminal } from "../observability/log_lines.ts";
import { runtimeName } from "./mod.ts";
import { shutDownOnStopSignal, type StoppableServer } from "./shutdown.ts";

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

/**
 * Builds the API from the environment and serves it as its runtime needs:
 * under Node, when `mainUrl` is the program Node runs (`node server.js`),
 * it listens through the Node adapter and returns only at exit; otherwise it
 * returns the default export `deno serve` and Bun serve, and shuts down on
 * SIGTERM or SIGINT.
 *
 * @param mainUrl The URL of the module Node may run as its program (the
 * `./server` entry's).
 * @returns What the entry exports by default.
 *
 * @example
 * ```ts ignore
 * import { openEntry } from "./deploy_entry.ts";
 *
 * export default await openEntry(import.meta.url);
 * ```
 */
export async function openEntry(mainUrl: string): Promise<ServerEntry> {
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

  // Deno and Bun serve the default export themselves; Node needs the adapter.
  if (await runByNode(mainUrl)) {
    const { serveApp } = await import("../run_server.ts");
    process.exit(await serveApp(app, settings));
  }
  // Not awaited: deno serve and Bun read the default export once the entry
  // module is evaluated. stdout is the access log's.
  shutDownOnStopSignal(
    runtimeServer,
    app,
    settings.shutdownTimeout,
    console.error,
  ).then(() => process.exit(0));
  return entry;
}

/**
 * Whether Node runs `mainUrl` as its program (`node server.js`). Its
 * modules are loaded on Node only: under `deno serve`, `node:fs` and
 * `node:url` are Node polyfills compiled at start.
 */
async function runByNode(mainUrl: string): Promise<boolean> {
  if (runtimeName() !== "node" || process.argv[1] === undefined) return false;
  const { realpathSync } = await import("node:fs");
  const { fileURLToPath } = await import("node:url");
  try {
    return realpathSync(process.argv[1]) ===
      realpathSync(fileURLToPath(mainUrl));
  } catch {
    return false;
  }
}
