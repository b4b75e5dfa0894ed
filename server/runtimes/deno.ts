/**
 * Serving the handler with `Deno.serve` (Deno, Deno Deploy).
 *
 * @module
 */
import type { Context, Middleware } from "../../src/http/mod.ts";
import { countingStep, type Drain } from "./drain.ts";
import {
  type RunningServer,
  type ServedHandler,
  type ServeOptions,
  serverUrl,
} from "./server.ts";

/** What `Deno.serve` hands a handler beside the request. */
export interface DenoServeInfo {
  /**
   * Settles once the response, body included, is sent or dropped (Deno
   * 2.x; absent on some hosts).
   */
  completed?: Promise<void>;
}

/** A handler as `Deno.serve` and `deno serve` call it. */
type DenoHandler = (
  request: Request,
  info?: DenoServeInfo,
) => Promise<Response>;

/** The part of Deno's API this adapter uses. */
interface DenoRuntime {
  serve(
    options: {
      port: number;
      hostname: string;
      onListen: (address: { hostname: string; port: number }) => void;
    },
    handler: DenoHandler,
  ): { shutdown(): Promise<void> };
}

/**
 * The draining step of a server on `Deno.serve` (see `drainingStep`): it
 * counts each request in `drain` until its response is over, and once the
 * drain has begun asks each client to close its connection; on its way back
 * it also closes the connection an answer says to close, as
 * {@linkcode denoClosingConnection} does (one step fewer a request). A
 * response under `Deno.serve` is over, for the drain: an answer the context
 * built from a whole body (nearly all of them) once it is answered, as on
 * Bun, since Deno hands it to the socket at once and its `shutdown()` still
 * waits for it; any other (an export's stream, a body cut to close the
 * connection) when `info.completed` settles: the body sent or dropped (Deno
 * 2.x); on hosts without it (older Deno), when it is answered. Reading
 * `info.completed` makes Deno build a promise and settle it after sending,
 * about 1 µs a request (a tenth of a bare answer's CPU): only streams wait
 * for it. A whole answer costs it one callback, and no function to call at
 * its end.
 *
 * @param drain The server's count (see `shutDown`).
 * @returns The step.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { compose, Context, type Middleware } from "../../src/http/mod.ts";
 * import { denoDrainingStep } from "./deno.ts";
 * import { Drain } from "./drain.ts";
 *
 * const drain = new Drain();
 * const { promise: completed, resolve: sent } = Promise.withResolvers<void>();
 * const streamed: Middleware = () => Promise.resolve(new Response("a stream"));
 * const run = compose(
 *   [denoDrainingStep(drain), streamed],
 *   (context) => context.empty(500),
 * );
 * await run(new Context(new Request("http://x/"), { completed }));
 * assert.equal(drain.inFlight, 1); // until Deno has sent it
 * sent();
 * await completed;
 * await Promise.resolve();
 * assert.equal(drain.inFlight, 0);
 *
 * drain.begin();
 * const whole: Middleware = (context) => Promise.resolve(context.json({}));
 * const answer = compose(
 *   [denoDrainingStep(drain), whole],
 *   (context) => context.empty(500),
 * );
 * const response = await answer(new Context(new Request("http://x/"), { completed }));
 * assert.equal(response.headers.get("connection"), "close");
 * assert.equal(drain.inFlight, 0); // over once answered
 * ```
 */
export function denoDrainingStep(drain: Drain): Middleware {
  return countingStep(drain, denoDrained);
}

/** The answer of {@linkcode denoDrainingStep}, its end noted in `drain`. */
function denoDrained(
  drain: Drain,
  context: Context,
  response: Response,
): Response {
  const answer = drain.respond(denoAnswer(context, response));
  const info = context.runtimeArgument as DenoServeInfo | undefined;
  if (context.built?.response === answer || info?.completed === undefined) {
    drain.leave();
  } else {
    const done = drain.leaver();
    info.completed.then(done, done);
  }
  return answer;
}

/**
 * How much of a request body Deno may read after a `Connection: close`
 * answer rather than close: 2 MiB, twice the largest body the API takes.
 * Below it, Deno reads the rest and the client reads the answer whole.
 */
export const DENO_DRAINED_BODY_BYTES = 2 * 1024 * 1024;

