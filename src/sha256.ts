/**
 * Bearer tokens are kept as SHA-256 digests, never in clear.
 *
 * @module
 */

const encoder = new TextEncoder();

/**
 * The lowercase hex SHA-256 digest of a token.
 *
 * @example
 * ```ts
 * import { hashToken } from "./sha256.ts";
 *
 * await hashToken("abc");
 * // "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
 * ```
 */
export async function hashToken(token: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", encoder.encode(token));
  return Array.from(
    new Uint8Array(digest),
    (byte) => byte.toString(16).padStart(2, "0"),
  ).join("");
}
