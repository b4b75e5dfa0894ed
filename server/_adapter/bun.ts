/**
 * Serving the handler with `Bun.serve`.
 *
 * @module
 */
import type { Handler } from "../../src/handler.ts";
import { bodyLengthOf } from "../../src/responses.ts";
import {
  type RunningServer,
  type ServeOptions,
  serverUrl,
  serveTimeouts,
} from "./server.ts";

/** The part of Bun's API this adapter uses. */
interface BunRuntime {
  serve(options: {
    port: number;
    hostname: string;
    fetch: (request: Request, server: BunServer) => Promise<Response>;
    idleTimeout?: number;
  }): BunServer;
}

interface BunServer {
  port: number;
  hostname: string;
  stop(force?: boolean): Promise<void>;
  /** Sets one request's idle timeout, in seconds (0: none). */
  timeout(request: Request, seconds: number): void;
}

/**
 * Serves the handler with `Bun.serve`, with `idleTimeout` set to
 * `idleSeconds`: Bun closes a keep-alive connection idle that long, and a
 * request whose body takes that long (its timer does not restart on body
 * bytes). Bun has no header deadline to set, but closes a connection
 * whose headers are incomplete after about 10 s, stalled or trickled. The
 * bulk export's ZIP gets no idle timeout, so a slow reader is not cut off;
 * Bun keeps that per-request setting for the rest of the connection.
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
  { port, hostname, timeouts }: ServeOptions,
): Promise<RunningServer> {
  const bun = (globalThis as unknown as { Bun: BunRuntime }).Bun;
  const { idleSeconds } = serveTimeouts(timeouts);
  const server = bun.serve({
    port,
    hostname,
    idleTimeout: Math.min(Math.max(Math.round(idleSeconds), 0), 255),
    fetch: async (request, self) => {
      const response = await handler(request);
      // A slow client reading a large ZIP must not be cut off (Bun counts a
      // client that reads nothing for a while as idle). Only a streamed body
      // (one of no known length) can be one: a JSON answer's headers are
      // never read here.
      if (
        bodyLengthOf(response) === undefined &&
        response.headers.get("content-type") === "application/zip"
      ) {
        self.timeout(request, 0);
      }
      return response;
    },
  });
  return Promise.resolve({
    url: serverUrl(server.hostname, server.port),
    port: server.port,
    close: () => server.stop(),
  });
}
