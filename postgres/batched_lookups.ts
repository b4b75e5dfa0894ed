/**
 * Lookups asked in the same turn of the event loop, answered together: a
 * server under load sends one statement for the requests that arrived
 * together, not one each.
 *
 * @module
 */
import { setImmediate } from "node:timers";

/** One lookup waiting for its batch. */
interface Waiting<K, V> {
  key: K;
  resolve: (value: V | undefined) => void;
  reject: (error: unknown) => void;
}

/**
 * Gathers the keys asked for until the event loop's check phase
 * (`setImmediate`: after the I/O callbacks of the current turn, so after
 * every request that arrived in it has asked), then looks them up with one
 * call of `lookUp` per `maxBatch` keys. Each caller gets the value at its
 * key's place, or `lookUp`'s failure: a batch fails or succeeds for all its
 * callers at once. A key asked twice is looked up twice (each caller gets a
 * value of its own). The wait is at most that one turn: every key is sent
 * after it was asked, so a lookup sees what was committed before it.
 *
 * @example Three lookups in one turn, one call
 * ```ts
 * import assert from "node:assert/strict";
 * import { BatchedLookups } from "./batched_lookups.ts";
 *
 * const calls: number[][] = [];
 * const squares = new BatchedLookups<number, number>((keys) => {
 *   calls.push([...keys]);
 *   return Promise.resolve(keys.map((key) => key > 0 ? key * key : undefined));
 * });
 * assert.deepEqual(
 *   await Promise.all([squares.get(2), squares.get(-1), squares.get(3)]),
 *   [4, undefined, 9],
 * );
 * assert.deepEqual(calls, [[2, -1, 3]]);
 * ```
 *
 * @example A failed batch fails each of its callers
 * ```ts
 * import assert from "node:assert/strict";
 * import { BatchedLookups } from "./batched_lookups.ts";
 *
 * const broken = new BatchedLookups<string, string>(() =>
 *   Promise.reject(new Error("database down"))
 * );
 * const results = await Promise.allSettled([broken.get("a"), broken.get("b")]);
 * assert.deepEqual(results.map((result) => result.status), [
 *   "rejected",
 *   "rejected",
 * ]);
 * ```
 */
export class BatchedLookups<K, V> {
  readonly #lookUp: (keys: readonly K[]) => Promise<readonly (V | undefined)[]>;
  readonly #maxBatch: number;
  #waiting: Waiting<K, V>[] = [];

  /**
   * @param lookUp Looks keys up: resolves with one value (or `undefined`)
   *   per key, in the keys' order.
   * @param maxBatch The most keys one call of `lookUp` gets. Default 100.
   */
  constructor(
    lookUp: (keys: readonly K[]) => Promise<readonly (V | undefined)[]>,
    maxBatch = 100,
  ) {
    this.#lookUp = lookUp;
    this.#maxBatch = maxBatch;
  }

  /**
   * Looks `key` up with the other keys asked for in this turn.
   *
   * @param key What to look up.
   * @returns Its value, or `undefined` when there is none.
   * @throws what `lookUp` throws for the batch.
   */
  get(key: K): Promise<V | undefined> {
    return new Promise((resolve, reject) => {
      if (this.#waiting.length === 0) setImmediate(this.#send);
      this.#waiting.push({ key, resolve, reject });
    });
  }

  #send = (): void => {
    const waiting = this.#waiting;
    this.#waiting = [];
    for (let from = 0; from < waiting.length; from += this.#maxBatch) {
      this.#sendBatch(waiting.slice(from, from + this.#maxBatch));
    }
  };

  #sendBatch(batch: Waiting<K, V>[]): void {
    let answered: Promise<readonly (V | undefined)[]>;
    try {
      answered = this.#lookUp(batch.map((waiting) => waiting.key));
    } catch (error) {
      answered = Promise.reject(error);
    }
    answered.then(
      (values) => {
        for (let i = 0; i < batch.length; i++) batch[i]!.resolve(values[i]);
      },
      (error: unknown) => {
        for (const waiting of batch) waiting.reject(error);
      },
    );
  }
}
