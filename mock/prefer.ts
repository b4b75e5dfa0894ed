/**
 * Prism's per-request `Prefer: code=<status>`: a test asks for one of the
 * statuses the OpenAPI document defines for the operation.
 *
 * @module
 */
import { HttpError } from "../src/http/mod.ts";
import { RequestValidationError } from "../src/validation/mod.ts";
import { defaultErrorCode } from "./faults.ts";
import type { OperationInfo } from "./operations.ts";

/**
 * The status a `Prefer` header asks for with `code=`, or `undefined`.
 *
 * @param header The `Prefer` header's value.
 * @returns The status, or `undefined` when there is no `code=` preference.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { preferredCode } from "./prefer.ts";
 *
 * assert.equal(preferredCode("code=404"), 404);
 * assert.equal(preferredCode("respond-async, code=\"503\""), 503);
 * assert.equal(preferredCode("respond-async"), undefined);
 * ```
 */
export function preferredCode(header: string | null): number | undefined {
  if (header === null) return undefined;
  for (const part of header.split(/[,;]/)) {
    const match = /^\s*code\s*=\s*"?(\d{3})"?\s*$/i.exec(part);
    if (match !== null) return Number(match[1]);
  }
  return undefined;
}

/**
 * The error `Prefer: code=<status>` asks an operation to answer with:
 * `undefined` for a 2xx status (the request is answered normally); for an
 * error status the operation defines, an example of it (ErrorResponseSchema
 * with the `error_code` the document names, or an HTTPValidationError for
 * 422); 400 `PREFER_CODE_NOT_DEFINED` for a status the operation does not
 * define.
 *
 * @param operation The request's operation.
 * @param status The status asked for.
 * @returns The error to answer with, or `undefined` to answer normally.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { HttpError } from "../src/errors/http_error.ts";
import { RequestValidationError } from "../src/validation/mod.ts";
 * import { findOperation } from "./operations.ts";
 * import { preferredError } from "./prefer.ts";
 *
 * const operation = findOperation("GET", "/v1/call/42/message")!;
 * const error = preferredError(operation, 404);
 * assert.ok(error instanceof HttpError);
 * assert.equal(error.errorCode, "CALL_NOT_FOUND");
 * assert.equal(preferredError(operation, 200), undefined);
 * ```
 */
export function preferredError(
  operation: OperationInfo,
  status: number,
): HttpError | RequestValidationError | undefined {
  const description = operation.responses.get(status);
  if (description === undefined) {
    const defined = [...operation.responses.keys()].join(", ");
    return new HttpError(
      400,
      "PREFER_CODE_NOT_DEFINED",
      `Prefer: code=${status} is not a status ${operation.operationId} defines (${defined})`,
    );
  }
  if (status < 300) return undefined;
  if (status === 422) {
    return new RequestValidationError([{
      type: "missing",
      loc: ["body"],
      msg: "Field required",
      input: null,
    }]);
  }
  const code = /`([A-Z][A-Z0-9_]*)`/.exec(description)?.[1] ??
    defaultErrorCode(status);
  return new HttpError(status, code, description, {
    headers: status === 401 ? { "www-authenticate": "Bearer" } : {},
  });
}
