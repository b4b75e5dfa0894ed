/**
 * What the handler reports about each request once its response is over: the
 * raw material of an access log. Runtime-free: the server entries decide
 * where the lines go (see `src/access_log.ts`).
 *
 * @module
 */

import { ExportStalledError } from "./operations/stall_watch.ts";

/** How a response body ended before it was complete. */
export type AbortCause =
  /**
   * The client stopped reading: it disconnected, cancelled the body, or read
   * nothing for the export stall deadline.
   */
  | "client"
  /** The server aborted it: the store failed midway through an export. */
  | "error";

/** One finished request, as reported to `onRequestFinished`. */
export interface FinishedRequest {
  /** When the request arrived, ISO 8601 in UTC. */
  time: string;
  /** The request id sent back in `X-Request-Id`. */
  requestId: string;
  /** The request method. */
  method: string;
  /** The URL's path, still percent-encoded; never the query string. */
  path: string;
  /** The response status. */
  status: number;
  /** From the request's arrival to the body's last byte (or its abort). */
  durationMs: number;
  /** Body bytes actually handed to the server for sending. */
  bytes: number;
  /** The caller's project, once its token was accepted. */
  projectId?: string;
  /**
   * The `error_code` of an error response; `VALIDATION_ERROR` for a 422
   * HTTPValidationError, which has none of its own.
   */
  errorCode?: string;
  /** Set when the body did not end normally. */
  aborted?: AbortCause;
  /** The OpenTelemetry trace id of the request's span, when one is recorded. */
  traceId?: string;
}

/**
 * The current time in ISO 8601 (UTC), as `new Date().toISOString()` gives
 * it, formatted once per millisecond: at thousands of requests a second,
 * most share their millisecond with the one before.
 *
 * @returns E.g. `2026-01-01T10:00:00.123Z`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isoTimeNow } from "./finished_request.ts";
 *
 * const before = Date.now();
 * const time = Date.parse(isoTimeNow());
 * assert.ok(time >= before && time <= Date.now());
 * ```
 */
export function isoTimeNow(): string {
  const now = Date.now();
  if (now !== lastMillisecond) {
    lastMillisecond = now;
    lastIsoTime = new Date(now).toISOString();
  }
  return lastIsoTime;
}
let lastMillisecond = NaN;
let lastIsoTime = "";

/** Receives each finished request (see `HandlerOptions.onRequestFinished`). */
export type RequestFinishedListener = (request: FinishedRequest) => void;

/**
 * Passes a response on with its body counted: `onEnd` is called once, with
 * the bytes of the body, when the body ends, fails or is cancelled. For a
 * response whose length is not known when it is built (the handler's JSON
 * answers know theirs, see `bodyLengthOf` in `responses.ts`, and never come
 * here). A body that comes whole (its stream ends after one chunk) is
 * counted at once and passed on as bytes, so the server still sends its
 * `Content-Length`; a streamed one (an export) is passed through a counting
 * stream pulled only as the client reads, so it keeps its backpressure and
 * `onEnd` sees the bytes actually handed over.
 *
 * @param response The response to watch.
 * @param onEnd Called once with the byte count and how the body ended.
 * @returns A response with the same status, headers and bytes.
 *
 * @example Counting a body
 * ```ts
 * import assert from "node:assert/strict";
 * import { countBody } from "./finished_request.ts";
 *
 * let counted = -1;
 * const response = await countBody(
 *   new Response("hello"),
 *   (bytes) => counted = bytes,
 * );
 * assert.equal(counted, 5);
 * assert.equal(await response.text(), "hello");
 * ```
 */
export async function countBody(
  response: Response,
  onEnd: (bytes: number, aborted: AbortCause | undefined) => void,
): Promise<Response> {
  const source = response.body;
  if (source === null) {
    onEnd(0, undefined);
    return response;
  }
  const init: ResponseInit = {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  };
  const reader = source.getReader();
  // Two reads tell a whole body (one chunk, then the end) from a stream.
  const read: Uint8Array[] = [];
  let bytes = 0;
  for (let i = 0; i < 2; i++) {
    let result: ReadableStreamReadResult<Uint8Array>;
    try {
      result = await reader.read();
    } catch (error) {
      onEnd(bytes, "error");
      return new Response(failingStream(read, error), init);
    }
    if (result.done) {
      onEnd(bytes, undefined);
      return new Response(read[0] as Uint8Array<ArrayBuffer> | undefined, init);
    }
    read.push(result.value);
    bytes += result.value.byteLength;
  }
  let ended = false;
  const end = (aborted: AbortCause | undefined) => {
    if (ended) return;
    ended = true;
    onEnd(bytes, aborted);
  };
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of read) controller.enqueue(chunk);
    },
    async pull(controller) {
      let result: ReadableStreamReadResult<Uint8Array>;
      try {
        result = await reader.read();
      } catch (error) {
        // A stalled client is cut by the export itself: the client's doing.
        end(error instanceof ExportStalledError ? "client" : "error");
        controller.error(error);
        return;
      }
      if (result.done) {
        controller.close();
        end(undefined);
        return;
      }
      bytes += result.value.byteLength;
      controller.enqueue(result.value);
    },
    cancel(reason) {
      end("client");
      return reader.cancel(reason);
    },
  }, { highWaterMark: 0 });
  return new Response(body, init);
}

/** A stream that gives `chunks`, then fails with `error`. */
function failingStream(
  chunks: Uint8Array[],
  error: unknown,
): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
    },
    pull(controller) {
      controller.error(error);
    },
  });
}
