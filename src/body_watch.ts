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
import type { AbortCause } from "./finished_request.ts";

/** Why a streamed body was cut: its client read nothing for too long. */
export class ExportStalledError extends Error {
  /**
   * Creates the error, naming the deadline.
   *
   * @param timeoutMs How long the client read nothing, in ms.
   */
  constructor(timeoutMs: number) {
    super(
      `Cannot finish the export: its client read nothing for ${timeoutMs} ms`,
    );
    this.name = "ExportStalledError";
  }
}

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
 * fails with {@linkcode ExportStalledError} and the source is cancelled).
 * Time spent waiting on the source does not count as a stall: only the
 * reader's.
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
   *   chunk was handed over, in ms.
   */
  constructor(source: ReadableStream<Uint8Array>, stallTimeoutMs: number) {
    const reader = source.getReader();
    this.readable = new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        clearTimeout(this.#timer);
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
        controller.enqueue(result.value);
        this.#timer = setTimeout(() => {
          const stalled = new ExportStalledError(stallTimeoutMs);
          this.#end("client");
          controller.error(stalled);
          reader.cancel(stalled).catch(() => {});
        }, stallTimeoutMs);
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
