/**
 * JSON decoding as CPython 3.13's `json.loads` does it (the C scanner of
 * `Modules/_json.c` driven by `Lib/json/decoder.py`), for the request bodies
 * FastAPI reads with Starlette's `Request.json()`:
 *
 * - {@linkcode decodeJsonBytes} turns the body's bytes into text the way
 *   `json.loads(bytes)` does (`detect_encoding`, `surrogatepass`);
 * - {@linkcode parseJsonText} decodes the text, reporting the first error with
 *   Python's message and position (in code points);
 * - {@linkcode parseJsonAsPython} builds the value Python builds, shaped so
 *   that `JSON.stringify` renders it as Starlette renders it back.
 *
 * Decision: NaN, Infinity and -Infinity are refused as "Expecting value" at
 * their position, as `JSON.parse` refuses them. Python accepts them, but
 * Starlette cannot render them back (`allow_nan=False`): FastAPI fails with
 * a 500 when a validation error echoes one, and no valid body needs one.
 *
 * @module
 */

/** The outcome of {@linkcode parseJsonText}. */
export type JsonTextResult =
  | { ok: true; value: unknown }
  | { ok: false; position: number; error: string };

/**
 * `sys.get_int_max_str_digits()`: Python refuses longer integer literals with
 * a `ValueError`, which FastAPI answers with 400.
 */
const MAX_INT_DIGITS = 4300;

/**
 * The deepest nesting of arrays and objects `json.loads` decodes. The C
 * scanner spends one unit of the C recursion budget per container
 * (`Py_C_RECURSION_LIMIT`, 10000 on 64-bit Linux) on top of what the call
 * stack already holds: 9998 containers decode from a bare script, a few fewer
 * under an ASGI server. Deeper bodies raise `RecursionError`, a 400 in
 * FastAPI. (An error found within the innermost few levels also turns into
 * `RecursionError` in Python, which is not reproduced.)
 */
const MAX_NESTING = 9998;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const MINUS = 0x2d;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;

/** The single-character escapes of `scanstring_unicode`. */
const ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  "\\": "\\",
  "/": "/",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
};

/** `JSON.rawJSON` (ES2025), present in Node 22+, Deno and Bun. */
const RawJson = JSON as JSON & {
  rawJSON(text: string): object;
  isRawJSON(value: unknown): boolean;
};

/**
 * Decodes JSON text as Python's `json.loads` does.
 *
 * Valid text goes through `JSON.parse`; only when it fails does a scanner
 * look for the first error as CPython reports it. The position counts code
 * points, as Python's string indices do.
 *
 * @param text The JSON document, already decoded from bytes.
 * @returns The value, or Python's `JSONDecodeError` message and position.
 * @throws {RangeError} Where Python raises another error than
 * `JSONDecodeError`: an integer of more than 4300 digits, or nesting deeper
 * than the C scanner's recursion budget.
 *
 * @example Reporting a trailing comma as Python 3.13 does
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseJsonText } from "./_json_text.ts";
 *
 * assert.deepEqual(parseJsonText('{"call_ids": ["é", ]}'), {
 *   ok: false,
 *   position: 17,
 *   error: "Illegal trailing comma before end of array",
 * });
 * ```
 */
export function parseJsonText(text: string): JsonTextResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    const scanned = scan(text, true);
    // Valid for Python yet refused by JSON.parse (e.g. a runtime's own
    // nesting limit): Python's value serves as well.
    if (scanned.ok) return scanned;
    return {
      ok: false,
      position: codePointIndex(text, scanned.index),
      error: scanned.error,
    };
  }
  if (mayExceedPythonLimits(text)) scan(text, false);
  return { ok: true, value };
}

/**
 * Decodes JSON text into the value Python's `json.loads` returns, in a shape
 * that `JSON.stringify` renders as Starlette's `JSONResponse` renders that
 * value: floats as Python's `repr` writes them (`1.0`, `1e+16`), integers
 * with all their digits, object keys in document order (integer-like keys
 * included), a repeated key keeping its first place and its last value.
 *
 * Numbers that need Python's spelling are `JSON.rawJSON` values (see
 * {@linkcode isJsonObject}); a float that overflows (Python's `inf`, which
 * Starlette cannot render) keeps the client's own digits, e.g. `1e400`.
 *
 * @param text Valid JSON text (see {@linkcode parseJsonText}).
 * @returns The decoded value.
 * @throws {SyntaxError} When the text is not valid JSON.
 * @throws {RangeError} As {@linkcode parseJsonText}.
 *
 * @example Keeping Python's spelling of numbers and order of keys
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseJsonAsPython } from "./_json_text.ts";
 *
 * assert.equal(
 *   JSON.stringify(parseJsonAsPython('{"b": 1.0, "1": 1E5, "big": 12345678901234567890}')),
 *   '{"b":1.0,"1":100000.0,"big":12345678901234567890}',
 * );
 * ```
 */