/**
 * The response as Deno must send it to close its connection when it says
 * `Connection: close` (a body refused with 413, or left unread before a
 * 401) and the request's body is declared larger than
 * {@linkcode DENO_DRAINED_BODY_BYTES} or is of unknown length (chunked):
 * Deno's HTTP/1.1 server reads whatever is left of the request body, however
 * large, before it closes, and cannot close a connection from JavaScript. A
 * response body that fails does: its bytes are sent, chunked, and then the
 * connection is closed without the last, empty chunk, so the client reads
 * the status, the headers and the JSON, then an early end. Deno prints the
 * failure on stderr, one line. Upstream:
 * https://github.com/denoland/deno/issues/36657 (the HTTP/1.1 path of
 * Deno 2.8.3 and later).
 *
 * @param response The handler's response.
 * @param request The request it answers.
 * @returns It, or a copy whose body ends by failing.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { closingConnection } from "./deno.ts";
 *
 * const refused = () =>
 *   new Response("{}", { status: 413, headers: { connection: "close" } });
 * const declared = (length: number) =>
 *   new Request("http://x/", { headers: { "content-length": `${length}` } });
 * const kept = refused();
 * assert.equal(closingConnection(kept, declared(100_000)), kept);
 * const cut = closingConnection(refused(), declared(20_000_000));
 * await assert.rejects(cut.text());
 * ```
 */
export function closingConnection(
  response: Response,
  request: Request,
): Response {
  const declared = request.headers.get("content-length");
  if (
    response.headers.get("connection") !== "close" || !response.body ||
    (declared !== null && Number(declared) <= DENO_DRAINED_BODY_BYTES)
  ) {
    return response;
  }
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (!done) return controller.enqueue(value);
      controller.error(
        `Connection closed after a ${response.status}: the rest of the request body was not read`,
      );
    },
    cancel: (reason) => reader.cancel(reason),
  });
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers,
  });
}

/**
 * The pipeline step that makes Deno close a connection its answer says to
 * close (see {@linkcode closingConnection}). After the draining step in a
 * server's list: a drain's `Connection: close`, added on the way back, asks
 * the client not to reuse the connection and must not cut the body.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Context } from "../../src/http/mod.ts";
 * import { denoClosingConnection } from "./deno.ts";
 *
 * const context = new Context(
 *   new Request("http://x/", { method: "POST", body: "{}" }),
 * );
 * const response = await denoClosingConnection(context, () =>
 *   Promise.resolve(
 *     new Response("{}", { status: 413, headers: { connection: "close" } }),
 *   ));
 * await assert.rejects(response.text()); // chunked: its length unknown
 * ```
 *
 * An answer the context built from a header record without `Connection`
 * (nearly all of them) passes without a look at `response.headers`: on
 * Deno, reading them drops the native response built with the `Response`
 * (most of its cost) and sends it the slow way.
 */
export const denoClosingConnection: Middleware = (context, next) =>
  next().then((response) => denoAnswer(context, response));

/**
 * What {@linkcode denoClosingConnection} makes of an answer, for a step that
 * does it on its way back beside its own work ({@linkcode denoDrainingStep},
 * one step fewer a request).
 *
 * @param context The request's context.
 * @param response The answer of the steps after it.
 * @returns The answer, or a copy whose body ends by failing.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Context } from "../../src/http/mod.ts";
 * import { denoAnswer } from "./deno.ts";
 *
 * const context = new Context(new Request("http://x/"));
 * const answer = context.json({ ok: true });
 * assert.equal(denoAnswer(context, answer), answer);
 * ```
 */
export function denoAnswer(context: Context, response: Response): Response {
  const built = context.built;
  return built?.response === response && !namesConnection(built.headers)
    ? response
    : closingConnection(response, context.request);
}

/** Whether a header record has a `Connection`, in any case. */
function namesConnection(headers: Readonly<Record<string, string>>): boolean {
  for (const name in headers) {
    if (name.length === 10 && name.toLowerCase() === "connection") return true;
  }
  return false;
}

/**
 * Serves the handler with `Deno.serve`; resolves once it listens.
 * `Deno.serve` has no deadline settings, so `timeouts` are ignored here: a
 * connection whose headers never end stays open until the client leaves,
 * and only the handler's own body deadline ends a body that never ends
 * (e.g. chunked framing Deno waits on forever), and the bulk export's own
 * stall deadline a response nobody reads. Upstream:
 * https://github.com/denoland/deno/issues/3515.
 *
 * @example
 * ```ts ignore
 * import { serveDeno } from "./deno.ts";
 *
 * const server = await serveDeno(handler, { port: 0, hostname: "127.0.0.1" });
 * await server.close();
 * ```
 */
export function serveDeno(
  handler: ServedHandler,
  { port, hostname }: ServeOptions,
): Promise<RunningServer> {
  const deno = (globalThis as unknown as { Deno: DenoRuntime }).Deno;
  return new Promise((resolve) => {
    const server = deno.serve({
      port,
      hostname,
      onListen: (address) => {
        resolve({
          url: serverUrl(address.hostname, address.port),
          port: address.port,
          close: () => server.shutdown(),
          // Deno cannot close a connection from JavaScript: exiting does.
          cut: () => {},
        });
      },
    }, handler);
  });
}
