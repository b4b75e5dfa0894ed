/**
 * The observing step: reports each request, once its answer is over, to the
 * access log and to OpenTelemetry.
 *
 * @module
 */
import type {
  AbortCause,
  Context,
  Middleware,
  Next,
  WatchedBody,
} from "../http/mod.ts";
import {
  type FinishedRequest,
  isoTimeNow,
  type RequestFinishedListener,
} from "./finished_request.ts";
import type { RequestTelemetry, TracedRequest } from "./request_telemetry.ts";

/** Options of {@linkcode observeRequests}; at least one is set. */
export interface ObserveOptions {
  /** Told of each finished request (the access log). */
  onRequestFinished: RequestFinishedListener | undefined;
  /**
   * Traces each request and records its metrics; while it is still a
   * promise (`loadRequestTelemetry`), requests wait for it.
   */
  telemetry: RequestTelemetry | Promise<RequestTelemetry> | undefined;
}

/**
 * Observes each request: runs the rest of the pipeline under the request's
 * span, then, once the answer is over (for a whole body: once it is built;
 * for a streamed export: when its last byte was handed over, or the client
 * went away), ends the span and tells `onRequestFinished`, reading the
 * route, the project, the error code and the body's length on the context.
 *
 * @param options The listener and the telemetry.
 * @returns The step.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Context } from "../http/context.ts";
 * import type { FinishedRequest } from "./finished_request.ts";
 * import { observeRequests } from "./observe.ts";
 *
 * const finished: FinishedRequest[] = [];
 * const step = observeRequests({
 *   onRequestFinished: (request) => finished.push(request),
 *   telemetry: undefined,
 * });
 * const context = new Context(new Request("http://api.test/healthz"));
 * await step(context, () => Promise.resolve(context.json({ status: "ok" })));
 * assert.equal(finished[0]?.path, "/healthz");
 * assert.equal(finished[0]?.bytes, 15);
 * ```
 */
export function observeRequests(options: ObserveOptions): Middleware {
  const { onRequestFinished } = options;
  let telemetry = options.telemetry instanceof Promise
    ? undefined
    : options.telemetry;
  const loading = options.telemetry instanceof Promise
    ? options.telemetry.then((loaded) => (telemetry = loaded))
    : undefined;
  // Not async, and one callback a request: for a whole body, no closure
  // waits for its end (nor a scope for one).
  const finish = (
    context: Context,
    response: Response,
    time: string,
    traced: TracedRequest | undefined,
    bytes: number,
    aborted?: AbortCause,
  ) => {
    // Read once: on Bun and Deno a call into the runtime.
    const { status } = response;
    // A 422 HTTPValidationError has no code of its own.
    const errorCode = context.errorCode ??
      (status === 422 ? "VALIDATION_ERROR" : undefined);
    traced?.end({
      route: context.route?.pattern,
      status,
      bytes,
      aborted,
      errorCode,
    });
    if (onRequestFinished === undefined) return;
    const { request } = context;
    const finished: FinishedRequest = {
      time,
      requestId: context.requestId,
      method: request.method,
      path: context.pathname,
      status,
      durationMs: Math.round((performance.now() - context.startedAt) * 1000) /
        1000,
      bytes,
    };
    const projectId = context.grant?.projectId;
    if (projectId !== undefined) finished.projectId = projectId;
    if (errorCode !== undefined) finished.errorCode = errorCode;
    if (aborted !== undefined) finished.aborted = aborted;
    if (traced?.traceId !== undefined) finished.traceId = traced.traceId;
    onRequestFinished(finished);
  };
  const finishOnEnd = (
    context: Context,
    response: Response,
    time: string,
    traced: TracedRequest | undefined,
    body: WatchedBody,
  ) =>
    body.onEnd((bytes, aborted) =>
      finish(context, response, time, traced, bytes, aborted)
    );
  const observe = (context: Context, next: Next, time: string) => {
    const traced = telemetry?.start(context.request);
    return (traced === undefined ? next() : traced.run(next)).then(
      (response) => {
        const body = context.watchedBody;
        if (body === undefined) {
          finish(context, response, time, traced, context.bodyLength ?? 0);
        } else finishOnEnd(context, response, time, traced, body);
        return response;
      },
    );
  };
  const observeLoaded = (context: Context, next: Next, time: string) =>
    loading!.then(() => observe(context, next, time));
  return (context, next) => {
    const time = isoTimeNow();
    return telemetry === undefined && loading !== undefined
      ? observeLoaded(context, next, time)
      : observe(context, next, time);
  };
}
