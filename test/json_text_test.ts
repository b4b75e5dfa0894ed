/**
 * JSON decoding as CPython 3.13's `json.loads` does it. Every expected
 * message, position and rendering is what Python 3.13 gives for the same
 * input.
 *
 * @module
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  decodeJsonBytes,
  isJsonObject,
  parseJsonAsPython,
  parseJsonText,
} from "../src/validation/_json_text.ts";

/** Asserts that `text` is refused with Python's `error` at `position`. */
function assertRefused(text: string, error: string, position: number): void {
  assert.deepStrictEqual(parseJsonText(text), { ok: false, position, error });
}

describe("parseJsonText", () => {
  it("decodes valid JSON to the value JSON.parse gives", () => {
    assert.deepStrictEqual(
      parseJsonText(' {"call_ids": ["a", 1, 2.5, true, null, {}]}\n'),
      { ok: true, value: { call_ids: ["a", 1, 2.5, true, null, {}] } },
    );
  });

  it("reports a missing value after the leading whitespace", () => {
    assertRefused("", "Expecting value", 0);
    assertRefused("  \n", "Expecting value", 3);
    assertRefused("[", "Expecting value", 1);
    assertRefused('{"a":}', "Expecting value", 5);
    assertRefused("-", "Expecting value", 0);
    assertRefused('  {"call_ids": [}', "Expecting value", 16);
  });

  it("reports what follows a complete document as extra data", () => {
    assertRefused("01", "Extra data", 1);
    assertRefused("1.", "Extra data", 1);
    assertRefused("[] x", "Extra data", 3);
  });

  it("reports object and array punctuation as Python does", () => {
    assertRefused("{", "Expecting property name enclosed in double quotes", 1);
    assertRefused(
      "{,}",
      "Expecting property name enclosed in double quotes",
      1,
    );
    assertRefused(
      "{1: 2}",
      "Expecting property name enclosed in double quotes",
      1,
    );
    assertRefused('{"a" 1}', "Expecting ':' delimiter", 5);
    assertRefused("[1 2]", "Expecting ',' delimiter", 3);
  });

  it("reports a trailing comma at the comma, as Python 3.13 does", () => {
    assertRefused("[1,]", "Illegal trailing comma before end of array", 2);
    assertRefused("[1,\n  ]", "Illegal trailing comma before end of array", 2);
    assertRefused(
      '{"a": 1,}',
      "Illegal trailing comma before end of object",
      7,
    );
  });

  it("reports string errors at Python's positions", () => {
    assertRefused('"abc', "Unterminated string starting at", 0);
    assertRefused('"a\\', "Unterminated string starting at", 0);
    assertRefused('"\\q"', "Invalid \\escape", 1);
    assertRefused('"\\u12"', "Invalid \\uXXXX escape", 2);
    assertRefused('"\\u123g"', "Invalid \\uXXXX escape", 2);
    assertRefused('"\u0001"', "Invalid control character at", 1);
  });

  it("counts positions in code points, not UTF-16 units", () => {
    assertRefused('["é", ]', "Illegal trailing comma before end of array", 4);
    assertRefused('["😀",]', "Illegal trailing comma before end of array", 4);
    assertRefused('{"😀": 1 "x"}', "Expecting ',' delimiter", 8);
    assertRefused('["😀", "é", \u0002]', "Expecting value", 11);
    // An escaped surrogate pair is ASCII text: it counts twelve.
    assertRefused('{"call_ids": ["\\ud83d\\ude00", x]}', "Expecting value", 30);
  });

  it("refuses NaN and Infinity, which Python accepts, as missing values", () => {
    assertRefused("NaN", "Expecting value", 0);
    assertRefused("[Infinity]", "Expecting value", 1);
    assertRefused("-Infinity", "Expecting value", 0);
  });

  it("refuses a byte order mark in text", () => {
    assertRefused("\ufeff[]", "Expecting value", 0);
  });

  it("throws a RangeError for an integer of more than 4300 digits", () => {
    assert.deepStrictEqual(parseJsonText("1".repeat(4300)).ok, true);
    assert.deepStrictEqual(parseJsonText(`-${"1".repeat(4300)}`).ok, true);
    assert.deepStrictEqual(parseJsonText(`1.${"0".repeat(5000)}`).ok, true);
    assert.deepStrictEqual(parseJsonText(`"${"1".repeat(5000)}"`).ok, true);
    assert.throws(() => parseJsonText("1".repeat(4301)), RangeError);
    // Python raises on the number before it meets the later syntax error.
    assert.throws(() => parseJsonText(`[${"1".repeat(4301)}, x`), RangeError);
    assertRefused(`[x, ${"1".repeat(4301)}]`, "Expecting value", 1);
  });

  it("throws a RangeError for nesting deeper than 9998 containers", () => {
    const nested = (depth: number) => "[".repeat(depth) + "]".repeat(depth);
    assert.deepStrictEqual(parseJsonText(nested(9998)).ok, true);
    assert.throws(() => parseJsonText(nested(9999)), RangeError);
    assert.throws(() => parseJsonText("[".repeat(10000)), RangeError);
  });
});

