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
const URN_PREFIX = "urn:uuid:";
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
 * import { parseUuid } from "./uuid.ts";
 *
 * parseUuid("{0B6F1C2E-8D3A-4C55-9A57-3E3C2D1F0A11}");
 * // { ok: true, uuid: "0b6f1c2e-8d3a-4c55-9a57-3e3c2d1f0a11" }
 * parseUuid("abc");
 * // { ok: false, error: "invalid length: expected length 32 for simple format, found 3" }
 * ```
 */
export function parseUuid(text: string): UuidParseResult {
  const hyphenated = unwrap(text);
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

/** The hyphenated part of a plain, braced or URN candidate of the right length. */
function unwrap(text: string): string | undefined {
  if (text.length === 36) return text;
  if (text.length === 38 && text.startsWith("{") && text.endsWith("}")) {
    return text.slice(1, -1);
  }
  if (text.length === 45 && text.startsWith(URN_PREFIX)) {
    return text.slice(URN_PREFIX.length);
  }
  return undefined;
}

/**
 * The `uuid` crate's explanation of why `text` is not a UUID
 * (`InvalidUuid::into_err` and `Display for Error`, uuid 1.x). Indices and
 * lengths count UTF-8 bytes, as Rust does.
 */
function describeInvalid(text: string): string {
  let body = text;
  let offset = 0;
  let simple = true;
  if (text.length >= 2 && text.startsWith("{") && text.endsWith("}")) {
    body = text.slice(1, -1);
    offset = 1;
    simple = false;
  } else if (text.startsWith(URN_PREFIX)) {
    body = text.slice(URN_PREFIX.length);
    offset = URN_PREFIX.length;
    simple = false;
  }

  let hyphenCount = 0;
  const groupBounds = [0, 0, 0, 0];
  let byteIndex = 0;
  for (const character of body) {
    if (character === "-") {
      if (hyphenCount < 4) groupBounds[hyphenCount] = byteIndex;
      hyphenCount += 1;
    } else if (!HEX.test(character)) {
      return "invalid character: expected an optional prefix of `urn:uuid:` " +
        `followed by [0-9a-fA-F-], found \`${character}\` at ${
          byteIndex + offset + 1
        }`;
    }
    byteIndex += utf8Length(character);
  }

  if (hyphenCount === 0 && simple) {
    return `invalid length: expected length 32 for simple format, found ${
      utf8Length(text)
    }`;
  }
  if (hyphenCount !== 4) {
    return `invalid group count: expected 5, found ${hyphenCount + 1}`;
  }
  for (let group = 0; group < 4; group += 1) {
    const bound = groupBounds[group]!;
    if (bound !== GROUP_STARTS[group + 1]! - 1) {
      return groupLengthError(group, bound - GROUP_STARTS[group]!);
    }
  }
  return groupLengthError(4, utf8Length(text) - GROUP_STARTS[4]);
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
