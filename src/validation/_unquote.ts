/**
 * Python's `urllib.parse.unquote`, as Starlette decodes path params.
 *
 * @module
 */
const encoder = new TextEncoder();
// ignoreBOM: a leading EF BB BF is part of the segment, as for Python's
// `unquote`, not a byte order mark to drop.
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
const ESCAPE = /%([0-9a-fA-F]{2})/y;

/**
 * Percent-decodes a path segment as Starlette does (Python's `unquote`):
 * escapes that do not form UTF-8 become U+FFFD, malformed escapes such as
 * `%zz` stay as they are.
 *
 * @param segment A path segment, still percent-encoded.
 * @returns The decoded segment.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { unquote } from "./_unquote.ts";
 *
 * assert.equal(unquote("a%20b"), "a b");
 * assert.equal(unquote("%zz%ff"), "%zz\ufffd");
 * ```
 */
export function unquote(segment: string): string {
  if (!segment.includes("%")) return segment;
  const bytes: number[] = [];
  for (let i = 0; i < segment.length;) {
    ESCAPE.lastIndex = i;
    const escape = ESCAPE.exec(segment);
    if (escape !== null) {
      bytes.push(parseInt(escape[1]!, 16));
      i += 3;
    } else {
      const character = String.fromCodePoint(segment.codePointAt(i)!);
      bytes.push(...encoder.encode(character));
      i += character.length;
    }
  }
  return decoder.decode(new Uint8Array(bytes));
}
