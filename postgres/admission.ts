/**
 * The store's own queue in front of each postgres.js pool: at most the pool's
 * capacity (`max` connections, each running one statement with
 * `max_pipeline` more sent behind it) at the pool at once, the rest waiting
 * here in arrival order.
 *
 * postgres.js 3.4.9 keeps its connections in queues (`src/queue.js`) whose
 * `shift()` leaves a hole that is dropped only when the queue empties, and
 * whose `remove()`, run by every move of a connection between its states,
 * scans the holes with `indexOf`. Each statement pipelined onto a connection
 * that can take more takes it from the `busy` queue and puts it back: while
 * that queue never empties, every statement adds a hole and scans all the
 * holes before it, and the pool gets dearer by the minute. Statements beyond
 * the pool's capacity wait in its `queries` queue, which never empties either
 * and keeps a hole for each. Admitted up to its capacity, a saturated pool's
 * connections fill up (and leave `busy`), nothing waits in `queries`, and
 * both queues empty again and again (see docs/postgres-js.md).
 *
 * @module
 */
import pLimitExport, { type LimitFunction } from "p-limit";
import type { Sql } from "postgres";
import { defaultExport } from "./default_export.ts";

/** p-limit's `pLimit`, also from a Bun bundle (see default_export.ts). */
const pLimit = defaultExport(pLimitExport);

const limits = new WeakMap<Sql, LimitFunction>();

/**
 * Runs `work` once fewer works admitted for `pool` are running than the
 * pool's capacity (`max × (max_pipeline + 1)`): the next in arrival order,
 * whatever `work` sends, one place until it settles or `abandoned` aborts
 * (its caller's deadline passed: a statement postgres.js never settles
 * must not keep its place for good). Aborted before its turn, `work` is
 * never called.
 *
 * @param pool The postgres.js pool whose capacity bounds the works at once.
 * @param work Sends the statement; called when admitted.
 * @param abandoned Aborted once nobody waits for the answer.
 * @returns What `work` resolves to; rejects with `abandoned`'s reason.
 *
 * @example At most two at a time on a pool of one connection, pipeline 1
 * ```ts
 * import assert from "node:assert/strict";
 * import type { Sql } from "postgres";
 * import { admit } from "./admission.ts";
 *
 * const pool = { options: { max: 1, max_pipeline: 1 } } as unknown as Sql;
 * let running = 0;
 * let most = 0;
 * const work = async () => {
 *   most = Math.max(most, ++running);
 *   await new Promise((resolve) => setTimeout(resolve, 1));
 *   running -= 1;
 * };
 * await Promise.all([1, 2, 3, 4].map(() => admit(pool, work)));
 * assert.equal(most, 2);
 * ```
 *
 * @example A place given up when its caller stops waiting
 * ```ts
 * import assert from "node:assert/strict";
 * import type { Sql } from "postgres";
 * import { admit } from "./admission.ts";
 *
 * const pool = { options: { max: 1, max_pipeline: 0 } } as unknown as Sql;
 * const gaveUp = new AbortController();
 * const hung = admit(pool, () => new Promise(() => {}), gaveUp.signal);
 * const next = admit(pool, () => Promise.resolve("sent"));
 * gaveUp.abort(new Error("deadline"));
 * await assert.rejects(hung, /deadline/);
 * assert.equal(await next, "sent");
 * ```
 */
export function admit<T>(
  pool: Sql,
  work: () => PromiseLike<T>,
  abandoned?: AbortSignal,
): Promise<T> {
  let limit = limits.get(pool);
  if (limit === undefined) {
    const { max, max_pipeline } = pool.options as Sql["options"] & {
      max_pipeline: number;
    };
    limit = pLimit(max * (max_pipeline + 1));
    limits.set(pool, limit);
  }
  if (abandoned === undefined) return limit(work);
  return limit(() =>
    new Promise<T>((resolve, reject) => {
      if (abandoned.aborted) return reject(abandoned.reason);
      abandoned.addEventListener("abort", () => reject(abandoned.reason), {
        once: true,
      });
      work().then(resolve, reject);
    })
  );
}
