/**
 * The deflater of one ZIP entry as the writer drives it: raw deflate data and
 * its CRC-32, by plain calls. A server whose runtime's streams cost more than
 * its deflate (Node's web streams) hands the writer one directly; otherwise a
 * gzip compressor (`CompressionStream("gzip")`, Web Workers) is wrapped into
 * one, its member stripped to the raw deflate stream.
 *
 * @module
 */
import type { GzipPair } from "./_gzip.ts";
import { gzipMemberBody } from "./_gzip_member.ts";

/**
 * One entry's deflater: uncompressed bytes in by {@linkcode Deflater.write},
 * raw deflate data (RFC 1951) out by {@linkcode Deflater.read}. It holds at
 * most about `outputBytes` (the factory's argument) of deflated data unread;
 * past that its writes wait until the data is read.
 */
export interface Deflater {
  /** Takes `chunk` in; resolves once the deflater has read it. */
  write(chunk: Uint8Array<ArrayBuffer>): Promise<void>;
  /** Ends the data; resolves once every chunk written is taken in. */
  close(): Promise<void>;
  /**
   * The next piece of deflated data, or `undefined` once it has all been
   * read. Rejects when the deflater failed.
   */
  read(): Promise<Uint8Array | undefined>;
  /** CRC-32 of the data written, once `read` has resolved `undefined`. */
  crc32(): number;
  /** Stops the deflater and frees what it holds; its errors no longer matter. */
  abort(reason: unknown): void;
}

/**
 * Makes the deflater of each entry.
 *
 * @param outputBytes Deflated bytes it may hold unread before writes wait.
 */
export type DeflaterFactory = (
  outputBytes: number,
) => Deflater | Promise<Deflater>;

/**
 * A gzip compressor as a {@linkcode Deflater}: the member's header dropped,
 * its trailer's CRC-32 kept (see `_gzip_member.ts`).
 *
 * @param pair The compressor of one gzip member.
 * @param outputBytes Deflated bytes it may hold unread.
 * @returns The deflater.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { gzipDeflater } from "./_deflater.ts";
 *
 * const deflater = gzipDeflater(new CompressionStream("gzip"), 65536);
 * deflater.write(new TextEncoder().encode("hello, hello"));
 * deflater.close();
 * const parts: Uint8Array<ArrayBuffer>[] = [];
 * for (let part; (part = await deflater.read()) !== undefined;) {
 *   parts.push(part.slice());
 * }
 * const inflated = new Blob(parts).stream()
 *   .pipeThrough(new DecompressionStream("deflate-raw"));
 * assert.equal(await new Response(inflated).text(), "hello, hello");
 * assert.equal(deflater.crc32(), 0xf3ccc5ff);
 * ```
 */
export function gzipDeflater(pair: GzipPair, outputBytes: number): Deflater {
  const body = gzipMemberBody({
    highWaterMark: outputBytes,
    size: (chunk) => chunk.byteLength,
  });
  const writer = pair.writable.getWriter();
  const reader = pair.readable.pipeThrough(body.transform).getReader();
  let crc32: number | undefined;
  return {
    write: (chunk) => writer.write(chunk),
    close: () => writer.close(),
    async read() {
      const { done, value } = await reader.read();
      if (!done) return value;
      crc32 = (await body.trailer).crc32;
      return undefined;
    },
    crc32() {
      if (crc32 === undefined) throw new TypeError("The entry is not read yet");
      return crc32;
    },
    abort(reason) {
      writer.abort(reason).catch(() => {});
      reader.cancel(reason).catch(() => {});
    },
  };
}
