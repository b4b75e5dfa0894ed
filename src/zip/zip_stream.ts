/**
 * A ZIP archive written as it is read: entries are added one after another,
 * deflated by the runtime's own `CompressionStream` (zlib or its kin, in
 * native code), several at once where the runtime compresses off the main
 * thread, and written in the order they were added.
 *
 * @module
 */
import {
  centralDirectory,
  type CentralEntry,
  dataDescriptor,
  type EntryTime,
  entryTime,
  localHeader,
} from "./_records.ts";
import {
  type Deflater,
  type DeflaterFactory,
  gzipDeflater,
} from "./_deflater.ts";
import { type GzipCompressor, gzipCompressor, type GzipPair } from "./_gzip.ts";

export type { Deflater, DeflaterFactory, GzipCompressor, GzipPair };

/** How a {@linkcode ZipStream} deflates its entries. */
export interface ZipCompression {
  /**
   * Makes the compressor of each entry. Default: the runtime's
   * `CompressionStream("gzip")` (its deflate at zlib's default level, 6, and
   * the CRC-32 in its trailer), or fflate's where there is none.
   */
  gzip?: GzipCompressor;
  /**
   * Makes the deflater of each entry directly, instead of `gzip`: no web
   * streams between the writer and the deflate, where they cost more than it
   * (Node's).
   */
  deflater?: DeflaterFactory;
  /**
   * Bytes of text that may be added to the entries after the one being sent:
   * how far the writer runs ahead of the reader, so that the next entries
   * compress meanwhile. More keeps more compressors busy where they run in
   * parallel (a thread pool, workers). Default 64 KiB.
   */
  readAheadBytes?: number;
  /**
   * Encodes text into the writer's buffers without allocating: where a
   * runtime has such a call (Node's and Bun's `Buffer#utf8Write`), instead
   * of `TextEncoder.encodeInto`, which makes a view and a result object for
   * each write, the export's main garbage.
   */
  utf8Write?: Utf8Writer;
}

/**
 * Writes the UTF-8 of `text` into `buffer` from `at` and returns the bytes
 * written, as `TextEncoder` encodes it (a lone surrogate as U+FFFD). Called
 * only where the text surely fits: 3 bytes for each of its UTF-16 units.
 */
export type Utf8Writer = (
  text: string,
  buffer: Uint8Array,
  at: number,
) => number;

/** Options of {@linkcode ZipStream}. */
export interface ZipStreamOptions extends ZipCompression {
  /** The modification time written on every entry. */
  lastModified: Date;
}

/**
 * Entries deflated at most at once: the one being sent and those after it,
 * whose deflated data waits in memory until its turn.
 */
const MAX_ENTRIES_IN_FLIGHT = 4;

/** The default of {@linkcode ZipStreamOptions.readAheadBytes}. */
const READ_AHEAD_BYTES = 64 * 1024;

/** Bytes of the archive gathered into one chunk for its reader. */
const SEND_BYTES = 64 * 1024;

/** Deflated bytes an entry may hold before its compressor waits. */
const ENTRY_OUTPUT_BYTES = 256 * 1024;

/** The size of the buffers text is encoded into. */
const BUFFER_BYTES = 64 * 1024;
/** How many buffers an archive may have: 512 KiB of text not yet deflated. */
const MAX_BUFFERS = 8;
/** How many of an entry's buffers are kept for the entries after it. */
const REUSED_PER_ENTRY = 2;

const encoder = new TextEncoder();
const ONE_ASCII: TextEncoderEncodeIntoResult = { read: 1, written: 1 };
/** The most bytes a UTF-16 unit takes in UTF-8. */
const MAX_BYTES_PER_UNIT = 3;

/** One entry being compressed or sent. */
class Entry {
  readonly name: Uint8Array;
  readonly deflater: Deflater;
  /** Uncompressed bytes written so far. */
  size = 0;
  /** Deflated bytes sent so far. */
  compressedSize = 0;
  /** Whether its writer closed it: the rest of its data needs no more text. */
  closed = false;
  /** The buffer being filled, and how much of it is. */
  buffer: Uint8Array<ArrayBuffer> | undefined;
  filled = 0;
  /** Buffers handed to the compressor, reusable once it has ended. */
  readonly handedOver: Uint8Array<ArrayBuffer>[] = [];
  /** Where its local header starts, once it is being sent. */
  offset: number | undefined;

