/**
 * Running the API as a process: open the app from the settings, listen on
 * the runtime's server, print the address and how many tokens
 * it loaded (never a token but the public demo ones), write the access log,
 * and stop gracefully on SIGINT or SIGTERM (see `shutDown`). Used by
 * `npm start` (server/main.ts), `callflow-api serve` and `node server/mod.ts`.
 *
 * @module
 */
import { announceTokens } from "./files/fixtures_file.ts";
import { openServerApp, type ServerApp } from "./app.ts";
import type { ServerSettings } from "./settings/settings.ts";
import { runtimeName, serve } from "./runtimes/mod.ts";
import { shutDownOnStopSignal } from "./runtimes/shutdown.ts";
import { flushCompileCacheSoon } from "./runtimes/compile_cache.ts";

/**
 * Serves until SIGINT or SIGTERM, then shuts down gracefully: `/readyz`
 * answers 503, requests in flight finish, the server stops listening, the
 * store is closed, and it resolves 0 within `SHUTDOWN_TIMEOUT`. A start-up
 * failure (bad fixtures, database unreachable, port taken) rejects with a
 * message fit for the user.
 *
 * @param settings What to serve, and where.
 * @returns The exit code.
 *
 * @example
 * ```ts ignore
 * import process from "node:process";
 * import { runServer } from "./run_server.ts";
 * import { readServerSettings } from "./settings/settings.ts";
 *
 * process.exitCode = await runServer(readServerSettings(process.env));
 * ```
 */
export async function runServer(settings: ServerSettings): Promise<number> {
  return await serveApp(await openServerApp(settings), settings);
}

/**
 * Serves an app already opened, as {@linkcode runServer} does: listens,
 * prints the address and the token count, and resolves 0 once shut down after SIGINT
 * or SIGTERM.
 *
 * @param app The app (see `openServerApp`); closed on shutdown or failure.
 * @param settings Where to listen, the log settings to announce, and the
 * shutdown deadline.
 * @returns The exit code.
 *
 * @example
 * ```ts ignore
 * import { serveApp } from "./run_server.ts";
 * import { openServerApp } from "./app.ts";
 * import { readServerSettings } from "./settings/settings.ts";
 *
 * const settings = readServerSettings({ PORT: "0" });
 * await serveApp(await openServerApp(settings), settings);
 * ```
 */
export async function serveApp(
  app: ServerApp,
  settings: ServerSettings,
): Promise<number> {
  const { port, hostname } = settings;
  const server = await serve(app.handler, { port, hostname })
    .catch(async (error: unknown) => {
      await app.close();
      throw new Error(
        `Cannot listen on ${hostname}:${port}: ${(error as Error).message}`,
      );
    });

  flushCompileCacheSoon();
  console.log(
    `API listening on ${server.url} (${runtimeName()}, ${app.description})`,
  );
  console.log(
    app.fixtures === undefined
      ? "Tokens: those the database holds (FIXTURES names a file to seed)"
      : announceTokens(app.fixtures),
  );
  console.log(
    `Health: ${server.url}/healthz, ready: ${server.url}/readyz. Access log: ${settings.logFormat} lines at level ${settings.logLevel} and above.`,
  );

  await shutDownOnStopSignal(server, app, settings.shutdownTimeout);
  return 0;
}
