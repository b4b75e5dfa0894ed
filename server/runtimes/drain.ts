/**
 * What a graceful shutdown needs to know of a server, whatever the runtime:
 * how many responses are still going, when the last request arrived, and
 * whether to ask clients to close their connections. The pipeline's
 * {@linkcode drainingStep} counts them; the runtime tells it when a response
 * is over ({@linkcode ResponseEnd}).
 *
 * @module
 */
import type { Context, Middleware } from "../../src/http/mod.ts";

/**
 * How long no request may have arrived before a draining server counts as
 * drained, in ms: long enough for the clients of its kept-alive connections
 * to send their next request (answered with `Connection: close`) rather
 * than have the connection closed under them.
 */
export const QUIET_MS = 1000;

/** The probes a balancer keeps calling while a server drains. */
const PROBES = /^https?:\/\/[^/]*\/(?:readyz|healthz)(?:\?|$)/;

/**
 * A server's requests, counted for a graceful shutdown. Its step
 * ({@linkcode drainingStep}) calls {@linkcode Drain.arrive} as a request
 * comes in and what it returns once the response is over (its body sent or
 * dropped), and sends the response through {@linkcode Drain.respond}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Drain } from "./drain.ts";
 *
 * const drain = new Drain();
 * const done = drain.arrive(new Request("http://x/v1/call/1/message"));
 * drain.begin();
 * assert.equal(drain.inFlight, 1);
 * const response = drain.respond(new Response("ok"));
 * assert.equal(response.headers.get("connection"), "close");
 * done();
 * assert.equal(drain.inFlight, 0);
 * assert.equal(drain.idle(0), true);
 * assert.equal(drain.idle(60_000), false); // a request arrived just now
 * ```
 */
export class Drain {
  #inFlight = 0;
  /** When the last request arrived, from `performance.now()`. */
  #lastArrival = performance.now();
  #draining = false;

  /** How many responses are still going. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /**
   * Notes a request's arrival (a health probe's only before the drain).
   *
   * @param request The request.
   * @param arrivedAt When it arrived, from `performance.now()` (a step
   * passes its context's `startedAt`, read already). Default: now.
   * @returns What to call once its response is over; later calls do nothing.
   */
  arrive(request: Request, arrivedAt?: number): () => void {
    this.enter(request, arrivedAt);
    return this.leaver();
  }

  /**
   * {@linkcode Drain.arrive} without a function to call once: for a step
   * that calls {@linkcode Drain.leave} itself, exactly once a request.
   *
   * @param request The request.
   * @param arrivedAt When it arrived, from `performance.now()`. Default:
   * now.
   */
  enter(request: Request, arrivedAt?: number): void {
    if (!this.#draining || !PROBES.test(request.url)) {
      // The steps pass the context's arrival time: no clock read a request
      // (a call into the runtime, 0.04-0.05 µs on Bun).
      this.#lastArrival = arrivedAt ?? performance.now();
    }
    this.#inFlight += 1;
  }

  /** Notes that the response of a request {@linkcode Drain.enter}ed is over. */
  leave(): void {
    this.#inFlight -= 1;
  }

  /**
   * {@linkcode Drain.leave} for a request entered, to call however often.
   *
   * @returns What to call once its response is over; later calls do nothing.
   */
  leaver(): () => void {
    let going = true;
    return () => {
      if (!going) return;
      going = false;
      this.leave();
    };
  }

  /**
   * The response to send: while draining, with `Connection: close`, so that
   * the client opens its next connection (which a balancer sends elsewhere).
   *
   * @param response The handler's response.
   * @returns The same response.
   */
  respond(response: Response): Response {
    if (this.#draining) {
      try {
        response.headers.set("connection", "close");
      } catch {
        // Immutable headers: the connection closes when the server stops.
      }
    }
    return response;
  }

  /** Starts draining: every response from now on asks to close. */
  begin(): void {
    this.#draining = true;
  }

  /**
   * Whether nothing is going and no request arrived for `quietMs`.
   *
   * @param quietMs How long no request may have arrived, in ms.
   */
  idle(quietMs: number): boolean {
    return this.inFlight === 0 &&
      performance.now() - this.#lastArrival >= quietMs;
  }