  constructor(name: string, deflater: Deflater) {
    this.name = encoder.encode(name);
    this.deflater = deflater;
  }
}

/** The writer of one entry's data, given by {@linkcode ZipStream.add}. */
export interface ZipEntryWriter {
  /**
   * Appends text to the entry, UTF-8 encoded. Returns a promise to await
   * before writing more when the archive's reader is behind, else nothing.
   */
  write(text: string): Promise<void> | undefined;
  /** Ends the entry's data. */
  close(): void;
}

/**
 * A streamed ZIP archive: {@linkcode ZipStream.add} an entry, write its data,
 * close it, add the next; {@linkcode ZipStream.close} after the last. The
 * archive's bytes come out of {@linkcode ZipStream.readable} in that order.
 *
 * Memory is bounded whatever the entries' size: writes wait while the reader
 * of the archive is behind (backpressure), with at most 4 entries, 64 KiB of
 * text (`readAheadBytes`) added after the entry being sent, 512 KiB of text
 * not yet deflated and 256 KiB of deflated data per entry in flight; the
 * archive's bytes go out in chunks of about 64 KiB, gathered from the
 * deflater's pieces. Entries carry Zip64 sizes, so any may pass 4 GiB.
 *
 * {@linkcode ZipStream.abort} errors the archive (a reader never takes a
 * truncated archive for a whole one); when the reader cancels, pending and
 * later calls reject and {@linkcode ZipStream.cancelled} turns true.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ZipStream } from "./zip_stream.ts";
 *
 * const zip = new ZipStream({ lastModified: new Date() });
 * const reading = new Response(zip.readable).arrayBuffer();
 * const entry = await zip.add("hello.txt");
 * await entry.write("hello");
 * entry.close();
 * zip.close();
 * const bytes = new Uint8Array(await reading);
 * assert.deepEqual([...bytes.subarray(0, 4)], [0x50, 0x4b, 0x03, 0x04]);
 * ```
 */
export class ZipStream {
  /** The archive's bytes. */
  readonly readable: ReadableStream<Uint8Array>;
  readonly #time: EntryTime;
  readonly #deflater: DeflaterFactory;
  readonly #readAheadBytes: number;
  readonly #utf8Write: Utf8Writer | undefined;
  /** What `#utf8Write` encoded last, one object for every write. */
  readonly #encoded = { read: 0, written: 0 };
  /** Entries added and not yet sent whole; the first is being sent. */
  readonly #entries: Entry[] = [];
  readonly #written: CentralEntry[] = [];
  /** Bytes of the archive gathered or sent so far. */
  #offset = 0;
  /** The archive's next bytes, not yet sent. */
  readonly #gathered: Uint8Array[] = [];
  #gatheredBytes = 0;
  /** Buffers being filled or not yet taken in by a compressor. */
  #buffers = 0;
  /** Buffers of entries whose compressors have ended, free for reuse. */
  readonly #free: Uint8Array<ArrayBuffer>[] = [];
  /** Uncompressed bytes of the entries after the one being sent. */
  #readAhead = 0;
  #closed = false;
  #cancelled = false;
  #failure: { reason: unknown } | undefined;
  #wake: () => void = () => {};
  readonly #errorReadable: (reason: unknown) => void;
  #changed: Promise<void> | undefined;