export function parseJsonAsPython(text: string): unknown {
  const scanned = scan(text, true);
  if (!scanned.ok) {
    throw new SyntaxError(
      `${scanned.error}: char ${codePointIndex(text, scanned.index)}`,
    );
  }
  return scanned.value;
}

/**
 * Tells whether a decoded value is a JSON object (Python `dict`), as opposed
 * to an array, a string, a number (including the `JSON.rawJSON` numbers of
 * {@linkcode parseJsonAsPython}), a boolean or null.
 *
 * @param value A value from {@linkcode parseJsonText} or
 * {@linkcode parseJsonAsPython}.
 * @returns Whether it is an object.
 *
 * @example Telling objects from Python-spelled numbers
 * ```ts
 * import assert from "node:assert/strict";
 * import { isJsonObject, parseJsonAsPython } from "./_json_text.ts";
 *
 * assert.equal(isJsonObject(parseJsonAsPython("{}")), true);
 * assert.equal(isJsonObject(parseJsonAsPython("1.0")), false);
 * ```
 */
export function isJsonObject(
  value: unknown,
): value is Record<string, unknown> {
  return typeof value === "object" && value !== null &&
    !Array.isArray(value) && !RawJson.isRawJSON(value);
}

/**
 * Decodes a JSON body's bytes as `json.loads(bytes)` does: the encoding is
 * guessed by `json.detect_encoding` (UTF-8, UTF-8 with a BOM, UTF-16 or
 * UTF-32 from the BOM or the pattern of zero bytes) and decoded with the
 * `surrogatepass` error handler, so encoded lone surrogates pass.
 *
 * @param bytes The request body, not empty.
 * @returns The text.
 * @throws {TypeError} Where Python raises `UnicodeDecodeError`, which FastAPI
 * answers with 400.
 *
 * @example Decoding UTF-8 with a BOM and UTF-16
 * ```ts
 * import assert from "node:assert/strict";
 * import { decodeJsonBytes } from "./_json_text.ts";
 *
 * assert.equal(decodeJsonBytes(new Uint8Array([0xef, 0xbb, 0xbf, 0x31])), "1");
 * assert.equal(decodeJsonBytes(new Uint8Array([0x31, 0x00, 0x32, 0x00])), "12");
 * ```
 */
export function decodeJsonBytes(bytes: Uint8Array): string {
  const at = (index: number): number => bytes[index] ?? -1;
  if (
    (at(0) === 0 && at(1) === 0 && at(2) === 0xfe && at(3) === 0xff) ||
    (at(0) === 0xff && at(1) === 0xfe && at(2) === 0 && at(3) === 0)
  ) {
    return decodeUtf32(bytes.subarray(4), at(0) === 0);
  }
  if (
    (at(0) === 0xfe && at(1) === 0xff) || (at(0) === 0xff && at(1) === 0xfe)
  ) {
    return decodeUtf16(bytes.subarray(2), at(0) === 0xfe);
  }
  if (at(0) === 0xef && at(1) === 0xbb && at(2) === 0xbf) {
    return decodeUtf8(bytes.subarray(3));
  }
  if (bytes.length >= 4) {
    if (at(0) === 0) {
      return at(1) === 0 ? decodeUtf32(bytes, true) : decodeUtf16(bytes, true);
    }
    if (at(1) === 0) {
      return at(2) !== 0 || at(3) !== 0
        ? decodeUtf16(bytes, false)
        : decodeUtf32(bytes, false);
    }
  } else if (bytes.length === 2) {
    if (at(0) === 0) return decodeUtf16(bytes, true);
    if (at(1) === 0) return decodeUtf16(bytes, false);
  }
  return decodeUtf8(bytes);
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Strict UTF-8, but a surrogate encoded on three bytes passes. */
function decodeUtf8(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    // A surrogate (ED A0..BF 80..BF) is the only thing surrogatepass lets
    // through: decode the runs between them strictly.
    let text = "";
    let start = 0;
    for (let index = 0; index + 2 < bytes.length; index += 1) {
      const second = bytes[index + 1]!;
      const third = bytes[index + 2]!;
      if (
        bytes[index] === 0xed && second >= 0xa0 && second <= 0xbf &&
        third >= 0x80 && third <= 0xbf
      ) {
        text += utf8.decode(bytes.subarray(start, index));
        text += String.fromCharCode(
          0xd000 | ((second & 0x3f) << 6) | (third & 0x3f),
        );
        start = index + 3;
        index += 2;
      }
    }
    return text + utf8.decode(bytes.subarray(start));
  }
}

