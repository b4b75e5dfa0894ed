/**
 * The FastAPI compatibility layer: validation of requests exactly as FastAPI
 * 0.142 with Pydantic v2 validates them, reported as its HTTPValidationError
 * (422). This is the whole interface the rest of the project uses; the
 * modules prefixed `_` (CPython's JSON scanner, the `uuid` crate's parser,
 * the bulk body model) are private to it, and the layer could be replaced or
 * dropped behind these few exports.
 *
 * - {@linkcode parseBulkRequest}: the body of `POST /v1/call/message/bulk`;
 * - {@linkcode parsePathUuid}: a UUID path parameter;
 * - {@linkcode parseUuid}: a UUID as Pydantic reads one, for fixtures;
 * - {@linkcode RequestValidationError}: what the first two throw.
 *
 * `scripts/fastapi_differential.py` compares the layer with FastAPI itself.
 *
 * @example Validating a bulk body and a path parameter
 * ```ts
 * import assert from "node:assert/strict";
 * import {
 *   parseBulkRequest,
 *   parsePathUuid,
 *   RequestValidationError,
 * } from "./mod.ts";
 *
 * const body = new TextEncoder().encode('{"call_ids": []}');
 * assert.throws(
 *   () => parseBulkRequest(body, "application/json"),
 *   (error) =>
 *     error instanceof RequestValidationError &&
 *     error.issues[0]!.type === "too_short",
 * );
 * assert.equal(
 *   parsePathUuid("flow_id", "0B6F1C2E8D3A4C559A573E3C2D1F0A11"),
 *   "0b6f1c2e-8d3a-4c55-9a57-3e3c2d1f0a11",
 * );
 * ```
 *
 * @module
 */

export { parseBulkRequest } from "./_bulk_request.ts";
export { parsePathUuid } from "./_path_params.ts";
export { parseUuid } from "./_uuid.ts";
export { unquote } from "./_unquote.ts";
export type { UuidParseResult } from "./_uuid.ts";
export { RequestValidationError } from "./_request_validation_error.ts";
export type {
  HttpValidationErrorBody,
  ValidationIssue,
} from "./_request_validation_error.ts";
