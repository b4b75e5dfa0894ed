/**
 * The compressor of each ZIP entry: the runtime's own
 * `CompressionStream("gzip")`, deflate and CRC-32 in native code (zlib or its
 * kin, at its default level, 6). Where the runtime has none (Vercel's Edge
 * Runtime lists no Compression Streams), fflate's streaming gzip at the same
 * level, loaded only then.
 *
 * @module
 */

/** A compressor of one gzip member, as `new CompressionStream("gzip")`. */
export type GzipCompressor = () => GzipPair | Promise<GzipPair>;

/** Uncompressed bytes in, a gzip member out. */
export type GzipPair = ReadableWritablePair<
  Uint8Array,
  Uint8Array<ArrayBuffer>
>;

/** zlib's default level, which every `CompressionStream` uses. */
const LEVEL = 6;

/**
 * A gzip compressor: `CompressionStream("gzip")` where the runtime has it,
 * else fflate's.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { gzipCompressor } from "./_gzip.ts";
 *
 * const gzip = await gzipCompressor();
 * const member = await new Response(
 *   new Blob(["hello"]).stream().pipeThrough(gzip),
 * ).blob();
 * const text = member.stream().pipeThrough(new DecompressionStream("gzip"));
 * assert.equal(await new Response(text).text(), "hello");
 * ```
 */
export const gzipCompressor: GzipCompressor = () =>
  typeof CompressionStream === "function"
    ? new CompressionStream("gzip")
    : fflateGzip();

async function fflateGzip(): Promise<GzipPair> {
  const { Gzip } = await import("fflate");
  let gzip: InstanceType<typeof Gzip>;
  return new TransformStream<Uint8Array<ArrayBuffer>, Uint8Array>({
    start(controller) {
      gzip = new Gzip({ level: LEVEL }, (data) => controller.enqueue(data));
    },
    transform(chunk) {
      gzip.push(chunk);
    },
    flush() {
      gzip.push(new Uint8Array(0), true);
    },
  });
}
