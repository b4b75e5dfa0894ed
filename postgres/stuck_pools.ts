/**
 * Which pool a stuck connection belongs to: `watchedSockets` (silent_peer.ts)
 * marks the error it fails such a connection with, and the store asks here.
 * Apart from silent_peer.ts so that the store, which runs in Workers too,
 * loads no `node:net`.
 *
 * @module
 */

/** Errors of stuck connections, each to the pool it was opened for. */
const stuckPools = new WeakMap<object, object>();

/**
 * Marks `error` as a stuck connection's, of the pool `target` names.
 *
 * @param error The error the connection is failed with.
 * @param target The pool's postgres.js options.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { markStuck, stuckPoolOf } from "./stuck_pools.ts";
 *
 * const error = new Error("stuck");
 * const pool = { host: ["db"], port: [5432] };
 * markStuck(error, pool);
 * assert.equal(stuckPoolOf(error), pool);
 * ```
 */
export function markStuck(error: object, target: object): void {
  stuckPools.set(error, target);
}

/**
 * The pool (its postgres.js options, `sql.options`) whose connection failed
 * with `error` because it was stuck, or `undefined` for any other error.
 *
 * postgres.js 3.4.9 defers a small write to `setImmediate`; when the socket
 * closes before that runs, it cancels the timer without forgetting it (nor
 * the bytes it held). That connection never writes again: each new socket's
 * startup message is added to the stale bytes and never sent, and each
 * reconnect waits for the connect timeout, until a kilobyte has piled up
 * (porsager/postgres#1215). A pooler closing every client at once (PgBouncer's
 * `KILL`, as a failover manager runs it) while retries are being written
 * leaves several such connections behind. `watchedSockets` (silent_peer.ts) fails a
 * socket that postgres.js never wrote to (a healthy connection writes its
 * startup message at once) with a `CONNECT_TIMEOUT` error (nothing was
 * sent, so the statement may be sent again) that this function recognises:
 * only a fresh pool cures the connection.
 *
 * @param error What a query failed with.
 * @returns The options of the pool the stuck connection belongs to.
 *
 * @example A socket the driver never writes to fails as stuck
 * ```ts
 * import assert from "node:assert/strict";
 * import { createServer } from "node:net";
 * import { watchedSockets } from "./silent_peer.ts";
 * import { stuckPoolOf } from "./stuck_pools.ts";
 *
 * const server = createServer(() => {});
 * await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
 * const { port } = server.address() as { port: number };
 * const pool = { host: ["127.0.0.1"], port: [port] };
 * const socket = watchedSockets(3000)(pool);
 * const error = await new Promise((resolve) => socket.once("error", resolve));
 * assert.equal((error as { code: string }).code, "CONNECT_TIMEOUT");
 * assert.equal(stuckPoolOf(error), pool);
 * assert.equal(stuckPoolOf(new Error("no answer")), undefined);
 * server.close();
 * ```
 */
export function stuckPoolOf(error: unknown): object | undefined {
  return typeof error === "object" && error !== null
    ? stuckPools.get(error)
    : undefined;
}
