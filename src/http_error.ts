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

/**
 * An HTTP error with an ErrorResponseSchema body. Throw it anywhere in the
 * handler; the handler answers with {@linkcode HttpError.toResponse}.
 *
 * @example Refusing an unknown flow
 * ```ts
 * import { HttpError } from "./http_error.ts";
 *
 * const error = new HttpError(404, "FLOW_NOT_FOUND", "Flow not found");
 * const response = error.toResponse();
 * console.log(response.status); // 404
 * console.log(await response.json());
 * // { status: "error", error_code: "FLOW_NOT_FOUND", message: "Flow not found" }
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
    super(message, { cause: options.cause });
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

  /** Renders the error as a JSON response. */
  toResponse(): Response {
    const headers = new Headers(this.headers);
    headers.set("content-type", "application/json");
    return new Response(JSON.stringify(this.toJSON()), {
      status: this.status,
      headers,
    });
  }
}
