/**
 * `sha256Hex` gives SHA-256's digest of the UTF-8 bytes on every runtime:
 * Bun's `CryptoHasher` and Web Crypto alike, so that a token or migration
 * hashed by one runtime is found by another.
 *
 * @module
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { sha256Hex } from "../src/store/sha256.ts";

describe("sha256Hex", () => {
  it("gives the standard digests, of UTF-8 bytes", async () => {
    const cases: [string, string][] = [
      ["", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"],
      [
        "abc",
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
      ],
      // é (2 bytes), ☃ (3) and 𝄞 (4, a surrogate pair in JavaScript).
      [
        "héllo ☃ 𝄞",
        "e97286d7e93b484336f7250c138e11c09b46b7dfbde835ab391a12165f4b365a",
      ],
      // A lone surrogate is hashed as U+FFFD, as TextEncoder writes it.
      [
        "a\ud800b",
        "05087813392efc16fe8ff448920c6328e53af865df39419436659d9ffda90f7b",
      ],
    ];
    for (const [text, digest] of cases) {
      assert.equal(await sha256Hex(text), digest, JSON.stringify(text));
    }
    assert.equal(await sha256Hex("a\ud800b"), await sha256Hex("a\ufffdb"));
  });
});
