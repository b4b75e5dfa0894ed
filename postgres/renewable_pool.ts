/**
 * A pool that can be swapped for a fresh one: the way out of a postgres.js
 * 3.4 connection that can no longer connect.
 *
 * A postgres.js connection whose socket closes while a write is still
 * waiting for its `setImmediate` flush keeps that write and the cancelled
 * timer's handle for its next socket; the startup message then waits behind
 * them and is never sent, so every connect of that connection times out
 * (`CONNECT_TIMEOUT`) until 1 KiB of startup messages has piled up, tens of
 * seconds later (porsager/postgres#1215). Terminated backends trigger it
 * within seconds on Bun. A connection has no API of its own to be reset, so
 * the store replaces the whole pool when a query times out connecting; the
 * old pool ends in the background once its running queries are done. What
 * holds the pool (the store, its read routing, seeding) holds
 * {@linkcode RenewablePool.sql}, which always reaches the current one.
 *
 * @module
 */
import type { Sql } from "postgres";

/** At most one renewal in this many milliseconds. */
const RENEW_AT_MOST_EVERY_MS = 5000;

/**
 * The current pool, and a way to replace it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { Sql } from "postgres";
 * import { RenewablePool } from "./renewable_pool.ts";
 *
 * const ended: string[] = [];
 * const fakePool = (name: string) =>
 *   ({ end: async () => void ended.push(name) }) as unknown as Sql;
 * let opened = 0;
 * const pool = new RenewablePool(fakePool("first"), () => fakePool(`new ${++opened}`));
 * const first = pool.current;
 * pool.renew();
 * assert.notEqual(pool.current, first);
 * pool.renew(); // too soon: ignored
 * await pool.end();
 * assert.deepEqual(ended.sort(), ["first", "new 1"]);
 * ```
 */
export class RenewablePool {
  #current: Sql;
  readonly #open: (() => Sql) | undefined;
  #renewedAt = -Infinity;
  readonly #retiring = new Set<Promise<void>>();

  /**
   * The pool to send queries to, whichever it is now: calling it (a tagged
   * template) or any of its methods (`begin`, `unsafe`, ...) goes to
   * {@linkcode RenewablePool.current}. (postgres.js's functions are
   * closures over their pool, so they need no `this`.)
   */
  readonly sql: Sql = new Proxy(function () {} as unknown as Sql, {
    apply: (_target, _this, args) =>
      Reflect.apply(this.#current, undefined, args),
    get: (_target, key) => Reflect.get(this.#current, key),
  });

  /**
   * @param sql The pool to start with.
   * @param open Opens a pool like it; without it, {@linkcode renew} does
   *   nothing.
   */
  constructor(sql: Sql, open?: () => Sql) {
    this.#current = sql;
    this.#open = open;
  }

  /** The pool to send queries to. */
  get current(): Sql {
    return this.#current;
  }

  /**
   * Replaces the pool with a fresh one (at most once every 5 s) and ends the
   * old one once its running queries are done (or after 5 s).
   */
  renew(): void {
    const now = performance.now();
    if (!this.#open || now - this.#renewedAt < RENEW_AT_MOST_EVERY_MS) return;
    this.#renewedAt = now;
    const old = this.#current;
    this.#current = this.#open();
    const ended = old.end({ timeout: 5 }).catch(() => {});
    this.#retiring.add(ended);
    ended.finally(() => this.#retiring.delete(ended));
  }

  /**
   * Replaces the pool at once (see {@linkcode renew}) if it is still the
   * one whose options are `options` (`sql.options`): for a pool known to be
   * broken, whenever it was last renewed. A pool already replaced is left
   * alone, so that its many failures replace it once.
   *
   * @param options The broken pool's `sql.options`.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import type { Sql } from "postgres";
   * import { RenewablePool } from "./renewable_pool.ts";
   *
   * const fakePool = (name: string) =>
   *   ({ options: { name }, end: async () => {} }) as unknown as Sql;
   * let opened = 0;
   * const pool = new RenewablePool(
   *   fakePool("first"),
   *   () => fakePool(`new ${++opened}`),
   * );
   * const first = pool.current;
   * pool.renew();
   * const second = pool.current;
   * pool.renewIfCurrent(first.options); // already replaced: left alone
   * assert.equal(pool.current, second);
   * pool.renewIfCurrent(second.options); // at once, within 5 s of the last
   * assert.notEqual(pool.current, second);
   * await pool.end();
   * ```
   */
  renewIfCurrent(options: object): void {
    if (this.#current.options !== options) return;
    this.#renewedAt = -Infinity;
    this.renew();
  }

  /**
   * Ends the current pool and waits for replaced ones still ending.
   *
   * @param timeout Seconds to wait for running queries. Default 5.
   */
  async end(timeout = 5): Promise<void> {
    await Promise.all([this.#current.end({ timeout }), ...this.#retiring]);
  }
}
