/**
 * The bound on bulk exports running at once, whatever the store: each one
 * holds a ZIP writer, a batch of messages and a client's connection for as
 * long as the client reads.
 *
 * @module
 */

/** How many exports may stream at once unless told otherwise. */
export const DEFAULT_MAX_CONCURRENT_EXPORTS = 16;

/**
 * A counter of running exports. {@linkcode ExportSlots.take} gives a slot or
 * nothing; the slot is given back by calling what it returned, once (later
 * calls do nothing).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ExportSlots } from "./export_slots.ts";
 *
 * const slots = new ExportSlots(1);
 * const release = slots.take();
 * assert.equal(slots.take(), undefined); // full
 * release?.();
 * assert.notEqual(slots.take(), undefined);
 * ```
 */
export class ExportSlots {
  /** How many exports may run at once. */
  readonly max: number;
  #running = 0;

  /**
   * @param max How many exports may run at once: an integer from 1.
   * @throws {RangeError} for anything else.
   */
  constructor(max: number = DEFAULT_MAX_CONCURRENT_EXPORTS) {
    if (!Number.isInteger(max) || max < 1) {
      throw new RangeError(
        `maxConcurrentExports must be an integer from 1, got ${max}`,
      );
    }
    this.max = max;
  }

  /** How many exports hold a slot now. */
  get running(): number {
    return this.#running;
  }

  /**
   * Takes a slot if one is free.
   *
   * @returns What gives the slot back, or `undefined` when all are taken.
   */
  take(): (() => void) | undefined {
    if (this.#running >= this.max) return undefined;
    this.#running += 1;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.#running -= 1;
    };
  }
}

/**
 * `stream`, calling `release` once it ends, fails or is cancelled.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { releasedAtEnd } from "./export_slots.ts";
 *
 * let released = false;
 * const stream = releasedAtEnd(new Blob(["zip"]).stream(), () => released = true);
 * await new Response(stream).arrayBuffer();
 * assert.equal(released, true);
 * ```
 */
export function releasedAtEnd(
  stream: ReadableStream<Uint8Array>,
  release: () => void,
): ReadableStream<Uint8Array> {
  const reader = stream.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let result: ReadableStreamReadResult<Uint8Array>;
      try {
        result = await reader.read();
      } catch (error) {
        release();
        throw error;
      }
      if (result.done) {
        release();
        controller.close();
      } else {
        controller.enqueue(result.value);
      }
    },
    cancel(reason) {
      release();
      return reader.cancel(reason);
    },
  }, { highWaterMark: 0 });
}
