/**
 * Guarding query results against a postgres.js bug: its row counter is one
 * per connection and is reset only when a result completes, so a result cut
 * short (a backend killed mid-result, a statement failing midway) leaves it
 * where it was, and the next query on that connection, even after a
 * reconnect, stores its rows from that offset: a sparse result whose first
 * entries are holes (porsager/postgres#1119, #1181). `const [row] = rows`
 * then reads `undefined`, and a valid token looked like an unknown one.
 *
 * @module
 */

/** A postgres.js result: an array of rows and the server's row count. */
export interface CountedRows {
  readonly length: number;
  /** The server's count of affected or returned rows, when it gave one. */
  readonly count: number | null;
}

/**
 * Returns `rows` without the leading holes postgres.js may have left in it,
 * in place (the object keeps its `count` and `command`). A result whose rows
 * do not match the server's count otherwise throws: it is not trusted.
 *
 * @param rows A postgres.js result.
 * @returns The same result, dense.
 * @throws {Error} when the result is sparse other than by leading holes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { denseRows } from "./dense_rows.ts";
 *
 * const rows = Object.assign([] as { role: string }[], { count: 1 });
 * rows[3] = { role: "owner" }; // as after a connection lost mid-result
 * assert.deepEqual([...denseRows(rows)], [{ role: "owner" }]);
 * ```
 */
export function denseRows<T extends CountedRows>(rows: T): T {
  const { count } = rows;
  if (typeof count !== "number" || rows.length <= count) return rows;
  const holes = rows.length - count;
  const array = rows as unknown as unknown[];
  for (let i = 0; i < rows.length; i++) {
    if ((i in array) === (i < holes)) {
      throw new Error(
        `Cannot trust a Postgres result: ${rows.length} rows for a count of ` +
          `${count} (porsager/postgres#1119)`,
      );
    }
  }
  array.splice(0, holes);
  return rows;
}
