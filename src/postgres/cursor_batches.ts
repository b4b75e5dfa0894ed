/**
 * Streaming a query's rows in batches through a server-side cursor, safely.
 *
 * postgres.js's own `.cursor(n)` async iterator ends quietly, as if the result
 * were complete, when the connection fails between two batches
 * (porsager/postgres#1166), and resuming a cursor whose connection has closed
 * makes postgres.js write to a null socket from a timer, an uncatchable crash
 * (porsager/postgres#1154). This wraps the callback form instead: the query's
 * own promise carries every failure, which the generator rethrows, and a batch
 * is only acknowledged while the query is still alive.
 *
 * @module
 */
import { withDeadline } from "./deadline.ts";

/** The part of a postgres.js query that {@linkcode cursorBatches} uses. */
export interface CursorQuery<T> {
  /**
   * postgres.js `query.cursor(rows, fn)`: calls `fn` with each batch and waits
   * for its promise before fetching the next; resolving it with the `close`
   * token ends the cursor early.
   */
  cursor(rows: number, fn: (rows: T[]) => unknown): PromiseLike<unknown>;
}

/**
 * Runs `query` with a cursor and yields its rows `rows` at a time. The first
 * `next()` sends the query; each later one fetches the next batch. A failure
 * of the query or its connection, at any point, is thrown from the generator.
 * Leaving the loop early closes the cursor and waits until the connection is
 * released. Waiting longer than `timeout` for a batch throws
 * `PostgresTimeoutError` (should the batch come later, the cursor is closed);
 * a reader that takes longer than `timeout` to ask for the next batch gets
 * the cursor closed under it, and an error when it asks.
 *
 * @param query A postgres.js query, not yet awaited.
 * @param rows How many rows to fetch at a time.
 * @param close postgres.js's `sql.CLOSE` token.
 * @param timeout The longest wait for a batch, or for the reader to ask for
 * the next one, in milliseconds.
 * @returns The batches, in the query's order.
 *
 * @example Reading a large result a thousand rows at a time
 * ```ts ignore
 * import postgres from "postgres";
 * import { cursorBatches } from "./cursor_batches.ts";
 *
 * const sql = postgres(Deno.env.get("DATABASE_URL")!);
 * const query = sql`SELECT x FROM generate_series(1, 10000) AS x`;
 * for await (const batch of cursorBatches(query, 1000, sql.CLOSE, 30_000)) {
 *   console.log(batch.length); // 1000
 *   break; // the cursor is closed, the connection back in the pool
 * }
 * ```
 */
export async function* cursorBatches<T>(
  query: CursorQuery<T>,
  rows: number,
  close: unknown,
  timeout: number,
): AsyncGenerator<T[], void, undefined> {
  let delivered: { batch: T[]; resume: (next: unknown) => void } | undefined;
  let outcome: { failed: false } | { failed: true; error: unknown } | undefined;
  let wake = () => {};
  let abandoned = false;
  const settled = Promise.resolve(
    query.cursor(rows, (batch) =>
      abandoned ? close : new Promise((resume) => {
        delivered = { batch, resume };
        wake();
      })),
  ).then(
    () => {
      outcome = { failed: false };
      wake();
    },
    (error: unknown) => {
      outcome = { failed: true, error };
      wake();
    },
  );

  let pending: ((next: unknown) => void) | undefined;
  try {
    for (;;) {
      while (delivered === undefined && outcome === undefined) {
        await withDeadline(
          new Promise<void>((resolve) => wake = resolve),
          timeout,
          () => abandoned = true,
        );
      }
      if (outcome?.failed) throw outcome.error;
      if (delivered === undefined) return;
      const { batch, resume } = delivered;
      delivered = undefined;
      pending = resume;
      // A reader that stops pulling must not hold the connection for ever:
      // past the deadline the cursor is closed, and the stream fails.
      let stalled = false;
      const stall = setTimeout(() => {
        if (outcome !== undefined) return;
        stalled = true;
        pending = undefined;
        resume(close);
      }, timeout);
      try {
        yield batch;
      } finally {
        clearTimeout(stall);
      }
      if (stalled) {
        throw new Error(
          `Cannot continue export: its reader stalled for over ${timeout} ms`,
        );
      }
      pending = undefined;
      // Acknowledge only while the query is alive: resuming a cursor whose
      // connection has closed crashes postgres.js (porsager/postgres#1154).
      if (outcome === undefined) resume(undefined);
    }
  } finally {
    if (outcome === undefined && pending !== undefined) {
      pending(close);
      await settled;
    }
  }
}