/** UTF-16 code units map one to one on a JS string, lone surrogates too. */
function decodeUtf16(bytes: Uint8Array, bigEndian: boolean): string {
  if (bytes.length % 2 !== 0) {
    throw new TypeError("Cannot decode the body as UTF-16: truncated data");
  }
  const units: number[] = [];
  for (let index = 0; index < bytes.length; index += 2) {
    const high = bytes[bigEndian ? index : index + 1]!;
    const low = bytes[bigEndian ? index + 1 : index]!;
    units.push((high << 8) | low);
  }
  return fromCharCodes(units);
}

function decodeUtf32(bytes: Uint8Array, bigEndian: boolean): string {
  if (bytes.length % 4 !== 0) {
    throw new TypeError("Cannot decode the body as UTF-32: truncated data");
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const units: number[] = [];
  for (let index = 0; index < bytes.length; index += 4) {
    const codePoint = view.getUint32(index, !bigEndian);
    if (codePoint > 0x10ffff) {
      throw new TypeError(
        "Cannot decode the body as UTF-32: code point not in range(0x110000)",
      );
    }
    if (codePoint > 0xffff) {
      const offset = codePoint - 0x10000;
      units.push(0xd800 | (offset >> 10), 0xdc00 | (offset & 0x3ff));
    } else {
      units.push(codePoint);
    }
  }
  return fromCharCodes(units);
}

function fromCharCodes(units: number[]): string {
  let text = "";
  for (let index = 0; index < units.length; index += 8192) {
    text += String.fromCharCode(...units.slice(index, index + 8192));
  }
  return text;
}

/**
 * Whether valid text could still break one of Python's limits: a run of more
 * than 4300 digits, or more openers than the nesting allows. One pass over
 * the text (a regex such as `[0-9]{4301}` would retry every digit of every
 * shorter run: quadratic in the run's length), so that ordinary bodies skip
 * the second scan cheaply.
 */
function mayExceedPythonLimits(text: string): boolean {
  if (text.length <= MAX_INT_DIGITS) return false;
  let openers = 0;
  let digits = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code >= ZERO && code <= NINE) {
      digits += 1;
      if (digits > MAX_INT_DIGITS) return true;
    } else {
      digits = 0;
      if (code === OPEN_BRACKET || code === OPEN_BRACE) openers += 1;
    }
  }
  return openers > MAX_NESTING;
}

/** The index Python reports for a UTF-16 index: astral characters count 1. */
function codePointIndex(text: string, unitIndex: number): number {
  let index = unitIndex;
  for (let unit = 1; unit < unitIndex; unit += 1) {
    const code = text.charCodeAt(unit);
    if (code >= 0xdc00 && code <= 0xdfff) {
      const previous = text.charCodeAt(unit - 1);
      if (previous >= 0xd800 && previous <= 0xdbff) index -= 1;
    }
  }
  return index;
}

type Scanned<T> = { ok: true; value: T; end: number } | ScanError;
type ScanResult = { ok: true; value: unknown } | ScanError;
interface ScanError {
  ok: false;
  /** UTF-16 index of the error. */
  index: number;
  error: string;
}

type Container =
  | { kind: "array"; items: unknown[] }
  | { kind: "object"; entries: Map<string, unknown>; key: string };

function fail(error: string, index: number): ScanError {
  return { ok: false, index, error };
}

/**
 * `JSONDecoder.decode` over `scan_once_unicode`, iterative so that deep
 * nesting cannot overflow the JS stack. With `build` false it only looks for
 * the first error (and Python's limits).
 */
