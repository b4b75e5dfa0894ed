/**
 * SHA-256 as lowercase hex: how bearer tokens are kept (never in clear) and how
 * migrations are checksummed.
 *
 * @module
 */

const encoder = new TextEncoder();

/**
 * The lowercase hex SHA-256 digest of a text's UTF-8 bytes.
 *
 * @param text Any text.
 * @returns 64 lowercase hex digits.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sha256Hex } from "./sha256.ts";
 *
 * assert.equal(
 *   await sha256Hex("abc"),
 *   "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
 * );
 * ```
 */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", encoder.encode(text));
  return Array.from(
    new Uint8Array(digest),
    (byte) => byte.toString(16).padStart(2, "0"),
  ).join("");
}

/**
 * The digest a store keeps for a bearer token (its {@linkcode sha256Hex}),
 * and looks grants up by.
 *
 * @param token The token as clients send it after `Bearer `.
 * @returns 64 lowercase hex digits.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { hashToken } from "./sha256.ts";
 *
 * assert.equal(
 *   await hashToken("abc"),
 *   "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
 * );
 * ```
 */
export function hashToken(token: string): Promise<string> {
  return sha256Hex(token);
}
