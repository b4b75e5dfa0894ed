/**
 * A ZIP entry's deflated data out of a gzip member (RFC 1952): the header
 * dropped, the raw deflate stream passed on, the trailer's CRC-32 read. So the
 * runtime's `CompressionStream("gzip")` computes both the deflate stream and
 * the checksum in native code.
 *
 * @module
 */

/** What a gzip member's trailer says of its data. */
export interface GzipTrailer {
  /** CRC-32 of the uncompressed data. */
  crc32: number;
  /** Bytes of raw deflate data passed on. */
  compressedSize: number;
}

const FHCRC = 2;
const FEXTRA = 4;
const FNAME = 8;
const FCOMMENT = 16;
const TRAILER_LENGTH = 8;

/**
 * The length of the gzip header at the start of `bytes`, or `undefined` when
 * `bytes` ends before it does.
 *
 * @throws {TypeError} when `bytes` does not start a gzip member of deflated
 * data.
 */
function headerLength(bytes: Uint8Array): number | undefined {
  if (bytes.length < 10) return undefined;
  if (bytes[0] !== 0x1f || bytes[1] !== 0x8b || bytes[2] !== 8) {
    throw new TypeError("Cannot read the compressor's output: not gzip");
  }
  const flags = bytes[3]!;
  let at = 10;
  if (flags & FEXTRA) {
    if (bytes.length < at + 2) return undefined;
    at += 2 + (bytes[at]! | (bytes[at + 1]! << 8));
  }
  for (const flag of [FNAME, FCOMMENT]) {
    if (flags & flag) {
      const end = bytes.indexOf(0, at);
      if (end < 0) return undefined;
      at = end + 1;
    }
  }
  if (flags & FHCRC) at += 2;
  return at <= bytes.length ? at : undefined;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const bytes = new Uint8Array(a.length + b.length);
  bytes.set(a);
  bytes.set(b, a.length);
  return bytes;
}

/**
 * A transform from one gzip member to its raw deflate stream. The last chunk
 * seen is held until the next arrives (its end may be the trailer), so no
 * byte is copied unless the compressor hands over a chunk shorter than the
 * trailer. Once the readable side ends, `trailer` resolves; it rejects when
 * the member is truncated.
 *
 * @param readableStrategy How much deflated data may wait to be read.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { gzipMemberBody } from "./_gzip_member.ts";
 *
 * const body = gzipMemberBody();
 * const raw = new Blob(["hello, hello"]).stream()
 *   .pipeThrough(new CompressionStream("gzip"))
 *   .pipeThrough(body.transform);
 * const inflated = (await new Response(raw).blob()).stream()
 *   .pipeThrough(new DecompressionStream("deflate-raw"));
 * assert.equal(await new Response(inflated).text(), "hello, hello");
 * assert.equal((await body.trailer).crc32, 0xf3ccc5ff);
 * ```
 */
export function gzipMemberBody(
  readableStrategy?: QueuingStrategy<Uint8Array>,
): {
  transform: TransformStream<Uint8Array, Uint8Array>;
  trailer: Promise<GzipTrailer>;
} {
  let header: Uint8Array | undefined = new Uint8Array(0);
  let held: Uint8Array | undefined;
  let compressedSize = 0;
  let settle!: (trailer: GzipTrailer) => void;
  let fail!: (error: unknown) => void;
  const trailer = new Promise<GzipTrailer>((resolve, reject) => {
    settle = resolve;
    fail = reject;
  });
  // Awaited by whoever reads the entry to its end; not an unhandled
  // rejection meanwhile.
  trailer.catch(() => {});
  const pass = (
    controller: TransformStreamDefaultController<Uint8Array>,
    bytes: Uint8Array,
  ) => {
    if (bytes.length === 0) return;
    compressedSize += bytes.length;
    controller.enqueue(bytes);
  };
  const transform = new TransformStream<Uint8Array, Uint8Array>(
    {
      transform(chunk, controller) {
        if (header !== undefined) {
          header = header.length === 0 ? chunk : concat(header, chunk);
          const length = headerLength(header);
          if (length === undefined) return;
          chunk = header.subarray(length);
          header = undefined;
        }
        if (chunk.length === 0) return;
        if (held === undefined) held = chunk;
        else if (chunk.length >= TRAILER_LENGTH) {
          pass(controller, held);
          held = chunk;
        } else held = concat(held, chunk);
      },
      flush(controller) {
        if (held === undefined || held.length < TRAILER_LENGTH) {
          const error = new TypeError(
            "Cannot read the compressor's output: gzip member truncated",
          );
          fail(error);
          throw error;
        }
        const end = held.length - TRAILER_LENGTH;
        pass(controller, held.subarray(0, end));
        const view = new DataView(held.buffer, held.byteOffset + end);
        settle({ crc32: view.getUint32(0, true), compressedSize });
      },
    },
    undefined,
    readableStrategy,
  );
  return { transform, trailer };
}
