/**
 * The export's deflater on `node:zlib`, for the runtimes whose zlib runs on a
 * thread pool (Node's libuv pool, Bun's "Bun Pool"): a
 * `zlib.createDeflateRaw()` driven by plain calls, its CRC-32 by
 * `zlib.crc32`, instead of a gzip stream behind web streams, whose
 * promises and queues cost Node's main thread more than the rest of the
 * export. Several entries still deflate at once, on the pool. An entry ends
 * with a `Z_FINISH` flush, not the stream's end, and its zlib stream is
 * reset for a later entry: a stream made for every entry (its native state,
 * its buffers) cost Node's export a major collection of the whole heap
 * each time (bench/README.md). `node:zlib` is loaded at the first export,
 * not at start: on Bun loading it costs a sixth of a start's CPU.
 *
 * @module
 */
import { createRequire } from "node:module";
import type { DeflateRaw } from "node:zlib";
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

/**
 * zlib streams kept for later entries, per level: as many as one export
 * deflates at once (the writer's entries in flight). About 200 KiB of
 * native state each; more exports at once make and drop the others.
 */
const KEPT_PER_LEVEL = 4;

/** A read waiting for the next piece of deflated data. */
interface Waiting {
  resolve: (piece: Uint8Array | undefined) => void;
  reject: (error: unknown) => void;
}

/** What a zlib stream tells the entry it serves. */
interface Owner {
  data(piece: Uint8Array): void;
  fail(error: unknown): void;
}

/** A zlib stream, kept between entries, and the entry it serves now. */
interface Slot {
  stream: DeflateRaw;
  owner: Owner | undefined;
}

/** Streams waiting for an entry, by level. */
const kept = new Map<number, Slot[]>();

/** A reset stream of that level, or a new one. */
function takeSlot(zlib: typeof import("node:zlib"), level: number): Slot {
  const slot = kept.get(level)?.pop();
  if (slot !== undefined) return slot;
  const stream = zlib.createDeflateRaw({ level, windowBits: WINDOW_BITS });
  const made: Slot = { stream, owner: undefined };
  stream.on("data", (piece: Uint8Array) => made.owner?.data(piece));
  stream.on("error", (error: unknown) => made.owner?.fail(error));
  return made;
}

/** Resets a stream whose entry has all its data, and keeps it if room. */
function releaseSlot(slot: Slot, level: number): void {
  slot.owner = undefined;
  const { stream } = slot;
  if (stream.destroyed) return;
  const slots = kept.get(level) ?? [];
  kept.set(level, slots);
  if (slots.length >= KEPT_PER_LEVEL) {
    stream.destroy();
    return;
  }
  stream.reset();
  stream.resume();
  slots.push(slot);
}

/**
 * A deflater on `node:zlib`, by default at level 6 with a 16 KiB window:
 * what a server hands the core as `ZipCompression.deflater`. A write
 * resolves once zlib has taken the chunk in whole; past `outputBytes` of
 * deflated data unread, zlib pauses, and the writes wait. Its zlib stream
 * serves a later entry once this one's data is all out.
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
  const slot = takeSlot(zlib, level);
  const { stream } = slot;
  let crc32 = 0;
  const pieces: Uint8Array[] = [];
  let held = 0;
  /** The `Z_FINISH` flush is done: the entry ends once zlib's output is out. */
  let flushed = false;
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
  const owner: Owner = {
    data(piece) {
      if (!wake((reader) => reader.resolve(piece))) {
        pieces.push(piece);
        held += piece.length;
        if (held >= outputBytes) stream.pause();
      }
      endIfOut();
    },
    fail(error) {
      failure ??= { error };
      wake((reader) => reader.reject(error));
    },
  };
  slot.owner = owner;
  /** Whether the stream still serves this entry. */
  const owns = () => slot.owner === owner;
  /** Ends the entry once the flush is done and zlib holds none of its data. */
  const endIfOut = () => {
    if (!flushed || ended || stream.readableLength > 0) return;
    ended = true;
    releaseSlot(slot, level);
    wake((reader) => reader.resolve(undefined));
  };
  return {
    write(chunk) {
      crc32 = zlib.crc32(chunk, crc32);
      return new Promise((resolve, reject) => {
        stream.write(chunk, (error) => error ? reject(error) : resolve());
      });
    },
    close: () =>
      new Promise((resolve, reject) => {
        if (failure !== undefined) return reject(failure.error);
        stream.flush(zlib.constants.Z_FINISH, (error?: Error | null) => {
          if (error) return reject(error);
          flushed = true;
          endIfOut();
          resolve();
        });
      }),
    read() {
      const piece = pieces.shift();
      if (piece !== undefined) {
        held -= piece.length;
        if (held < outputBytes && owns()) stream.resume();
        return Promise.resolve(piece);
      }
      if (failure !== undefined) return Promise.reject(failure.error);
      if (ended) return Promise.resolve(undefined);
      stream.resume();
      return new Promise((resolve, reject) => waiting = { resolve, reject });
    },
    crc32: () => crc32,
    abort(reason) {
      owner.fail(reason);
      // A stream already serving another entry is not this entry's to stop.
      if (!owns()) return;
      slot.owner = undefined;
      stream.destroy();
    },
  };
};