  /**
   * Resolves once {@linkcode Drain.idle} (checked every 50 ms), or when
   * `signal` is aborted. Idle is checked twice, the second time after the
   * event loop has read its sockets: a server that was not scheduled for a
   * while (a loaded machine) would otherwise see a quiet second on its
   * timer while requests that arrived meanwhile wait unread, and close
   * their connections as idle under them.
   *
   * @param quietMs How long no request may have arrived, in ms.
   * @param signal Ends the wait early.
   */
  async settled(quietMs: number, signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      if (this.idle(quietMs)) {
        await new Promise((resolve) => globalThis.setImmediate(resolve));
        if (this.idle(quietMs)) return;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/**
 * How a runtime tells that a response is over: calls `done` once the
 * response to `context`'s request is sent or dropped. Called as the request
 * arrives, before it is answered (so that an event of the connection is
 * not missed); returns what the draining step calls with the answer when
 * the runtime learns the end from the answer (Node's without an `outgoing`
 * message: once answered), or nothing when it learns it otherwise (Node's
 * `close`): the draining step waits for the answer once, for both. (Bun's
 * and Deno's draining steps are their own, `bunDrainingStep` and
 * `denoDrainingStep`.)
 */
export type ResponseEnd = (
  context: Context,
  done: () => void,
) => ((answer: Response) => void) | undefined;

/**
 * The pipeline step that counts a server's requests in `drain` until their
 * response is over, as `responseEnd` tells, and, once the drain has begun,
 * asks each client to close its connection. First in a server's list, so
 * that it sees every request.
 *
 * @param drain The server's count (see `shutDown`).
 * @param responseEnd When the runtime's response is over.
 * @returns The step.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { compose, Context, type Middleware } from "../../src/http/mod.ts";
 * import { Drain, drainingStep, type ResponseEnd } from "./drain.ts";
 *
 * const drain = new Drain();
 * drain.begin();
 * // Over once answered; a runtime tells when its bytes are sent.
 * const answered: ResponseEnd = (_context, done) => done;
 * const answer: Middleware = (context) => Promise.resolve(context.empty(204));
 * const run = compose(
 *   [drainingStep(drain, answered), answer],
 *   (context) => context.empty(500),
 * );
 * const response = await run(new Context(new Request("http://x/healthz")));
 * assert.equal(response.headers.get("connection"), "close");
 * await Promise.resolve();
 * assert.equal(drain.inFlight, 0);
 * ```
 */
export function drainingStep(
  drain: Drain,
  responseEnd: ResponseEnd,
): Middleware {
  return (context, next) => {
    const done = drain.arrive(context.request, context.startedAt);
    const answered = responseEnd(context, done);
    return next().then((response) => {
      const answer = drain.respond(response);
      answered?.(answer);
      return answer;
    }, (error: unknown) => {
      if (answered !== undefined) done();
      throw error;
    });
  };
}

/**
 * A draining step that leaves the end of each response to `answered`: it
 * counts each request in `drain` ({@linkcode Drain.enter}) and hands the
 * answer to `answered`, which returns the response to send and calls
 * {@linkcode Drain.leave} exactly once, when the response is over (at
 * once for a whole answer: one callback a request, no function to call at
 * its end). What the steps after it throw (only when the error renderer
 * failed) is over at once. For the runtimes whose draining step is their
 * own (`bunDrainingStep`, `denoDrainingStep`).
 *
 * @param drain The server's count (see `shutDown`).
 * @param answered What the runtime does with each answer.
 * @returns The step.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { compose, Context, type Middleware } from "../../src/http/mod.ts";
 * import { countingStep, Drain } from "./drain.ts";
 *
 * const drain = new Drain();
 * const step = countingStep(drain, (drain, _context, response) => {
 *   drain.leave(); // over once answered
 *   return drain.respond(response);
 * });
 * const answer: Middleware = (context) => Promise.resolve(context.empty(204));
 * const run = compose([step, answer], (context) => context.empty(500));
 * await run(new Context(new Request("http://x/")));
 * assert.equal(drain.inFlight, 0);
 * ```
 */
export function countingStep(
  drain: Drain,
  answered: (drain: Drain, context: Context, response: Response) => Response,
): Middleware {
  const failed = (error: unknown): never => {
    drain.leave();
    throw error;
  };
  return (context, next) => {
    drain.enter(context.request, context.startedAt);
    return next().then(
      (response) => answered(drain, context, response),
      failed,
    );
  };
}
