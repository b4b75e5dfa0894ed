/**
 * Serving the handler with `Bun.serve`.
 *
 * @module
 */
import type { Handler } from "../handler.ts";
import { type RunningServer, type ServeOptions, serverUrl } from "./server.ts";

/** The part of Bun's API this adapter uses. */
interface BunRuntime {
  serve(options: {
    port: number;
    hostname: string;
    fetch: Handler;
    idleTimeout?: number;
  }): { port: number; hostname: string; stop(force?: boolean): Promise<void> };
}

/**
 * Serves the handler with `Bun.serve`.
 *
 * @example
 * ```ts ignore
 * import { serveBun } from "./bun.ts";
 *
 * const server = await serveBun(handler, { port: 0, hostname: "127.0.0.1" });
 * await server.close();
 * ```
 */
export function serveBun(
  handler: Handler,
  { port, hostname }: ServeOptions,
): Promise<RunningServer> {
  const bun = (globalThis as unknown as { Bun: BunRuntime }).Bun;
  // idleTimeout 0: a slow client reading a large ZIP must not be cut off.
  const server = bun.serve({ port, hostname, fetch: handler, idleTimeout: 0 });
  return Promise.resolve({
    url: serverUrl(server.hostname, server.port),
    port: server.port,
    close: () => server.stop(),
  });
}