function scan(text: string, build: boolean): ScanResult {
  const length = text.length;
  const stack: Container[] = [];
  let index = skipWhitespace(text, 0);
  for (;;) {
    // A value starts at `index`.
    let value: unknown;
    if (index >= length) return fail("Expecting value", index);
    const code = text.charCodeAt(index);
    if (code === QUOTE) {
      const string = scanString(text, index, build);
      if (!string.ok) return string;
      value = string.value;
      index = string.end;
    } else if (code === OPEN_BRACKET || code === OPEN_BRACE) {
      if (stack.length >= MAX_NESTING) {
        throw new RangeError(
          `maximum recursion depth exceeded while decoding a JSON ${
            code === OPEN_BRACKET ? "array" : "object"
          } from a unicode string`,
        );
      }
      index = skipWhitespace(text, index + 1);
      if (code === OPEN_BRACKET) {
        if (text.charCodeAt(index) !== CLOSE_BRACKET) {
          stack.push({ kind: "array", items: [] });
          continue;
        }
        value = [];
      } else {
        if (text.charCodeAt(index) !== CLOSE_BRACE) {
          const key = scanKey(text, index, build);
          if (!key.ok) return key;
          stack.push({ kind: "object", entries: new Map(), key: key.value });
          index = key.end;
          continue;
        }
        value = {};
      }
      index += 1;
    } else if (text.startsWith("null", index)) {
      value = null;
      index += 4;
    } else if (text.startsWith("true", index)) {
      value = true;
      index += 4;
    } else if (text.startsWith("false", index)) {
      value = false;
      index += 5;
    } else {
      const number = scanNumber(text, index, build);
      if (!number.ok) return number;
      value = number.value;
      index = number.end;
    }

    // A value ends before `index`: close every container it completes.
    for (;;) {
      const top = stack[stack.length - 1];
      if (top === undefined) {
        index = skipWhitespace(text, index);
        return index === length ? { ok: true, value } : fail(
          "Extra data",
          index,
        );
      }
      if (build) {
        if (top.kind === "array") top.items.push(value);
        else top.entries.set(top.key, value);
      }
      const close = top.kind === "array" ? CLOSE_BRACKET : CLOSE_BRACE;
      index = skipWhitespace(text, index);
      if (text.charCodeAt(index) === close) {
        stack.pop();
        if (build) {
          value = top.kind === "array" ? top.items : pythonDict(top.entries);
        }
        index += 1;
        continue;
      }
      if (text.charCodeAt(index) !== COMMA) {
        return fail("Expecting ',' delimiter", index);
      }
      const comma = index;
      index = skipWhitespace(text, index + 1);
      if (text.charCodeAt(index) === close) {
        return fail(
          `Illegal trailing comma before end of ${
            top.kind === "array" ? "array" : "object"
          }`,
          comma,
        );
      }
      if (top.kind === "object") {
        const key = scanKey(text, index, build);
        if (!key.ok) return key;
        top.key = key.value;
        index = key.end;
      }
      break;
    }
  }
}

function skipWhitespace(text: string, start: number): number {
  let index = start;
  for (;;) {
    const code = text.charCodeAt(index);
    if (code !== 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) {
      return index;
    }
    index += 1;
  }
}

/** A key, the `:` after it and the whitespace up to the value. */
function scanKey(text: string, index: number, build: boolean): Scanned<string> {
  if (text.charCodeAt(index) !== QUOTE) {
    return fail("Expecting property name enclosed in double quotes", index);
  }
  const key = scanString(text, index, build);
  if (!key.ok) return key;
  const colon = skipWhitespace(text, key.end);
  if (text.charCodeAt(colon) !== COLON) {
    return fail("Expecting ':' delimiter", colon);
  }
  return { ok: true, value: key.value, end: skipWhitespace(text, colon + 1) };
}

/** `scanstring_unicode` with `strict=True`, from the opening quote. */
function scanString(
  text: string,
  quote: number,
  build: boolean,
): Scanned<string> {
  const length = text.length;
  let value = "";
  let end = quote + 1;
  for (;;) {
    let next = end;
    let code = -1;
    for (; next < length; next += 1) {
      code = text.charCodeAt(next);
      if (code === QUOTE || code === BACKSLASH) break;
      if (code <= 0x1f) return fail("Invalid control character at", next);
    }
    if (next >= length) return fail("Unterminated string starting at", quote);
    if (build) value += text.slice(end, next);
    next += 1;
    if (code === QUOTE) return { ok: true, value, end: next };
    if (next === length) return fail("Unterminated string starting at", quote);
    const escape = text[next]!;
    if (escape !== "u") {
      const character = ESCAPES[escape];
      if (character === undefined) return fail("Invalid \\escape", next - 1);
      if (build) value += character;
      end = next + 1;
      continue;
    }
    // \uXXXX: a pair of escaped surrogates needs no joining in UTF-16.
    end = next + 5;
    if (end >= length) return fail("Invalid \\uXXXX escape", next);
    const hex = text.slice(next + 1, end);
    if (!/^[0-9a-fA-F]{4}$/.test(hex)) {
      return fail("Invalid \\uXXXX escape", next);
    }
    if (build) value += String.fromCharCode(parseInt(hex, 16));
  }
}