  /**
   * Opens an archive with no entry yet: add entries, then close it.
   *
   * @param options Entry time, compressor and read-ahead.
   */
  constructor(options: ZipStreamOptions) {
    this.#time = entryTime(options.lastModified);
    const gzip = options.gzip ?? gzipCompressor;
    this.#deflater = options.deflater ??
      (async (outputBytes) => gzipDeflater(await gzip(), outputBytes));
    this.#readAheadBytes = options.readAheadBytes ?? READ_AHEAD_BYTES;
    this.#utf8Write = options.utf8Write;
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    this.readable = new ReadableStream<Uint8Array>({
      start: (c) => void (controller = c),
      pull: () =>
        this.#pull(controller).catch((error: unknown) => {
          // A compressor that failed stops the writer too.
          this.#fail(error);
          throw error;
        }),
      cancel: (reason) => {
        this.#cancelled = true;
        this.#fail(reason);
      },
    }, { highWaterMark: 0 });
    this.#errorReadable = (reason) => controller.error(reason);
  }

  /** Whether the archive's reader cancelled it. */
  get cancelled(): boolean {
    return this.#cancelled;
  }

  /**
   * Starts the next entry, once fewer than 4 entries are in flight. Close
   * the previous entry first.
   *
   * @param name The entry's path in the archive.
   * @returns The writer of the entry's data.
   */
  async add(name: string): Promise<ZipEntryWriter> {
    while (this.#entries.length >= MAX_ENTRIES_IN_FLIGHT) await this.#change();
    this.#check();
    const entry = new Entry(
      name,
      await this.#deflater(ENTRY_OUTPUT_BYTES),
    );
    this.#check();
    this.#entries.push(entry);
    this.#notify();
    return {
      write: (text) => this.#write(entry, text),
      close: () => {
        this.#check();
        this.#flush(entry);
        entry.closed = true;
        entry.deflater.close().catch((error) => this.#fail(error));
      },
    };
  }

  /** Ends the archive after the entries added so far. */
  close(): void {
    this.#closed = true;
    this.#notify();
  }

  /** Errors the archive with `reason` and frees its compressors. */
  abort(reason: unknown): void {
    this.#fail(reason);
  }

  #write(entry: Entry, text: string): Promise<void> | undefined {
    this.#check();
    for (;;) {
      entry.buffer ??= this.#takeBuffer();
      if (entry.buffer === undefined) {
        return this.#change().then(() => this.#write(entry, text));
      }
      const { read = 0, written = 0 } = this.#encode(
        entry.buffer,
        entry.filled,
        text,
      );
      entry.filled += written;
      entry.size += written;
      if (entry !== this.#entries[0]) this.#readAhead += written;
      if (read === text.length) break;
      text = text.slice(read);
      this.#flush(entry);
    }
    if (entry !== this.#entries[0] && this.#readAhead > this.#readAheadBytes) {
      // Let its compressor work on what it has while the entry waits.
      this.#flush(entry);
      return this.#readAheadTaken(entry);
    }
    return undefined;
  }

  async #readAheadTaken(entry: Entry): Promise<void> {
    while (
      entry !== this.#entries[0] && this.#readAhead > this.#readAheadBytes
    ) {
      await this.#change();
    }
  }

  /**
   * Encodes as much of `text` as fits into `buffer` from `at`. A single ASCII
   * character (a JSON separator) is stored without a view or a result object:
   * the export writes one per message; so is text that surely fits, where
   * there is a {@linkcode ZipCompression.utf8Write}.
   */
  #encode(
    buffer: Uint8Array<ArrayBuffer>,
    at: number,
    text: string,
  ): TextEncoderEncodeIntoResult {
    const code = text.length === 1 ? text.charCodeAt(0) : 0x80;
    if (code < 0x80 && at < buffer.length) {
      buffer[at] = code;
      return ONE_ASCII;
    }
    const utf8Write = this.#utf8Write;
    if (
      utf8Write !== undefined &&
      text.length * MAX_BYTES_PER_UNIT <= buffer.length - at
    ) {
      const encoded = this.#encoded;
      encoded.written = utf8Write(text, buffer, at);
      encoded.read = text.length;
      return encoded;
    }
    return encoder.encodeInto(text, buffer.subarray(at));
  }

  /** A new buffer, or `undefined` while there are as many as allowed. */
  #takeBuffer(): Uint8Array<ArrayBuffer> | undefined {
    if (this.#buffers === MAX_BUFFERS) return undefined;
    this.#buffers += 1;
    return this.#free.pop() ?? new Uint8Array(BUFFER_BYTES);
  }

  /**
   * Hands the entry's buffer to its compressor. Reused only once the
   * compressor has ended: Node's `CompressionStream` resolves a write of less
   * than 16 KiB before zlib has read it.
   */
  #flush(entry: Entry): void {
    const { buffer, filled } = entry;
    if (buffer === undefined) return;
    entry.buffer = undefined;
    entry.filled = 0;
    const release = () => {
      this.#buffers -= 1;
      this.#notify();
    };
    if (filled === 0) {
      this.#free.push(buffer);
      release();
    } else {
      if (entry.handedOver.length < REUSED_PER_ENTRY) {
        entry.handedOver.push(buffer);
      }
      entry.deflater.write(buffer.subarray(0, filled)).then(
        release,
        (error) => this.#fail(error),
      );
    }
  }

  /**
   * Sends the next piece of the archive: what comes next, gathered up to
   * {@linkcode SEND_BYTES} (a header, the deflater's pieces, a descriptor),
   * so that each chunk the reader takes is worth its cost. Gathering waits
   * only on entries already closed, never on text still to be written.
   */
  async #pull(
    controller: ReadableStreamDefaultController<Uint8Array>,
  ): Promise<void> {
    for (;;) {
      this.#check();
      if (this.#gatheredBytes >= SEND_BYTES) return this.#send(controller);
      const head = this.#entries[0];
      if (head === undefined) {
        if (!this.#closed) {
          if (this.#gatheredBytes > 0) return this.#send(controller);
          await this.#change();
          continue;
        }
        this.#gather(centralDirectory(this.#written, this.#offset, this.#time));
        this.#send(controller);
        controller.close();
        return;
      }
      // What an open entry deflates next may wait on text its writer has
      // yet to write: what is gathered goes first.
      if (!head.closed && this.#gatheredBytes > 0) {
        return this.#send(controller);
      }
      if (head.offset === undefined) {
        head.offset = this.#offset;
        this.#gather(localHeader(head.name, this.#time));
        continue;
      }
      const value = await head.deflater.read();
      this.#check();
      if (value !== undefined) {
        head.compressedSize += value.length;
        this.#gather(value);
        continue;
      }
      const crc32 = head.deflater.crc32();
      const { compressedSize } = head;
      this.#gather(dataDescriptor({ crc32, compressedSize, size: head.size }));
      this.#written.push({
        name: head.name,
        crc32,
        compressedSize,
        size: head.size,
        offset: head.offset,
      });
      this.#entries.shift();
      // Its compressor has ended: it will read none of them again.
      this.#free.push(...head.handedOver);
      this.#readAhead -= this.#entries[0]?.size ?? 0;
      this.#notify();
    }
  }

  /** Adds the archive's next bytes to what the next chunk sends. */
  #gather(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    this.#offset += bytes.length;
    this.#gathered.push(bytes);
    this.#gatheredBytes += bytes.length;
  }

  /** Sends what is gathered as one chunk. */
  #send(controller: ReadableStreamDefaultController<Uint8Array>): void {
    const pieces = this.#gathered;
    let chunk = pieces[0]!;
    if (pieces.length > 1) {
      chunk = new Uint8Array(this.#gatheredBytes);
      let at = 0;
      for (const piece of pieces) {
        chunk.set(piece, at);
        at += piece.length;
      }
    }
    pieces.length = 0;
    this.#gatheredBytes = 0;
    controller.enqueue(chunk);
  }

  /** Throws the failure, if any: everything stops at the first one. */
  #check(): void {
    if (this.#failure !== undefined) throw this.#failure.reason;
  }

  #fail(reason: unknown): void {
    if (this.#failure !== undefined) return;
    this.#failure = { reason };
    if (!this.#cancelled) this.#errorReadable(reason);
    for (const entry of this.#entries) entry.deflater.abort(reason);
    this.#notify();
  }

  /** Resolves at the next change of state (a write taken in, an entry sent). */
  #change(): Promise<void> {
    this.#check();
    this.#changed ??= new Promise((resolve) => this.#wake = resolve);
    return this.#changed;
  }

  #notify(): void {
    this.#changed = undefined;
    this.#wake();
  }
}
