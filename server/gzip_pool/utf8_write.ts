/**
 * The export's text encoder on Node and Bun: `Buffer#utf8Write`, which
 * writes at an offset of any `Uint8Array` and returns a number, where
 * `TextEncoder.encodeInto` makes a view and a result object for every
 * message (most of the export's garbage on Node).
 *
 * @module
 */
import { Buffer } from "node:buffer";
import type { Utf8Writer } from "../../src/zip/mod.ts";

/** `Buffer#utf8Write`, not in Node's type declarations. */
type Utf8WriteMethod = (
  this: Uint8Array,
  text: string,
  offset: number,
) => number;

const { utf8Write } = Buffer.prototype as unknown as {
  utf8Write: Utf8WriteMethod;
};

/**
 * Writes the UTF-8 of `text` into `buffer` from `at`, as
 * `ZipCompression.utf8Write` takes it.
 *
 * @param text The text.
 * @param buffer Where it goes.
 * @param at The offset of its first byte.
 * @returns The bytes written.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { bufferUtf8Write } from "./utf8_write.ts";
 *
 * const buffer = new Uint8Array(8);
 * assert.equal(bufferUtf8Write("é\ud800", buffer, 1), 5);
 * assert.deepEqual([...buffer.subarray(0, 6)], [0, 0xc3, 0xa9, 0xef, 0xbf, 0xbd]);
 * ```
 */
export const bufferUtf8Write: Utf8Writer = (text, buffer, at) =>
  utf8Write.call(buffer, text, at);
