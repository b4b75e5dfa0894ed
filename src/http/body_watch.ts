/**
 * The one watch on a streamed response body: its bytes, its end, and how it
 * ended. Whatever must happen when a body is over (the access log line, the
 * request's span, an export slot given back) listens here; and a reader that
 * stops reading is cut after a deadline. The watch lives in the stream
 * itself, so it holds on every runtime, whatever deadlines the runtime's
 * server has or lacks.
 *
 * @module
 */

/** How a response body ended before it was complete. */
export type AbortCause =
  /**
   * The client stopped reading: it disconnected, cancelled the body, or read
   * nothing for the export stall deadline.
   */
  | "client"
  /** The server aborted it: the store failed midway through an export. */
  | "error";

/**
 * Why a streamed body was cut: its client read nothing for too long, or read
 * more slowly than the minimum rate.
 */
export class ExportStalledError extends Error {
  /**
   * Creates the error, naming the deadline (or the rate).
   *
   * @param timeoutMs How long the client read nothing, in ms.
   * @param slow The rate the client read at and the minimum, in bytes a
   * second, when it was cut for reading too slowly.
   */
  constructor(timeoutMs: number, slow?: { rate: number; minimum: number }) {
    super(
      slow === undefined
        ? `Cannot finish the export: its client read nothing for ${timeoutMs} ms`
        : `Cannot finish the export: its client read ${
          Math.round(slow.rate)
        } bytes/s over ${timeoutMs} ms, below the minimum of ${slow.minimum}`,
    );
    this.name = "ExportStalledError";
  }
}

/**
 * The slowest an export's client may read, in bytes a second, averaged over
 * each stall window of its own reading time: 4 KiB/s (about 33 kbit/s). A
 * client slower than that holds its export slot for long.
 */
export const DEFAULT_EXPORT_MIN_BYTES_PER_SECOND = 4096;

/** Told once, when a watched body is over. */
export type BodyEndListener = (
  bytes: number,
  aborted: AbortCause | undefined,
) => void;

/**
 * A body passed through chunk by chunk as its reader asks (so it keeps its
 * backpressure, one chunk at a time), counted, and over exactly once: when
 * the source ends (`aborted` undefined), fails (`"error"`), is cancelled by
 * the reader (`"client"`), or the reader asked for nothing for
 * `stallTimeoutMs` after a chunk was handed over (`"client"`: the stream then
 * fails with {@linkcode ExportStalledError} and the source is cancelled),
 * or read more slowly than `minBytesPerSecond` over such a window (cut the
 * same way). Time spent waiting on the source counts neither as a stall nor
 * against the rate: only the reader's.
 *
 * @example A reader that stops reading is cut
 * ```ts
 * import assert from "node:assert/strict";
 * import { ExportStalledError, WatchedBody } from "./body_watch.ts";
 *
 * const endless = new ReadableStream<Uint8Array>({
 *   pull: (controller) => controller.enqueue(new Uint8Array(3)),
 * });
 * const body = new WatchedBody(endless, 20);
 * const ends: unknown[] = [];
 * body.onEnd((bytes, aborted) => ends.push([bytes, aborted]));
 * const reader = body.readable.getReader();
 * await reader.read();
 * await new Promise((resolve) => setTimeout(resolve, 50));
 * await assert.rejects(reader.read(), ExportStalledError);
 * assert.deepEqual(ends, [[3, "client"]]);
 * ```
 *
 * @example A reader slower than the minimum rate is cut
 * ```ts
 * import assert from "node:assert/strict";
 * import { ExportStalledError, WatchedBody } from "./body_watch.ts";
 *
 * const endless = new ReadableStream<Uint8Array>({
 *   pull: (controller) => controller.enqueue(new Uint8Array(3)),
 * });
 * // 3 bytes every 10 ms is 300 bytes/s: below 1000, over 40-ms windows.
 * const reader = new WatchedBody(endless, 40, 1000).readable.getReader();
 * const reading = async () => {
 *   for (;;) {
 *     await reader.read();
 *     await new Promise((resolve) => setTimeout(resolve, 10));
 *   }
 * };
 * await assert.rejects(reading(), /300 bytes\/s|[0-9]+ bytes\/s over 40 ms/);
 * ```
 */
export class WatchedBody {
  /** The body to send. */
  readonly readable: ReadableStream<Uint8Array>;
  #bytes = 0;
  #ended = false;
  #aborted: AbortCause | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #listeners: BodyEndListener[] = [];

  /**
   * Watches `source`.
   *
   * @param source The body's bytes.
   * @param stallTimeoutMs How long the reader may ask for nothing once a
   *   chunk was handed over, in ms; also the window its rate is averaged
   *   over.
   * @param minBytesPerSecond The slowest the reader may read, averaged
   *   over each window of its own time (waiting on the source does not
   *   count); below it the body is cut as a stalled one is. Default 0: any
   *   rate.
   */
  constructor(
    source: ReadableStream<Uint8Array>,
    stallTimeoutMs: number,
    minBytesPerSecond = 0,
  ) {
    const reader = source.getReader();
    // The reader's own time (from a chunk handed over to its next pull) and
    // the bytes it took meanwhile, over the current window.
    let handedAt: number | undefined;
    let windowMs = 0;
    let windowBytes = 0;
    const cut = (
      controller: ReadableStreamDefaultController<Uint8Array>,
      stalled: ExportStalledError,
    ) => {
      this.#end("client");
      controller.error(stalled);
      reader.cancel(stalled).catch(() => {});
    };
    this.readable = new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        clearTimeout(this.#timer);
        if (handedAt !== undefined) windowMs += performance.now() - handedAt;
        if (windowMs >= stallTimeoutMs) {
          const rate = windowBytes * 1000 / windowMs;
          if (rate < minBytesPerSecond) {
            const minimum = minBytesPerSecond;
            return cut(
              controller,
              new ExportStalledError(stallTimeoutMs, { rate, minimum }),
            );
          }
          windowMs = 0;
          windowBytes = 0;
        }
        let result: ReadableStreamReadResult<Uint8Array>;
        try {
          result = await reader.read();
        } catch (error) {
          this.#end("error");
          throw error;
        }
        if (result.done) {
          this.#end(undefined);
          controller.close();
          return;
        }
        this.#bytes += result.value.byteLength;
        windowBytes += result.value.byteLength;
        controller.enqueue(result.value);
        handedAt = performance.now();
        this.#timer = setTimeout(
          () => cut(controller, new ExportStalledError(stallTimeoutMs)),
          stallTimeoutMs,
        );
      },
      cancel: (reason) => {
        this.#end("client");
        return reader.cancel(reason);
      },
    }, { highWaterMark: 0 });
  }

  /**
   * Adds what to call once the body is over (at once, if it already is).
   * Listeners are called in the order they were added.
   *
   * @param listener Called with the bytes handed over and how the body ended.
   */
  onEnd(listener: BodyEndListener): void {
    if (this.#ended) listener(this.#bytes, this.#aborted);
    else this.#listeners.push(listener);
  }

  #end(aborted: AbortCause | undefined): void {
    clearTimeout(this.#timer);
    if (this.#ended) return;
    this.#ended = true;
    this.#aborted = aborted;
    for (const listener of this.#listeners) listener(this.#bytes, aborted);
    this.#listeners.length = 0;
  }
}
