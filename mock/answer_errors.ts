/**
 * The mock's one error style: its parts throw {@linkcode HttpError} (or the
 * 422 {@linkcode RequestValidationError}), and the handler they make answers
 * it with the error's own response, as the API's handler does.
 *
 * @module
 */
import type { Handler } from "../src/handler.ts";
import { HttpError } from "../src/http/http_error.ts";
import { RequestValidationError } from "../src/validation/mod.ts";

/**
 * A handler that answers an {@linkcode HttpError} or
 * {@linkcode RequestValidationError} thrown by `handler` with the error's
 * response; anything else it throws goes on.
 *
 * @param handler A handler that throws its error answers.
 * @param headers More headers to send with each error answer.
 * @returns The handler that answers them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { HttpError } from "../src/http/http_error.ts";
 * import { answerErrors } from "./answer_errors.ts";
 *
 * const handler = answerErrors(() => {
 *   throw new HttpError(404, "FAULT_NOT_FOUND", "No fault fault-9");
 * });
 * const response = await handler(new Request("http://mock/"));
 * assert.equal(response.status, 404);
 * assert.equal((await response.json()).error_code, "FAULT_NOT_FOUND");
 * ```
 */
export function answerErrors(
  handler: Handler,
  headers?: Readonly<Record<string, string>>,
): Handler {
  return async (request) => {
    try {
      return await handler(request);
    } catch (error) {
      return errorAnswer(error, headers);
    }
  };
}

/**
 * The response of a thrown {@linkcode HttpError} or
 * {@linkcode RequestValidationError}; anything else is thrown again.
 *
 * @param error What was thrown.
 * @param headers More headers to send with it (e.g. CORS headers).
 * @returns The error's response.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { HttpError } from "../src/http/http_error.ts";
 * import { errorAnswer } from "./answer_errors.ts";
 *
 * const response = errorAnswer(new HttpError(503, "SERVICE_UNAVAILABLE", "Down"));
 * assert.equal(response.status, 503);
 * assert.throws(() => errorAnswer(new TypeError("a bug")), TypeError);
 * ```
 */
export function errorAnswer(
  error: unknown,
  headers?: Readonly<Record<string, string>>,
): Response {
  if (error instanceof HttpError || error instanceof RequestValidationError) {
    return error.toResponse(headers);
  }
  throw error;
}
