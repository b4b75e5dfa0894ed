/**
 * How the pipeline answers what a step throws (see `compose`).
 *
 * @module
 */
import type { Context } from "./context.ts";
import { HttpError } from "../errors/mod.ts";
import type { ErrorRenderer } from "./pipeline.ts";
import { ClientGoneError } from "./request_body.ts";
import { RequestValidationError } from "../validation/mod.ts";

/** Where the handler reports failures it answered with a 500. */
export type ErrorLogger = (requestId: string, error: unknown) => void;

/** Where the handler notes what is not a failure of its own, in one line. */
export type InfoLogger = (requestId: string, message: string) => void;

/** Where {@linkcode errorRenderer} reports what it renders. */
export interface ErrorLoggers {
  /** Unexpected failures, answered with a generic 500. */
  logError: ErrorLogger;
  /** A client that went away mid-request (or missed the body deadline). */
  logInfo: InfoLogger;
}

/**
 * Renders what a step throws: an `HttpError` as its ErrorResponseSchema
 * body, a `RequestValidationError` as HTTPValidationError, anything else as
 * a generic 500 whose detail goes to `logError` only, each through
 * `Context.error` (which closes the connection after an answer that leaves
 * a large request body unread).
 *
 * @param loggers Where failures and departed clients are noted.
 * @returns The renderer.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Context } from "./context.ts";
 * import { errorRenderer } from "./render_error.ts";
 *
 * const logged: unknown[] = [];
 * const render = errorRenderer({
 *   logError: (_id, error) => logged.push(error),
 *   logInfo: () => {},
 * });
 * const context = new Context(new Request("http://api.test/"));
 * const response = render(context, new TypeError("bug"));
 * assert.equal(response.status, 500);
 * assert.equal(context.errorCode, "INTERNAL_SERVER_ERROR");
 * assert.equal(logged.length, 1);
 * ```
 */
export function errorRenderer(loggers: ErrorLoggers): ErrorRenderer {
  const { logError, logInfo } = loggers;
  return (context: Context, error: unknown): Response => {
    const { requestId } = context;
    if (error instanceof ClientGoneError) {
      logInfo(requestId, `client went away: ${error.detail}`);
    }
    if (error instanceof HttpError || error instanceof RequestValidationError) {
      return context.error(error);
    }
    logError(requestId, error);
    return context.error(
      new HttpError(
        500,
        "INTERNAL_SERVER_ERROR",
        `An unexpected error occurred (request id ${requestId})`,
      ),
    );
  };
}
