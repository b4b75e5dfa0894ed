/**
 * What every runtime adapter gives back: a listening server that can stop.
 *
 * @module
 */

/**
 * A handler as the adapters call it: the request, and what the runtime's
 * server passes beside it (Node: `{ incoming, outgoing }`; Deno: `info`; Bun:
 * `server`), which a plain `Handler` ignores.
 */
export type ServedHandler = (
  request: Request,
  runtimeArgument?: unknown,
) => Promise<Response>;

/** Options of a runtime's `serve`. */
export interface ServeOptions {
  /** The port; `0` picks a free one. */
  port: number;
  /** The interface to listen on. */
  hostname: string;
  /**
   * Deadlines for slow clients, where the runtime allows them; unset fields
   * keep {@linkcode DEFAULT_TIMEOUTS}.
   */
  timeouts?: Partial<ServeTimeouts>;
}

/**
 * Deadlines for slow or stalled clients. Which runtime honours which: Node
 * (its `http.Server`) all but `idleSeconds`; Bun only `idleSeconds`; Deno's
 * `Deno.serve` none (it has no such settings). The handler's own body
 * deadline (`bodyTimeoutMs` of `createHandler`, 30 s) applies everywhere.
 */
export interface ServeTimeouts {
  /** Node: the request line and headers must arrive within this (ms). */
  headersMs: number;
  /**
   * Node: the whole request, body included, must arrive within this (ms);
   * beyond it Node answers 408 and closes. A backstop behind the handler's
   * body deadline, so it is longer.
   */
  requestMs: number;
  /**
   * Node: how long an idle keep-alive connection stays open (ms). Longer
   * than the idle timeouts of common load balancers (60 s on AWS ALB and
   * Google's, 50–60 s elsewhere), so that the balancer, not the server,
   * closes an idle connection: a server closing it races the balancer's
   * next request on it, which then fails.
   */
  keepAliveMs: number;
  /**
   * Bun: `idleTimeout`, in seconds (at most 255; Bun checks it every 4 s).
   * Bun closes an idle keep-alive connection after it (so it is longer than
   * balancers' idle timeouts, as `keepAliveMs`), and also a request
   * whose body is still arriving (body bytes do not restart Bun's timer), so
   * it is longer than the handler's 30-s body deadline, which answers 408
   * first. The bulk export's ZIP is exempt, so a slow reader is not cut off
   * (as on the other runtimes). Headers still incomplete after about 10 s
   * are closed by Bun itself, whatever this is.
   */
  idleSeconds: number;
}

/**
 * The default deadlines: headers within 10 s, the whole request within 40 s,
 * keep-alive connections idle for 65 s (Node), Bun's idle timeout 65 s. The
 * headers deadline may stay below the keep-alive one: Node (18 and later)
 * counts it from a request's first byte, not over an idle connection.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_TIMEOUTS } from "./server.ts";
 *
 * assert.equal(DEFAULT_TIMEOUTS.headersMs, 10_000);
 * ```
 */
export const DEFAULT_TIMEOUTS: Readonly<ServeTimeouts> = Object.freeze({
  headersMs: 10_000,
  requestMs: 40_000,
  keepAliveMs: 65_000,
  idleSeconds: 65,
});

/**
 * The deadlines in effect: the defaults, overridden by what is set.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { serveTimeouts } from "./server.ts";
 *
 * assert.equal(serveTimeouts({ headersMs: 2000 }).headersMs, 2000);
 * assert.equal(serveTimeouts().keepAliveMs, 65_000);
 * ```
 */
export function serveTimeouts(
  timeouts: Partial<ServeTimeouts> = {},
): ServeTimeouts {
  return { ...DEFAULT_TIMEOUTS, ...timeouts };
}

/** A server listening for the handler. */
export interface RunningServer {
  /** The address it listens on, e.g. `http://127.0.0.1:8787`. */
  url: string;
  /** The port it listens on (the one picked, for port `0`). */
  port: number;
  /** Stops accepting connections and resolves once in-flight requests end. */
  close(): Promise<void>;
  /**
   * Closes every connection now, responses still going included (Deno: none
   * can be closed from JavaScript; the process's exit does it).
   */
  cut(): void;
}

/**
 * The URL of a listening address.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { serverUrl } from "./server.ts";
 *
 * assert.equal(serverUrl("127.0.0.1", 8787), "http://127.0.0.1:8787");
 * assert.equal(serverUrl("::1", 8787), "http://[::1]:8787");
 * ```
 */
export function serverUrl(hostname: string, port: number): string {
  const host = hostname.includes(":") ? `[${hostname}]` : hostname;
  return `http://${host}:${port}`;
}
