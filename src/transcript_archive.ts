/**
 * The bulk export's ZIP, written with zip.js as it is sent: one
 * `<call_id>.json` entry per call, deflated, each holding exactly the JSON
 * array that `GET /v1/call/{call_id}/message` returns.
 *
 * @module
 */
// zip.js's pure-JavaScript build: its default build instantiates a WebAssembly
// codec fetched from a `data:` URL on first use, a request that MSW reports
// (and strict sandboxes refuse). Same deflate, same bytes (README, zip.js).
import { configure, ZipWriter } from "@zip.js/zip.js/lib/zip-core-native.js";
import type { TranscriptChunk } from "./store/store.ts";

/** Options of {@linkcode transcriptArchive}. */
export interface TranscriptArchiveOptions {
  /** The modification time written on every entry. */
  lastModified: Date;
  /** Told of a failure that aborted the archive midway. */
  onError: (error: unknown) => void;
}

const encoder = new TextEncoder();

// zip.js writes at most `maxWorkers` entries at once in the whole process,
// across archives (default: the number of cores); an archive whose client
// stopped reading keeps its slot, so on two cores two stalled downloads held
// up every other export. The handler's own export limit bounds them instead.
configure({ maxWorkers: Number.MAX_SAFE_INTEGER });

/** The deflate level of every entry (zlib's scale: 1 fastest, 9 smallest). */
const DEFLATE_LEVEL = 3;

/** About how many characters of JSON are encoded and deflated at a time. */
const PIECE_LENGTH = 64 * 1024;

/**
 * Streams the ZIP archive of a run of transcript chunks. Chunks are pulled
 * only as fast as the archive is read (one chunk ahead, so that the store's
 * reads overlap with compression), so memory stays bounded whatever the
 * transcripts' size. When the chunks fail midway the stream errors (the
 * response is aborted, never ended as a truncated archive that looks
 * complete); when the reader cancels, the chunk iterator is closed.
 *
 * @param first The first chunk, already read (the caller peeks it to tell an
 * empty export from a real one before sending anything).
 * @param rest The chunks after `first`.
 * @param options Entry timestamp and failure report.
 * @returns The archive's bytes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { transcriptArchive } from "./transcript_archive.ts";
 *
 * async function* none() {}
 * const zip = transcriptArchive(
 *   { callId: "5d1f8a8e-2b7c-4f3e-8f00-6a7d5c4b3a21", messages: ['{"text":"hi"}'] },
 *   none(),
 *   { lastModified: new Date(), onError: console.error },
 * );
 * const bytes = new Uint8Array(await new Response(zip).arrayBuffer());
 * assert.deepEqual([...bytes.subarray(0, 4)], [0x50, 0x4b, 0x03, 0x04]); // "PK\x03\x04"
 * ```
 */
export function transcriptArchive(
  first: TranscriptChunk,
  rest: AsyncIterator<TranscriptChunk>,
  options: TranscriptArchiveOptions,
): ReadableStream<Uint8Array> {
  let fail!: (error: unknown) => void;
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>({
    start(controller) {
      fail = (error) => controller.error(error);
    },
  });
  const output = readable.getReader();
  let cancelled = false;
  writeArchive(writable, first, rest, options).catch((error: unknown) => {
    fail(error);
    // A reader that went away is not a failure worth a log line.
    if (!cancelled) options.onError(error);
    rest.return?.().catch(() => {});
  });
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await output.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel(reason) {
      cancelled = true;
      return output.cancel(reason);
    },
  }, { highWaterMark: 0 });
}

async function writeArchive(
  writable: WritableStream<Uint8Array>,
  first: TranscriptChunk,
  rest: AsyncIterator<TranscriptChunk>,
  { lastModified }: TranscriptArchiveOptions,
): Promise<void> {
  // zip.js's own deflate (its JavaScript zlib port) rather than the native
  // CompressionStream: the same bytes on every runtime, and on Node 1.09x
  // Info-ZIP's `zip -6` time end to end against 1.76x for the native stream,
  // whose cost is per entry (bench/README.md). Level 3, not 5: zlib's fast
  // strategy, 13-39 % less time end to end for 8 % more bytes, which brings
  // the export under `zip -6` on Deno and Bun and within 1.3x on Node.
  // Workers are off: sequential entries gain nothing, and idle workers kept
  // Deno and Bun processes alive.
  const zip = new ZipWriter(writable, {
    useWebWorkers: false,
    useCompressionStream: false,
    level: DEFLATE_LEVEL,
    lastModDate: lastModified,
  });
  let next: TranscriptChunk | undefined = first;
  // One chunk read ahead: the store works while zip.js deflates. Its failure
  // is handled where it is awaited; the no-op catch only keeps it from being
  // reported as unhandled meanwhile.
  let following = readAhead(rest);
  async function* entryText(callId: string): AsyncGenerator<string> {
    let separator = "[";
    while (next?.callId === callId) {
      const { messages } = next;
      // Pieces of about PIECE_LENGTH characters: a long transcript joined
      // whole is one large string and one large buffer per call, which the
      // garbage collector leaves to its slower old-space collections.
      let start = 0;
      let length = 0;
      for (let i = 0; i < messages.length; i += 1) {
        length += messages[i]!.length + 1;
        if (length >= PIECE_LENGTH || i === messages.length - 1) {
          yield separator + messages.slice(start, i + 1).join(",");
          separator = ",";
          start = i + 1;
          length = 0;
        }
      }
      const result = await following;
      next = result.done ? undefined : result.value;
      if (next !== undefined) following = readAhead(rest);
    }
    yield "]";
  }
  while (next !== undefined) {
    const callId = next.callId;
    await zip.add(`${callId}.json`, byteStream(entryText(callId)));
  }
  await zip.close();
}

/** The iterator's next result, already asked for. */
function readAhead<T>(
  iterator: AsyncIterator<T>,
): Promise<IteratorResult<T>> {
  const result = iterator.next();
  result.catch(() => {});
  return result;
}

/** A UTF-8 byte stream pulled from an iterator of texts. */
function byteStream(texts: AsyncIterator<string>): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const result = await texts.next();
      if (result.done) controller.close();
      else controller.enqueue(encoder.encode(result.value));
    },
  });
}
