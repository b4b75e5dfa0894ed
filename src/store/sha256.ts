/**
 * SHA-256 as lowercase hex: how bearer tokens are kept (never in clear) and how
 * migrations are checksummed.
 *
 * @module
 */

const encoder = new TextEncoder();

/** Bun's own synchronous hasher, where there is one. */
interface BunHasher {
  update(text: string): BunHasher;
  digest(encoding: "hex"): string;
}

/**
 * Bun's `CryptoHasher`: Web Crypto's first digest there costs about 0.5 ms
 * of CPU and each further one a promise, which a start's seeding pays.
 */
const BunCryptoHasher = (globalThis as {
  Bun?: { CryptoHasher: new (algorithm: "sha256") => BunHasher };
}).Bun?.CryptoHasher;

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
  if (BunCryptoHasher !== undefined) {
    return new BunCryptoHasher("sha256").update(text).digest("hex");
  }
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
