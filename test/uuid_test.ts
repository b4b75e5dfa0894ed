/**
 * UUID parsing as Pydantic v2 does it: the accepted forms and the `uuid`
 * crate's error texts. Every expected text is what pydantic-core 2.49 (uuid
 * 1.23.4) answers for the same input.
 *
 * @module
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseUuid } from "../src/validation/mod.ts";

const CANONICAL = "0b6f1c2e-8d3a-4c55-9a57-3e3c2d1f0a11";
const H36 = "01234567-89ab-cdef-0123-456789abcdef";

/** Asserts that `text` is refused with the crate's `error`. */
function assertRefused(text: string, error: string): void {
  assert.deepStrictEqual(parseUuid(text), { ok: false, error });
}

describe("parseUuid", () => {
  it("accepts hyphenated, simple, braced and URN forms in any case", () => {
    for (
      const text of [
        CANONICAL,
        CANONICAL.toUpperCase(),
        "0B6f1C2e-8d3A-4c55-9A57-3e3C2d1F0a11",
        CANONICAL.replaceAll("-", ""),
        CANONICAL.replaceAll("-", "").toUpperCase(),
        `{${CANONICAL.toUpperCase()}}`,
        `urn:uuid:${CANONICAL}`,
        `urn:uuid:${CANONICAL.toUpperCase()}`,
      ]
    ) {
      assert.deepStrictEqual(parseUuid(text), { ok: true, uuid: CANONICAL });
    }
  });

  it("refuses an empty text, a wrong simple length and long texts by length", () => {
    assertRefused("", "invalid length: found 0");
    assertRefused("abc", "invalid length: found 3");
    assertRefused(
      `${CANONICAL.replaceAll("-", "")}0`,
      "invalid length: found 33",
    );
    assertRefused("0".repeat(45), "invalid length: found 45");
    assertRefused("0".repeat(46), "invalid length: found 46");
    assertRefused(`urn:uuid:${H36}0`, "invalid length: found 46");
  });

  it("names the first invalid character at its byte position from 0", () => {
    assertRefused("!", "invalid character: found `!` at 0");
    assertRefused("{", "invalid character: found `{` at 0");
    assertRefused("0é", "invalid character: found `é` at 1");
    assertRefused("é0é", "invalid character: found `é` at 0");
    assertRefused("a😀", "invalid character: found `😀` at 1");
    assertRefused(
      "01234567-89ab-cdef-0123-456789abcdéé",
      "invalid character: found `é` at 34",
    );
    assertRefused(
      "URN:UUID:0123456789abcdef0123456789abcdef",
      "invalid character: found `U` at 0",
    );
  });

  it("counts braces and the URN prefix in positions when the length is not the canonical one", () => {
    assertRefused("{x}", "invalid character: found `x` at 1");
    assertRefused("urn:uuid:x", "invalid character: found `x` at 9");
    assertRefused("{é}", "invalid character: found `é` at 1");
  });

  it("explains a 38-byte braced or 45-byte URN candidate from the 36 bytes inside", () => {
    assertRefused(
      "{01234567x89ab-cdef-0123-456789abcdef}",
      "invalid character: found `x` at 8",
    );
    assertRefused(
      "urn:uuid:01234567-89xb-cdef-0123-456789abcdef",
      "invalid character: found `x` at 11",
    );
    assertRefused(
      "{é0123456789abcdef0123456789abcdef01}",
      "invalid character: found `é` at 0",
    );
    assertRefused(
      "{01234567-89ab-cdef-0123-456789abcdefx",
      "invalid character: found `{` at 0",
    );
  });

  it("takes any 36-byte text for a hyphenated UUID", () => {
    assertRefused(
      "0123456789abcdef0123456789abcdef0123",
      "invalid group count: expected 5, found 1",
    );
    assertRefused(
      "{fFDC3B5-A28-3a8C-FFC0-66b07fDB28A5}",
      "invalid character: found `{` at 0",
    );
  });

  it("counts the groups of hyphenated, braced and URN candidates", () => {
    assertRefused(
      "F9168C5E-CEB2-4faa",
      "invalid group count: expected 5, found 3",
    );
    assertRefused("-", "invalid group count: expected 5, found 2");
    assertRefused("{}", "invalid group count: expected 5, found 1");
    assertRefused("urn:uuid:", "invalid group count: expected 5, found 1");
    assertRefused(
      "{0123456789abcdef0123456789abcdef}",
      "invalid group count: expected 5, found 1",
    );
    assertRefused(
      "0123456789abcdef-123456789abcdef",
      "invalid group count: expected 5, found 2",
    );
    assertRefused("-".repeat(36), "invalid group count: expected 5, found 37");
  });

  it("names the first group of the wrong length", () => {
    assertRefused(
      "0123456-89ab-cdef-0123-456789abcdef0",
      "invalid group length in group 0: expected 8, found 7",
    );
    assertRefused(
      "01234567-89ab-cdef-01234-56789abcdef",
      "invalid group length in group 3: expected 4, found 5",
    );
    assertRefused(
      "{012345670-9ab-cdef-0123-456789abcdef}",
      "invalid group length in group 0: expected 8, found 9",
    );
  });

  it("measures a wrong last group on the whole input, braces or prefix included", () => {
    assertRefused(
      `${H36}0`,
      "invalid group length in group 4: expected 12, found 13",
    );
    assertRefused(
      `{${H36}0}`,
      "invalid group length in group 4: expected 12, found 15",
    );
    assertRefused(
      `{${H36.slice(0, -1)}}`,
      "invalid group length in group 4: expected 12, found 13",
    );
    assertRefused(
      `urn:uuid:${H36.slice(0, -1)}`,
      "invalid group length in group 4: expected 12, found 20",
    );
  });

  it("classifies a character by its low byte, as the crate's `as u8` does", () => {
    // U+012D ends in 0x2D ('-'), U+0130 in 0x30 ('0'), U+0141 in 0x41 ('A').
    assertRefused("ĭ", "invalid group count: expected 5, found 2");
    assertRefused("İ", "invalid length: found 2");
    assertRefused("Ł", "invalid length: found 2");
    assertRefused(
      "0123456ĭ89ab-cdef-0123-456789abcdef",
      "invalid group length in group 0: expected 8, found 7",
    );
    assertRefused(
      "İ0123456789abcdef0123456789abcd",
      "invalid length: found 32",
    );
    assertRefused("Ġ", "invalid character: found `Ġ` at 0");
  });
});
