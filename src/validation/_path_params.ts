/**
 * Validation of UUID path parameters as FastAPI does it for a parameter
 * annotated `UUID`: Pydantic's lax UUID validation of the (percent-decoded)
 * segment, reported as a one-error HTTPValidationError at `["path", name]`.
 *
 * @module
 */

import { RequestValidationError } from "./_request_validation_error.ts";
import { parseUuid } from "./_uuid.ts";

/**
 * Validates a UUID path parameter and returns it in canonical form.
 *
 * @param name The parameter's name, e.g. `integration_id`.
 * @param value The path segment, already percent-decoded.
 * @returns The lowercase hyphenated UUID.
 * @throws {RequestValidationError} A `uuid_parsing` error at
 * `["path", name]` with the `uuid` crate's explanation (422).
 *
 * @example Accepting a braced UUID and refusing a short one
 * ```ts
 * import assert from "node:assert/strict";
 * import { parsePathUuid } from "./_path_params.ts";
 * import { RequestValidationError } from "./_request_validation_error.ts";
 *
 * assert.equal(
 *   parsePathUuid("integration_id", "{0B6F1C2E-8D3A-4C55-9A57-3E3C2D1F0A11}"),
 *   "0b6f1c2e-8d3a-4c55-9a57-3e3c2d1f0a11",
 * );
 * assert.throws(
 *   () => parsePathUuid("integration_id", "42"),
 *   (error) =>
 *     error instanceof RequestValidationError &&
 *     error.issues[0]!.msg ===
 *       "Input should be a valid UUID, invalid length: found 2",
 * );
 * ```
 */
export function parsePathUuid(name: string, value: string): string {
  const result = parseUuid(value);
  if (result.ok) return result.uuid;
  throw new RequestValidationError([{
    type: "uuid_parsing",
    loc: ["path", name],
    msg: `Input should be a valid UUID, ${result.error}`,
    input: value,
    ctx: { error: result.error },
  }]);
}
