/**
 * What the handler reports about each request once its response is over: the
 * raw material of an access log. Runtime-free: the server entries decide
 * where the lines go (see `src/telemetry/access_log.ts`).
 *
 * @module
 */
import type { AbortCause } from "../http/mod.ts";

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
