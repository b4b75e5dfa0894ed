/**
 * A bulk export's body, watched: its slot is given back once it ends, fails,
 * is cancelled, or its client has read nothing for too long, in which case
 * the transfer is cut. The watch lives in the stream itself, so it holds on
 * every runtime, whatever deadlines the runtime's server has or lacks.
 *
 * @module
 */

/** How long an export's client may read nothing before it is cut, in ms. */
export const DEFAULT_EXPORT_STALL_TIMEOUT_MS = 60_000;

/** Why an export was cut: its client read nothing for too long. */
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

/** Options of {@linkcode watchedExport}. */
export interface WatchOptions {
  /**
   * How long the reader may ask for nothing once a chunk was handed over, in
   * ms; then the stream fails with {@linkcode ExportStalledError} and the
   * source is cancelled.
   */
  stallTimeoutMs: number;
  /** Called once, when the stream ends, fails, is cancelled or stalls. */
  onEnd: () => void;
}

/**
 * `source`, passed through chunk by chunk as the reader asks (so the export
 * keeps its backpressure), ending with `onEnd` whichever way it ends. Time
 * spent waiting on `source` does not count as a stall: only the reader's.
 *
 * @param source The export's body.
 * @param options The stall deadline and what to call at the end.
 * @returns The body to send.
 *
 * @example A reader that stops reading is cut
 * ```ts
 * import assert from "node:assert/strict";
 * import { ExportStalledError, watchedExport } from "./stall_watch.ts";
 *
 * let ended = 0;
 * const body = watchedExport(new Blob(["zip", "more"]).stream(), {
 *   stallTimeoutMs: 20,
 *   onEnd: () => ended++,
 * });
 * const reader = body.getReader();
 * await reader.read();
 * await new Promise((resolve) => setTimeout(resolve, 50));
 * await assert.rejects(reader.read(), ExportStalledError);
 * assert.equal(ended, 1);
 * ```
 */
export function watchedExport(
  source: ReadableStream<Uint8Array>,
  { stallTimeoutMs, onEnd }: WatchOptions,
): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let ended = false;
  const end = () => {
    clearTimeout(timer);
    if (ended) return;
    ended = true;
    onEnd();
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      clearTimeout(timer);
      let result: ReadableStreamReadResult<Uint8Array>;
      try {
        result = await reader.read();
      } catch (error) {
        end();
        throw error;
      }
      if (result.done) {
        end();
        controller.close();
        return;
      }
      controller.enqueue(result.value);
      timer = setTimeout(() => {
        const stalled = new ExportStalledError(stallTimeoutMs);
        end();
        controller.error(stalled);
        reader.cancel(stalled).catch(() => {});
      }, stallTimeoutMs);
    },
    cancel(reason) {
      end();
      return reader.cancel(reason);
    },
  }, { highWaterMark: 0 });
}
