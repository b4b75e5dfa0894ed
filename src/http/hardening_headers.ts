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
