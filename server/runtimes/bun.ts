/**
 * Serving the handler with `Bun.serve`.
 *
 * @module
 */
import type { Context, Middleware, WatchedBody } from "../../src/http/mod.ts";
import { countingStep, type Drain } from "./drain.ts";
import {
  type RunningServer,
  type ServedHandler,
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

/** The part of Bun's server this adapter uses. */
export interface BunServer {
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
  handler: ServedHandler,
  { port, hostname, timeouts }: ServeOptions,
): Promise<RunningServer> {
  const bun = (globalThis as unknown as { Bun: BunRuntime }).Bun;
  const { idleSeconds } = serveTimeouts(timeouts);
  const server = bun.serve({
    port,
    hostname,
    idleTimeout: Math.min(Math.max(Math.round(idleSeconds), 0), 255),
    fetch: handler,
  });
  return Promise.resolve({
    url: serverUrl(server.hostname, server.port),
    port: server.port,
    close: () => server.stop(),
    cut: () => void server.stop(true),
  });
}

/**
 * The draining step of a server on `Bun.serve` (see `drainingStep`): it
 * counts each request in `drain` until its response is over, and once the
 * drain has begun asks each client to close its connection. A response
 * under `Bun.serve` is over once answered, or, for a streamed body (the
 * bulk export), once the body is over or its client gone (the request's
 * signal): Bun tells nothing of one response. Its server's `stop()` waits
 * for a body still streaming, but not for the tail Bun still holds once the
 * body is over (at most about one chunk, when the client reads more slowly
 * than the server writes): an exit right then loses it. It keeps Bun's idle
 * timeout off a streamed body as {@linkcode bunExportTimeouts} does, so that
 * a server with a draining step needs no step of its own. A whole answer
 * costs it one callback, and no function to call at its end.
 *
 * @param drain The server's count (see `shutDown`).
 * @returns The step.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { compose, Context, WatchedBody } from "../../src/http/mod.ts";
 * import { bunDrainingStep } from "./bun.ts";
 * import { Drain } from "./drain.ts";
 *
 * const drain = new Drain();
 * const zip = new WatchedBody(new ReadableStream({ pull: (c) => c.close() }), 1000);
 * const run = compose(
 *   [bunDrainingStep(drain), (context) =>
 *     Promise.resolve(context.stream(zip, { "content-type": "application/zip" }))],
 *   (context) => context.empty(500),
 * );
 * const context = new Context(new Request("http://x/"));
 * await run(context);
 * assert.equal(drain.inFlight, 1); // its body not read yet
 * await context.watchedBody!.readable.getReader().read();
 * assert.equal(drain.inFlight, 0);
 * ```
 */
export function bunDrainingStep(drain: Drain): Middleware {
  return countingStep(drain, bunAnswered);
}

/** The answer of {@linkcode bunDrainingStep}, its end noted in `drain`. */
function bunAnswered(
  drain: Drain,
  context: Context,
  response: Response,
): Response {
  const answer = drain.respond(response);
  const body = context.watchedBody;
  if (body === undefined) {
    drain.leave();
    return answer;
  }
  keepIdleTimeoutOff(context, body);
  const done = drain.leaver();
  body.onEnd(done);
  // A client gone before Bun pulled a byte: the body may never end.
  context.request.signal.addEventListener("abort", done, { once: true });
  return answer;
}

/**
 * The pipeline step that keeps Bun's idle timeout off a streamed export: a
 * slow client reading a large ZIP must not be cut off (Bun counts a client
 * that reads nothing for a while as idle), since a streamed body has its own
 * stall deadline (src/http/body_watch.ts). Once that deadline cuts the body,
 * an idle timeout of a second closes the connection, which Bun would
 * otherwise keep, its write blocked. Needs Bun's server beside the request
 * (`context.runtimeArgument`); elsewhere it does nothing.
 *
 * @example
 * ```ts ignore
 * import { createHandler, MemoryStore } from "@callflow/api";
 * import { bunExportTimeouts } from "./bun.ts";
 *
 * Bun.serve({
 *   fetch: createHandler({
 *     store: new MemoryStore(),
 *     middleware: [bunExportTimeouts],
 *   }),
 * });
 * ```
 */
export const bunExportTimeouts: Middleware = async (context, next) => {
  const response = await next();
  const body = context.watchedBody;
  if (body !== undefined) keepIdleTimeoutOff(context, body);
  return response;
};

/** Bun's idle timeout off a streamed body, a second once it was cut. */
function keepIdleTimeoutOff(context: Context, body: WatchedBody): void {
  const server = context.runtimeArgument as BunServer | undefined;
  if (typeof server?.timeout !== "function") return;
  const { request } = context;
  server.timeout(request, 0);
  body.onEnd((_bytes, aborted) => {
    if (aborted === "client") server.timeout(request, 1);
  });
}
