/**
 * The error type that renders FastAPI's HTTPValidationError (Pydantic v2 form).
 *
 * @module
 */

/** One entry of an HTTPValidationError's `detail`, as Pydantic v2 reports it. */
export interface ValidationIssue {
  /** Pydantic's error type, e.g. `missing`, `too_short`, `uuid_parsing`. */
  type: string;
  /** Where the error is: `["body", "call_ids", 3]`, `["path", "flow_id"]`. */
  loc: (string | number)[];
  /** Pydantic's message, e.g. `Field required`. */
  msg: string;
  /** The offending input. */
  input: unknown;
  /** Extra context, present for some types only. */
  ctx?: Record<string, unknown>;
}

/** The HTTPValidationError body. */
export interface HttpValidationErrorBody {
  /** Every violation found, in the order Pydantic reports them. */
  detail: ValidationIssue[];
}

/**
 * A request that failed validation: renders as 422 with every violation found.
 *
 * @example Reporting a missing body
 * ```ts
 * import assert from "node:assert/strict";
 * import { RequestValidationError } from "./_request_validation_error.ts";
 *
 * const error = new RequestValidationError([
 *   { type: "missing", loc: ["body"], msg: "Field required", input: null },
 * ]);
 * const response = error.toResponse();
 * assert.equal(response.status, 422);
 * assert.deepEqual(await response.json(), {
 *   detail: [
 *     { type: "missing", loc: ["body"], msg: "Field required", input: null },
 *   ],
 * });
 * ```
 */
export class RequestValidationError extends Error {
  /** Every violation found, in the order Pydantic reports them. */
  readonly issues: ValidationIssue[];

  /**
   * Creates the error for the violations found.
   *
   * @param issues The violations, at least one.
   */
  constructor(issues: ValidationIssue[]) {
    super(`Request validation failed: ${issues.length} error(s)`);
    this.name = "RequestValidationError";
    this.issues = issues;
  }

  /** The HTTPValidationError body of this error. */
  toJSON(): HttpValidationErrorBody {
    return { detail: this.issues };
  }

  /**
   * Renders the error as a 422 JSON response.
   *
   * @param headers More headers to send, e.g. the request id.
   */
  toResponse(headers?: Readonly<Record<string, string>>): Response {
    return Response.json(this.toJSON(), {
      status: 422,
      headers: { ...headers },
    });
  }
}
