/**
 * The hardening headers every answer carries, as the OWASP REST Security
 * Cheat Sheet asks of API responses: `X-Content-Type-Options: nosniff` on all
 * of them, and `Cache-Control: no-store` on what a token (or the mock's
 * control API) gave access to, so that no browser or shared cache keeps a
 * transcript, a ZIP or an error about a token.
 *
 * @module
 */

/**
 * The headers of every answer: browsers must not guess another type than
 * the `Content-Type` sent.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PUBLIC_HEADERS } from "./hardening_headers.ts";
 *
 * assert.equal(PUBLIC_HEADERS["x-content-type-options"], "nosniff");
 * ```
 */
export const PUBLIC_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "x-content-type-options": "nosniff",
});

/**
 * The headers of every answer of a route that needs a token (JSON, ZIP and
 * errors alike): {@linkcode PUBLIC_HEADERS}, and nothing may be stored.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PRIVATE_HEADERS } from "./hardening_headers.ts";
 *
 * assert.equal(PRIVATE_HEADERS["cache-control"], "no-store");
 * assert.equal(PRIVATE_HEADERS["x-content-type-options"], "nosniff");
 * ```
 */
export const PRIVATE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  ...PUBLIC_HEADERS,
  "cache-control": "no-store",
});

/**
 * The headers of an answer no step added to: its `Content-Type` (if any),
 * {@linkcode PRIVATE_HEADERS} or {@linkcode PUBLIC_HEADERS}, and
 * `X-Request-Id`, in that order. Written out as object literals: built a
 * request, that is several times cheaper than spreading the constants into
 * a new object (about 0.01 against 0.07 µs on Bun and Node).
 *
 * @param privately Whether the answer carries `Cache-Control: no-store`.
 * @param requestId The request id.
 * @param contentType The answer's `Content-Type`; none for an empty answer.
 * @returns A new record.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { answerHeaders, PRIVATE_HEADERS, PUBLIC_HEADERS } from "./hardening_headers.ts";
 *
 * assert.deepEqual(
 *   Object.entries(answerHeaders(true, "r-1", "application/json")),
 *   Object.entries({
 *     "content-type": "application/json",
 *     ...PRIVATE_HEADERS,
 *     "x-request-id": "r-1",
 *   }),
 * );
 * assert.deepEqual(
 *   Object.entries(answerHeaders(false, "r-1")),
 *   Object.entries({ ...PUBLIC_HEADERS, "x-request-id": "r-1" }),
 * );
 * ```
 */
export function answerHeaders(
  privately: boolean,
  requestId: string,
  contentType?: string,
): Record<string, string> {
  if (contentType === undefined) {
    return privately
      ? {
        "x-content-type-options": "nosniff",
        "cache-control": "no-store",
        "x-request-id": requestId,
      }
      : { "x-content-type-options": "nosniff", "x-request-id": requestId };
  }
  return privately
    ? {
      "content-type": contentType,
      "x-content-type-options": "nosniff",
      "cache-control": "no-store",
      "x-request-id": requestId,
    }
    : {
      "content-type": contentType,
      "x-content-type-options": "nosniff",
      "x-request-id": requestId,
    };
}
