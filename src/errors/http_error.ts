/**
 * The one error type that renders itself as an ErrorResponseSchema body.
 *
 * @module
 */

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

/** `Error.captureStackTrace` where the engine has it (V8, JavaScriptCore). */
const captureStackTrace = (Error as {
  captureStackTrace?: (target: object, constructor: unknown) => void;
}).captureStackTrace;

/**
 * An HTTP error with an ErrorResponseSchema body. Throw it anywhere in the
 * handler; the handler answers with it (see `Context.error`). A 5xx keeps
 * its stack for the log; a 4xx has none.
 *
 * @example Refusing an unknown flow
 * ```ts
 * import assert from "node:assert/strict";
 * import { HttpError } from "./http_error.ts";
 *
 * const error = new HttpError(404, "FLOW_NOT_FOUND", "Flow not found");
 * assert.ok(error instanceof Error);
 * assert.equal(error.stack, undefined);
 * const response = error.toResponse();
 * assert.equal(response.status, 404);
 * assert.deepEqual(await response.json(), {
 *   status: "error",
 *   error_code: "FLOW_NOT_FOUND",
 *   message: "Flow not found",
 * });
 * assert.ok(new HttpError(500, "INTERNAL_SERVER_ERROR", "boom").stack);
 * ```
 */
export interface HttpError extends Error {}
/** An HTTP error with an ErrorResponseSchema body (see the interface). */
export class HttpError {
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
    this.name = "HttpError";
    this.message = message;
    if (options.cause !== undefined) this.cause = options.cause;
    this.status = status;
    this.errorCode = errorCode;
    this.headers = options.headers;
    if (status >= 500) captureStackTrace?.(this, new.target);
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
   * The ErrorResponseSchema body of this error as JSON text: what
   * `JSON.stringify(error)` gives, without calling `toJSON` through it,
   * which costs several times the text on Bun and Deno.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { HttpError } from "./http_error.ts";
   *
   * const error = new HttpError(404, "X_NOT_FOUND", 'No "x" \u00e9\n');
   * assert.equal(error.toJSONText(), JSON.stringify(error));
   * ```
   */
  toJSONText(): string {
    return `{"status":"error","error_code":${
      JSON.stringify(this.errorCode)
    },"message":${JSON.stringify(this.message)}}`;
  }

  /**
   * This error's own headers (e.g. `Allow`), as a record with lowercase
   * names.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { HttpError } from "./http_error.ts";
   *
   * const error = new HttpError(405, "METHOD_NOT_ALLOWED", "No", {
   *   headers: { Allow: "GET" },
   * });
   * assert.deepEqual(error.headerRecord(), { allow: "GET" });
   * ```
   */
  headerRecord(): Record<string, string> | undefined {
    return headerRecord(this.headers);
  }

  /**
   * Renders the error as a JSON response.
   *
   * @param headers More headers to send, e.g. the request id.
   */
  toResponse(headers?: Readonly<Record<string, string>>): Response {
    return Response.json(this, {
      status: this.status,
      headers: { ...headerRecord(this.headers), ...headers },
    });
  }
}

// An `Error` (`instanceof`, `name`, `message`, `cause`, how consoles print
// it) that captures no stack unless asked: its constructor is not `Error`'s.
// A 4xx is an expected answer, not a bug: its stack would never be read, and
// capturing one is most of a 404's cost on Node (bench/README.md).
Object.setPrototypeOf(HttpError.prototype, Error.prototype);

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
