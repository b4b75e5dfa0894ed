/**
 * The one error type that renders itself as an ErrorResponseSchema body.
 *
 * @module
 */
import { json } from "./responses.ts";

/** The body of every error response but request validation's. */
export interface ErrorResponseBody {
  /** Always `"error"`. */
  status: "error";
  /** The machine-readable SCREAMING_SNAKE_CASE code, e.g. `FLOW_NOT_FOUND`. */
  error_code: string;
  /** The human-readable detail. */
  message: string;
}

/** Options of {@linkcode HttpError}. */
export interface HttpErrorOptions {
  /** Extra response headers, e.g. `Allow` or `WWW-Authenticate`. */
  headers?: HeadersInit;
  /** The underlying failure, kept for the server log, never sent. */
  cause?: unknown;
}

/**
 * An HTTP error with an ErrorResponseSchema body. Throw it anywhere in the
 * handler; the handler answers with {@linkcode HttpError.toResponse}.
 *
 * @example Refusing an unknown flow
 * ```ts
 * import assert from "node:assert/strict";
 * import { HttpError } from "./http_error.ts";
 *
 * const error = new HttpError(404, "FLOW_NOT_FOUND", "Flow not found");
 * const response = error.toResponse();
 * assert.equal(response.status, 404);
 * assert.deepEqual(await response.json(), {
 *   status: "error",
 *   error_code: "FLOW_NOT_FOUND",
 *   message: "Flow not found",
 * });
 * ```
 */
export class HttpError extends Error {
  /** The HTTP status code. */
  readonly status: number;
  /** The machine-readable SCREAMING_SNAKE_CASE code. */
  readonly errorCode: string;
  /** Extra response headers. */
  readonly headers: HeadersInit | undefined;

  /**
   * Creates an error that renders with the given status and body.
   *
   * @param status The HTTP status code.
   * @param errorCode The machine-readable error code.
   * @param message The human-readable detail sent to the client.
   * @param options Extra headers and the cause.
   */
  constructor(
    status: number,
    errorCode: string,
    message: string,
    options: HttpErrorOptions = {},
  ) {
    // A 4xx is an expected answer, not a bug: its stack would never be read,
    // and capturing one is most of a 404's cost on Node (bench/README.md). A
    // 5xx keeps it. `stackTraceLimit` is V8's and JavaScriptCore's, not in the
    // ES or DOM types the core is checked against; elsewhere it is harmless.
    const limits = Error as { stackTraceLimit?: number | undefined };
    const stackTraceLimit = limits.stackTraceLimit;
    if (status < 500) limits.stackTraceLimit = 0;
    super(message, { cause: options.cause });
    limits.stackTraceLimit = stackTraceLimit;
    this.name = "HttpError";
    this.status = status;
    this.errorCode = errorCode;
    this.headers = options.headers;
  }

  /** The ErrorResponseSchema body of this error. */
  toJSON(): ErrorResponseBody {
    return {
      status: "error",
      error_code: this.errorCode,
      message: this.message,
    };
  }

  /**
   * Renders the error as a JSON response, which carries its `error_code` for
   * {@linkcode errorCodeOfResponse}.
   *
   * @param headers More headers to send, e.g. the request id.
   */
  toResponse(headers?: Readonly<Record<string, string>>): Response {
    const response: Coded = json(this, this.status, {
      ...headerRecord(this.headers),
      ...headers,
    });
    response[ERROR_CODE] = this.errorCode;
    return response;
  }
}

/**
 * Where a response {@linkcode HttpError} rendered keeps its `error_code`: a
 * property under a private symbol (cheaper than a WeakMap entry).
 */
const ERROR_CODE = Symbol("errorCode");

/** A response carrying its `error_code`. */
type Coded = Response & { [ERROR_CODE]?: string };

/**
 * The `error_code` a response was rendered with by {@linkcode HttpError},
 * read without touching its body (e.g. by the mock's journal).
 *
 * @param response Any response.
 * @returns The code, or `undefined` for a response HttpError did not render.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { errorCodeOfResponse, HttpError } from "./http_error.ts";
 *
 * const error = new HttpError(404, "FLOW_NOT_FOUND", "Flow not found");
 * assert.equal(errorCodeOfResponse(error.toResponse()), "FLOW_NOT_FOUND");
 * assert.equal(errorCodeOfResponse(new Response("{}")), undefined);
 * ```
 */
export function errorCodeOfResponse(response: Response): string | undefined {
  return (response as Coded)[ERROR_CODE];
}

/** Headers as a plain record with lowercase names. */
function headerRecord(
  headers: HeadersInit | undefined,
): Record<string, string> | undefined {
  if (headers === undefined) return undefined;
  if (headers instanceof Headers || Array.isArray(headers)) {
    return Object.fromEntries(new Headers(headers));
  }
  const record: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    record[name.toLowerCase()] = value;
  }
  return record;
}