/** `_match_number_unicode`: Python's int or float, or "Expecting value". */
function scanNumber(
  text: string,
  start: number,
  build: boolean,
): Scanned<unknown> {
  const last = text.length - 1;
  const isDigit = (at: number): boolean => {
    const code = text.charCodeAt(at);
    return code >= ZERO && code <= NINE;
  };
  let index = start;
  if (text.charCodeAt(index) === MINUS) {
    index += 1;
    if (index > last) return fail("Expecting value", start);
  }
  const intStart = index;
  if (isDigit(index) && text.charCodeAt(index) !== ZERO) {
    index += 1;
    while (index <= last && isDigit(index)) index += 1;
  } else if (text.charCodeAt(index) === ZERO) {
    index += 1;
  } else {
    return fail("Expecting value", start);
  }
  let isFloat = false;
  if (
    index < last && text.charCodeAt(index) === DOT && isDigit(index + 1)
  ) {
    isFloat = true;
    index += 2;
    while (index <= last && isDigit(index)) index += 1;
  }
  if (index < last && (text[index] === "e" || text[index] === "E")) {
    const exponentStart = index;
    index += 1;
    if (index < last && (text[index] === "-" || text[index] === "+")) {
      index += 1;
    }
    while (index <= last && isDigit(index)) index += 1;
    if (isDigit(index - 1)) isFloat = true;
    else index = exponentStart;
  }
  if (!isFloat && index - intStart > MAX_INT_DIGITS) {
    throw new RangeError(
      `Exceeds the limit (${MAX_INT_DIGITS} digits) for integer string ` +
        `conversion: value has ${
          index - intStart
        } digits; use sys.set_int_max_str_digits() to increase the limit`,
    );
  }
  const source = text.slice(start, index);
  if (!build) return { ok: true, value: undefined, end: index };
  return {
    ok: true,
    value: isFloat ? pythonFloat(source) : pythonInt(source),
    end: index,
  };
}

/** An int: a plain number when exact, else its digits. */
function pythonInt(source: string): unknown {
  const value = Number(source);
  if (Number.isSafeInteger(value)) return value === 0 ? 0 : value;
  return RawJson.rawJSON(source);
}

/**
 * A float: a plain number when JS spells it as Python's `repr` does. One out
 * of range (Python's `inf`, which Starlette cannot render) keeps the digits
 * the client wrote, so that an error can echo it as valid JSON.
 */
function pythonFloat(source: string): unknown {
  const value = Number(source);
  if (!Number.isFinite(value)) return RawJson.rawJSON(source);
  const repr = pythonFloatRepr(value);
  return repr === String(value) ? value : RawJson.rawJSON(repr);
}

/**
 * `float.__repr__`: the shortest digits that round-trip (as JS finds them),
 * in exponent form below 1e-4 and from 1e16 on, with at least two exponent
 * digits, and `.0` on integral values written out.
 */
function pythonFloatRepr(value: number): string {
  if (value === 0) return Object.is(value, -0) ? "-0.0" : "0.0";
  const sign = value < 0 ? "-" : "";
  const [mantissa = "", exponentText] = String(Math.abs(value)).split("e");
  const [whole = "", fraction = ""] = mantissa.split(".");
  let digits = whole + fraction;
  let exponent = whole.length - 1 + Number(exponentText ?? 0);
  const leadingZeros = /^0*/.exec(digits)![0].length;
  digits = digits.slice(leadingZeros).replace(/0+$/, "");
  exponent -= leadingZeros;
  if (exponent < -4 || exponent >= 16) {
    const head = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const power = String(Math.abs(exponent)).padStart(2, "0");
    return `${sign}${head}e${exponent < 0 ? "-" : "+"}${power}`;
  }
  if (exponent < 0) return `${sign}0.${"0".repeat(-exponent - 1)}${digits}`;
  if (digits.length <= exponent + 1) {
    return `${sign}${digits.padEnd(exponent + 1, "0")}.0`;
  }
  return `${sign}${digits.slice(0, exponent + 1)}.${
    digits.slice(exponent + 1)
  }`;
}

/** JS would list integer-like keys first: a proxy keeps Python's order. */
const ARRAY_INDEX = /^(?:0|[1-9][0-9]{0,9})$/;

function pythonDict(entries: Map<string, unknown>): object {
  const target: Record<string, unknown> = {};
  let reordered = false;
  for (const [key, value] of entries) {
    Object.defineProperty(target, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
    if (ARRAY_INDEX.test(key) && Number(key) < 0xffffffff) reordered = true;
  }
  if (!reordered) return target;
  const keys = [...entries.keys()];
  return new Proxy(target, { ownKeys: () => [...keys] });
}
