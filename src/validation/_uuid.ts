/**
 * UUID parsing exactly as Pydantic v2 does it (through the Rust `uuid` crate):
 * hyphenated in any case, the 32-digit simple form, a `urn:uuid:` prefix or
 * braces are accepted and canonicalised to lowercase hyphenated form; anything
 * else is refused with the crate's own error text, which Pydantic puts in its
 * `uuid_parsing` message.
 *
 * @module
 */

/** The outcome of {@linkcode parseUuid}. */
export type UuidParseResult =
  | { ok: true; uuid: string }
  | { ok: false; error: string };

const HEX = /^[0-9a-fA-F]$/;
const SIMPLE = /^[0-9a-fA-F]{32}$/;
const HYPHENATED =
  /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const LOWERCASE_HYPHENATED =
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const URN_PREFIX = "urn:uuid:";
const HYPHEN = 0x2d;
/** Where each of the five groups starts in a hyphenated UUID. */
const GROUP_STARTS = [0, 9, 14, 19, 24] as const;
const GROUP_LENGTHS = [8, 4, 4, 4, 12] as const;

/**
 * Parses a UUID as Pydantic v2 does and returns it in canonical form.
 *
 * @param text The candidate UUID.
 * @returns The lowercase hyphenated UUID, or the `uuid` crate's error text.
 *
 * @example Canonicalising the accepted forms
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseUuid } from "./_uuid.ts";
 *
 * assert.deepEqual(parseUuid("{0B6F1C2E-8D3A-4C55-9A57-3E3C2D1F0A11}"), {
 *   ok: true,
 *   uuid: "0b6f1c2e-8d3a-4c55-9a57-3e3c2d1f0a11",
 * });
 * assert.deepEqual(parseUuid("abc"), {
 *   ok: false,
 *   error: "invalid length: found 3",
 * });
 * ```
 */
export function parseUuid(text: string): UuidParseResult {
  // The usual form, lowercase already: no copy by `toLowerCase`.
  if (LOWERCASE_HYPHENATED.test(text)) return { ok: true, uuid: text };
  const hyphenated = text.length === 36 ? text : unwrap(text);
  if (text.length === 32 && SIMPLE.test(text)) {
    const hex = text.toLowerCase();
    return {
      ok: true,
      uuid: `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${
        hex.slice(16, 20)
      }-${hex.slice(20)}`,
    };
  }
  if (hyphenated !== undefined && HYPHENATED.test(hyphenated)) {
    return { ok: true, uuid: hyphenated.toLowerCase() };
  }
  return { ok: false, error: describeInvalid(text) };
}

/**
 * The 36 bytes inside a braced (38 bytes) or URN (45 bytes) candidate, the
 * shapes the crate unwraps before parsing.
 */
function unwrap(text: string): string | undefined {
  const length = utf8Length(text);
  if (length === 38 && text.startsWith("{") && text.endsWith("}")) {
    return text.slice(1, -1);
  }
  if (length === 45 && text.startsWith(URN_PREFIX)) {
    return text.slice(URN_PREFIX.length);
  }
  return undefined;
}

/**
 * The `uuid` crate's explanation of why `text` is not a UUID
 * (`InvalidUuid::into_err` and `Display for Error` of uuid 1.23.4, the
 * version pydantic-core 2.49 ships), quirks included:
 *
 * - lengths and positions count UTF-8 bytes, positions from 0;
 * - a 38-byte braced or 45-byte URN candidate is explained from the 36 bytes
 *   inside, so its positions do not count the prefix;
 * - each character is classified by its low byte (`character as u8`), so
 *   `ĭ` (U+012D) counts as a hyphen and `İ` (U+0130) as a digit.
 */
function describeInvalid(text: string): string {
  const input = unwrap(text) ?? text;
  const length = utf8Length(input);
  if (length === 0 || length > 45) return `invalid length: found ${length}`;
  let body = input;
  let offset = 0;
  // Only a candidate without braces, prefix or hyphens is a simple UUID of
  // the wrong length; 36 bytes are taken for a hyphenated UUID.
  let hyphenated = length === 36;
  if (!hyphenated) {
    if (input.length >= 2 && input.startsWith("{") && input.endsWith("}")) {
      body = input.slice(1, -1);
      offset = 1;
      hyphenated = true;
    } else if (input.startsWith(URN_PREFIX)) {
      body = input.slice(URN_PREFIX.length);
      offset = URN_PREFIX.length;
      hyphenated = true;
    }
  }

  let hyphenCount = 0;
  const groupBounds = [0, 0, 0, 0];
  let byteIndex = 0;
  for (const character of body) {
    const lowByte = character.codePointAt(0)! & 0xff;
    if (lowByte === HYPHEN) {
      hyphenated = true;
      if (hyphenCount < 4) groupBounds[hyphenCount] = byteIndex;
      hyphenCount += 1;
    } else if (!HEX.test(String.fromCharCode(lowByte))) {
      return `invalid character: found \`${character}\` at ${
        byteIndex + offset
      }`;
    }
    byteIndex += utf8Length(character);
  }

  if (!hyphenated) return `invalid length: found ${length}`;
  if (hyphenCount !== 4) {
    return `invalid group count: expected 5, found ${hyphenCount + 1}`;
  }
  for (let group = 0; group < 4; group += 1) {
    const bound = groupBounds[group]!;
    if (bound !== GROUP_STARTS[group + 1]! - 1) {
      return groupLengthError(group, bound - GROUP_STARTS[group]!);
    }
  }
  return groupLengthError(4, length - GROUP_STARTS[4]);
}

function groupLengthError(group: number, length: number): string {
  return `invalid group length in group ${group}: expected ${
    GROUP_LENGTHS[group]
  }, found ${length}`;
}

const encoder = new TextEncoder();

function utf8Length(text: string): number {
  return encoder.encode(text).length;
}
