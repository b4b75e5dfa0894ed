/**
 * Retrying work whose connection was lost: a terminated backend, a server
 * restart, a failover. A read changed nothing, so it is sent again on a fresh
 * connection; a write only when its connection never opened (the statement
 * was not sent). Every other error (a bad statement, a timeout, a closed
 * pool) stands at once.
 *
 * @module
 */

/** Options of {@linkcode retryLostConnection}. */
export interface RetryOptions {
  /**
   * Milliseconds after the first lost connection within which another
   * attempt may start; past it, the last error stands, and no backoff sleeps
   * beyond it. Default 10000.
   */
  within?: number;
  /**
   * Which errors are retried. Default {@linkcode isLostConnection}; for a
   * write, {@linkcode isNeverSent}.
   */
  retryOn?: (error: unknown) => boolean;
  /** Called with each lost-connection error that is retried. */
  onRetry?: (error: unknown) => void;
  /**
   * Called with every error an attempt fails with, retried or not, before
   * it is judged: for what any failure must trigger (replacing a pool).
   */
  onError?: (error: unknown) => void;
}

/**
 * SQLSTATEs of a session the server ended or would not start: class 08
 * (connection exception), 57P01 to 57P03 (terminated by an administrator,
 * crash, server starting or stopping) and 57P05 (idle session timeout).
 */
const LOST_SQLSTATE = /^(08...|57P0[1235])$/;

/**
 * How postgres.js and the runtimes' sockets name a connection that closed or
 * could not open. `CONNECTION_DESTROYED` is in: a pool that `RenewablePool`
 * replaced destroys what it still runs after 5 s, and sent again, that goes
 * to the new pool (to a closed store's pool, it fails with
 * `CONNECTION_ENDED`, which is left out: that pool was ended on purpose).
 */
const LOST_CODES = new Set([
  "CONNECTION_CLOSED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
  "ECONNRESET",
  "ECONNREFUSED",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

/**
 * Whether `error` says the connection was lost (or could not be opened), as
 * opposed to a statement the server refused.
 *
 * @param error What a query rejected with.
 * @returns `true` for a lost connection.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isLostConnection } from "./retry.ts";
 *
 * assert.equal(isLostConnection({ code: "57P01" }), true); // terminated
 * assert.equal(isLostConnection({ code: "CONNECTION_CLOSED" }), true);
 * assert.equal(isLostConnection({ code: "42P01" }), false); // no such table
 * assert.equal(isLostConnection(new Error("boom")), false);
 * ```
 */
export function isLostConnection(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" &&
    (LOST_CODES.has(code) || LOST_SQLSTATE.test(code));
}

/**
 * Codes of a connection that never opened: the statement waiting for it was
 * not sent, so even a write may be sent again.
 */
const NEVER_SENT_CODES = new Set([
  "CONNECT_TIMEOUT",
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "57P03",
]);

/**
 * Whether `error` says the connection could not be opened, so the statement
 * that waited for it never reached the server: refused, unresolvable, timed
 * out while connecting, or a server starting up or shutting down (57P03).
 *
 * @param error What a query rejected with.
 * @returns `true` when the statement was not sent.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isNeverSent } from "./retry.ts";
 *
 * assert.equal(isNeverSent({ code: "ECONNREFUSED" }), true);
 * assert.equal(isNeverSent({ code: "57P01" }), false); // it may have run
 * ```
 */
export function isNeverSent(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && NEVER_SENT_CODES.has(code);
}

/**
 * Runs `attempt` and, each time it fails because its connection was lost,
 * runs it again, until {@linkcode RetryOptions.within} milliseconds have
 * passed since the first loss. The window is a deadline: no attempt starts
 * after it (a backoff is cut short to end there), so a caller waits at most
 * `within` plus one attempt (for a connection that cannot open, one connect
 * timeout). The pool reconnects the lost connection (or
 * hands out another one) for the next attempt. Only for work that is safe to
 * repeat: a read, or a statement that did not run.
 *
 * @param attempt Starts one attempt; called again for each retry.
 * @param options The bound on retrying, and hooks on failures and retries.
 * @returns What the first successful attempt resolves to.
 * @throws what the last attempt threw, when it is not a lost connection or
 *   the bound has passed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { retryLostConnection } from "./retry.ts";
 *
 * let attempts = 0;
 * const answer = await retryLostConnection(async () => {
 *   attempts += 1;
 *   if (attempts === 1) throw Object.assign(new Error("gone"), { code: "57P01" });
 *   return "rows";
 * });
 * assert.equal(answer, "rows");
 * assert.equal(attempts, 2);
 * ```
 */
export function retryLostConnection<T>(
  attempt: () => Promise<T>,
  options: RetryOptions = {},
): Promise<T> {
  // The first attempt costs one promise: the retry loop is entered only
  // once it fails (a query answered is the case to keep cheap).
  return start(attempt).catch((error: unknown) =>
    retryAfter(error, attempt, options)
  );
}

/** Runs `attempt`, a synchronous throw as a rejection. */
function start<T>(attempt: () => Promise<T>): Promise<T> {
  try {
    return attempt();
  } catch (error) {
    return Promise.reject(error);
  }
}

/** The retries after the first attempt failed with `first`. */
async function retryAfter<T>(
  first: unknown,
  attempt: () => Promise<T>,
  options: RetryOptions,
): Promise<T> {
  const within = options.within ?? 10_000;
  const retryOn = options.retryOn ?? isLostConnection;
  let deadline: number | undefined;
  let error = first;
  for (let retries = 0;; retries++) {
    options.onError?.(error);
    if (!retryOn(error)) throw error;
    deadline ??= performance.now() + within;
    const left = deadline - performance.now();
    if (left <= 0) throw error;
    options.onRetry?.(error);
    // A server that ended the session is up: at once again (the pool
    // reconnects). One that could not be reached is asked again 100, 200,
    // ... up to 1000 ms apart, not in a tight loop, and never later than
    // the deadline: the last attempt starts within the window.
    if (retries > 0 && isNeverSent(error)) {
      await sleep(Math.min(100 * retries, 1000, left));
    }
    try {
      return await attempt();
    } catch (failed) {
      error = failed;
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