describe("parseJsonAsPython", () => {
  it("spells numbers as Python's json module renders them back", () => {
    const value = parseJsonAsPython(
      "[1.0, -0.0, 1e16, 1.5e15, 0.0001, 1e-5, 1e22, 123e-2, 5e-324, " +
        "1.7976931348623157e308, 100, -0, 2.50, 12345678901234567890]",
    );
    assert.deepStrictEqual(
      JSON.stringify(value),
      "[1.0,-0.0,1e+16,1500000000000000.0,0.0001,1e-05,1e+22,1.23,5e-324," +
        "1.7976931348623157e+308,100,0,2.5,12345678901234567890]",
    );
  });

  it("keeps keys in document order, integer-like keys included", () => {
    assert.deepStrictEqual(
      JSON.stringify(
        parseJsonAsPython('{"b": 1.0, "1": 1E5, "big": 12345678901234567890}'),
      ),
      '{"b":1.0,"1":100000.0,"big":12345678901234567890}',
    );
  });

  it("keeps a repeated key at its first place with its last value", () => {
    assert.deepStrictEqual(
      JSON.stringify(
        parseJsonAsPython('{"a": 1, "2": 2, "a": 3, "10": 4, "__proto__": 5}'),
      ),
      '{"a":3,"2":2,"10":4,"__proto__":5}',
    );
  });

  it("decodes escapes as Python does", () => {
    assert.deepStrictEqual(
      parseJsonAsPython('["\\ud83d\\ude00", "\\u00e9\\/\\n", "\\ud800"]'),
      ["😀", "é/\n", "\ud800"],
    );
  });

  it("keeps the client's digits for a float out of range", () => {
    assert.deepStrictEqual(
      JSON.stringify(parseJsonAsPython("[1e400, -1.5E+999]")),
      "[1e400,-1.5E+999]",
    );
  });

  it("throws a SyntaxError with Python's message on invalid text", () => {
    assert.throws(() => parseJsonAsPython("[1,]"), {
      name: "SyntaxError",
      message: "Illegal trailing comma before end of array: char 2",
    });
  });
});

describe("isJsonObject", () => {
  it("tells objects from arrays, numbers, strings and null", () => {
    assert.deepStrictEqual(isJsonObject(parseJsonAsPython('{"1": 2}')), true);
    assert.deepStrictEqual(isJsonObject({}), true);
    for (const text of ["[]", "1.0", "12345678901234567890", '"a"', "null"]) {
      assert.deepStrictEqual(isJsonObject(parseJsonAsPython(text)), false);
    }
  });
});

describe("decodeJsonBytes", () => {
  const bytes = (...values: number[]) => new Uint8Array(values);

  it("decodes UTF-8, dropping a byte order mark", () => {
    assert.deepStrictEqual(decodeJsonBytes(bytes(0x5b, 0x31, 0x5d)), "[1]");
    assert.deepStrictEqual(
      decodeJsonBytes(bytes(0xef, 0xbb, 0xbf, 0x5b, 0x31, 0x5d)),
      "[1]",
    );
    assert.deepStrictEqual(
      decodeJsonBytes(new TextEncoder().encode('["é😀"]')),
      '["é😀"]',
    );
  });

  it("detects UTF-16 and UTF-32 from the byte order mark or the zero bytes", () => {
    // '["é"]' in UTF-16 LE with and without BOM, UTF-16 BE and UTF-32 BE.
    const le = [0x5b, 0, 0x22, 0, 0xe9, 0, 0x22, 0, 0x5d, 0];
    assert.deepStrictEqual(decodeJsonBytes(bytes(...le)), '["é"]');
    assert.deepStrictEqual(decodeJsonBytes(bytes(0xff, 0xfe, ...le)), '["é"]');
    assert.deepStrictEqual(
      decodeJsonBytes(bytes(0, 0x5b, 0, 0x22, 0, 0xe9, 0, 0x22, 0, 0x5d)),
      '["é"]',
    );
    assert.deepStrictEqual(
      decodeJsonBytes(
        bytes(0, 0, 0, 0x5b, 0, 0, 0, 0x22, 0, 0, 0, 0xe9, 0, 0, 0, 0x22),
      ),
      '["é"',
    );
    assert.deepStrictEqual(decodeJsonBytes(bytes(0x31, 0)), "1");
  });

  it("lets an encoded lone surrogate through, as surrogatepass does", () => {
    assert.deepStrictEqual(
      decodeJsonBytes(bytes(0x22, 0xed, 0xa0, 0x80, 0x22)),
      '"\ud800"',
    );
  });

  it("throws a TypeError for bytes Python cannot decode", () => {
    assert.throws(() => decodeJsonBytes(bytes(0x22, 0xff, 0x22)), TypeError);
    assert.throws(
      () => decodeJsonBytes(bytes(0x22, 0xed, 0xa0, 0x22)),
      TypeError,
    );
    assert.throws(() => decodeJsonBytes(bytes(0xff, 0xfe, 0x31)), TypeError);
    assert.throws(
      () => decodeJsonBytes(bytes(0, 0, 0, 0x22, 0, 0x11, 0, 0)),
      TypeError,
    );
  });
});
