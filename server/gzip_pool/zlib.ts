/**
 * The export's deflater on `node:zlib`, for the runtimes whose zlib runs on a
 * thread pool (Node's libuv pool, Bun's "Bun Pool"): a
 * `zlib.createDeflateRaw()` driven by plain calls, its CRC-32 by
 * `zlib.crc32`, instead of a gzip stream behind web streams, whose
 * promises and queues cost Node's main thread more than the rest of the
 * export. Several entries still deflate at once, on the pool. `node:zlib` is
 * loaded at the first export, not at start: on Bun loading it costs a sixth
 * of a start's CPU.
 *
 * @module
 */
import { createRequire } from "node:module";
import type { Deflater } from "../../src/zip/mod.ts";

/** Loads a built-in module when first needed (`process.getBuiltinModule` is Node 22.3+). */
const load = createRequire(import.meta.url);

/** zlib's default level, as every `CompressionStream` uses. */
const LEVEL = 6;

/**
 * A 16 KiB window instead of zlib's 32 KiB: on the bench's transcripts
 * (bench/README.md) 5–9 % less deflate CPU for 0.7 % more bytes, still
 * within 1 % of Info-ZIP's `zip -6`. Readers inflate any window.
 */
const WINDOW_BITS = 14;

/** A read waiting for the next piece of deflated data. */
interface Waiting {
  resolve: (piece: Uint8Array | undefined) => void;
  reject: (error: unknown) => void;
}

/**
 * A deflater on `node:zlib`, by default at level 6 with a 16 KiB window:
 * what a server hands the core as `ZipCompression.deflater`. A write
 * resolves once zlib has taken the chunk in whole; past `outputBytes` of
 * deflated data unread, zlib pauses, and the writes wait.
 *
 * @param outputBytes Deflated bytes held unread before zlib pauses.
 * @param level zlib's level; default 6 (0, stored blocks, for benches).
 * @returns The deflater of one entry.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { inflateRawSync } from "node:zlib";
 * import { zlibDeflater } from "./zlib.ts";
 *
 * const deflater = zlibDeflater(65536);
 * deflater.write(new TextEncoder().encode("hello, hello"));
 * deflater.close();
 * const parts: Uint8Array<ArrayBuffer>[] = [];
 * for (let part; (part = await deflater.read()) !== undefined;) {
 *   parts.push(part.slice());
 * }
 * const deflated = new Uint8Array(await new Blob(parts).arrayBuffer());
 * assert.equal(inflateRawSync(deflated).toString(), "hello, hello");
 * assert.equal(deflater.crc32(), 0xf3ccc5ff);
 * ```
 */
export const zlibDeflater = (
  outputBytes: number,
  level = LEVEL,
): Deflater => {
  const zlib: typeof import("node:zlib") = load("node:zlib");
  const deflate = zlib.createDeflateRaw({ level, windowBits: WINDOW_BITS });
  let crc32 = 0;
  const pieces: Uint8Array[] = [];
  let held = 0;
  let ended = false;
  let failure: { error: unknown } | undefined;
  let waiting: Waiting | undefined;
  /** Settles the waiting read, if any; whether there was one. */
  const wake = (settle: (reader: Waiting) => void) => {
    const reader = waiting;
    if (reader === undefined) return false;
    waiting = undefined;
    settle(reader);
    return true;
  };
  const fail = (error: unknown) => {
    failure ??= { error };
    wake((reader) => reader.reject(error));
  };
  deflate.on("data", (piece: Uint8Array) => {
    if (wake((reader) => reader.resolve(piece))) return;
    pieces.push(piece);
    held += piece.length;
    if (held >= outputBytes) deflate.pause();
  });
  deflate.once("end", () => {
    ended = true;
    wake((reader) => reader.resolve(undefined));
  });
  deflate.once("error", fail);
  return {
    write(chunk) {
      crc32 = zlib.crc32(chunk, crc32);
      return new Promise((resolve, reject) => {
        deflate.write(chunk, (error) => error ? reject(error) : resolve());
      });
    },
    close: () =>
      new Promise((resolve, reject) => {
        if (failure !== undefined) reject(failure.error);
        else {
          deflate.once("error", reject);
          deflate.end(resolve);
        }
      }),
    read() {
      const piece = pieces.shift();
      if (piece !== undefined) {
        held -= piece.length;
        if (held < outputBytes) deflate.resume();
        return Promise.resolve(piece);
      }
      if (failure !== undefined) return Promise.reject(failure.error);
      if (ended) return Promise.resolve(undefined);
      deflate.resume();
      return new Promise((resolve, reject) => waiting = { resolve, reject });
    },
    crc32: () => crc32,
    abort(reason) {
      fail(reason);
      deflate.destroy();
    },
  };
};
