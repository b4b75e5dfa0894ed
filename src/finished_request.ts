/**
 * What the handler reports about each request once its response is over: the
 * raw material of an access log. Runtime-free: the server entries decide
 * where the lines go (see `src/access_log.ts`).
 *
 * @module
 */

/** How a response body ended before it was complete. */
export type AbortCause =
  /** The client stopped reading: it disconnected or cancelled the body. */
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
}

/** Receives each finished request (see `HandlerOptions.onRequestFinished`). */
export type RequestFinishedListener = (request: FinishedRequest) => void;

/**
 * Passes a response on with its body counted: `onEnd` is called once, with
 * the bytes read from the body, when the body ends, fails or is cancelled
 * (a response without a body ends at once). The body is pulled only as the
 * consumer reads, so a streamed export keeps its backpressure.
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
 * const response = countBody(new Response("hello"), (bytes) => counted = bytes);
 * assert.equal(await response.text(), "hello");
 * assert.equal(counted, 5);
 * ```
 */
export function countBody(
  response: Response,
  onEnd: (bytes: number, aborted: AbortCause | undefined) => void,
): Response {
  const source = response.body;
  if (source === null) {
    onEnd(0, undefined);
    return response;
  }
  const reader = source.getReader();
  let bytes = 0;
  let ended = false;
  const end = (aborted: AbortCause | undefined) => {
    if (ended) return;
    ended = true;
    onEnd(bytes, aborted);
  };
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let result: ReadableStreamReadResult<Uint8Array>;
      try {
        result = await reader.read();
      } catch (error) {
        end("error");
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
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}
