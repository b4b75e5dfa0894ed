/**
 * A client-side bound on waiting for Postgres. The server's timeouts bound
 * what the server does; this bounds what postgres.js may wait for when the
 * server cannot tell it anything: a half-open connection after a network
 * failure (porsager/postgres#1089), or a peer that accepts connections and
 * hangs up, which postgres.js retries forever (porsager/postgres#1193).
 *
 * @module
 */

/**
 * Postgres did not answer within the store's deadline.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PostgresTimeoutError } from "./deadline.ts";
 *
 * const error = new PostgresTimeoutError(40_000);
 * assert.equal(
 *   error.message,
 *   "Cannot reach Postgres: no answer within 40000 ms",
 * );
 * ```
 */
export class PostgresTimeoutError extends Error {
  /**
   * @param ms The deadline that passed, in milliseconds.
   */
  constructor(ms: number) {
    super(`Cannot reach Postgres: no answer within ${ms} ms`);
    this.name = "PostgresTimeoutError";
  }
}

/**
 * Waits for `work` at most `ms` milliseconds, then fails with
 * {@linkcode PostgresTimeoutError} (and calls `onTimeout`). The work itself is
 * left to finish or fail on its own: cancelling a query that postgres.js has
 * parked on a connection still connecting would leak that connection from the
 * pool, so a timed-out query may still run once the server is back.
 *
 * @param work What to wait for; a postgres.js query starts when awaited.
 * @param ms The deadline in milliseconds.
 * @param onTimeout Called once if the deadline passes.
 * @returns What `work` resolves to.
 * @throws {PostgresTimeoutError} when the deadline passes first.
 *
 * @example Bounding a query
 * ```ts ignore
 * import postgres from "postgres";
 * import { withDeadline } from "./deadline.ts";
 *
 * const sql = postgres("postgres://postgres@127.0.0.1:5432/postgres");
 * const rows = await withDeadline(sql`SELECT 1 AS one`, 5000);
 * ```
 */
export function withDeadline<T>(
  work: PromiseLike<T>,
  ms: number,
  onTimeout: () => void = () => {},
): Promise<T> {
  // One promise and one timer: this wraps every query the store sends.
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      onTimeout();
      reject(new PostgresTimeoutError(ms));
    }, ms);
    work.then((value) => {
      clearTimeout(timer);
      resolve(value);
    }, (error: unknown) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}
