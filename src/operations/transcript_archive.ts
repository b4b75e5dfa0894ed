/**
 * The bulk export's ZIP, written as it is sent: one `<call_id>.json` entry
 * per call, deflated, each holding exactly the JSON array that
 * `GET /v1/call/{call_id}/message` returns.
 *
 * @module
 */
import type { TranscriptChunk } from "../store/mod.ts";
import { type ZipCompression, ZipStream } from "../zip/mod.ts";

/** Options of {@linkcode transcriptArchive}. */
export interface TranscriptArchiveOptions {
  /** The modification time written on every entry. */
  lastModified: Date;
  /** Told of a failure that aborted the archive midway. */
  onError: (error: unknown) => void;
  /**
   * How the entries are deflated. Default: the runtime's
   * `CompressionStream("gzip")`, 64 KiB of text read ahead.
   */
  compression?: ZipCompression;
}

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
 * @param options Entry timestamp, failure report and compression.
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
  const zip = new ZipStream({
    ...options.compression,
    lastModified: options.lastModified,
  });
  writeArchive(zip, first, rest).then(() => zip.close(), (error: unknown) => {
    // A reader that went away is not a failure worth a log line.
    if (!zip.cancelled) options.onError(error);
    zip.abort(error);
    rest.return?.().catch(() => {});
  });
  return zip.readable;
}

async function writeArchive(
  zip: ZipStream,
  first: TranscriptChunk,
  rest: AsyncIterator<TranscriptChunk>,
): Promise<void> {
  let next: TranscriptChunk | undefined = first;
  // One chunk read ahead: the store works while the archive is written. Its
  // failure is handled where it is awaited; the no-op catch only keeps it
  // from being reported as unhandled meanwhile.
  let following = readAhead(rest);
  while (next !== undefined) {
    const callId: string = next.callId;
    const entry = await zip.add(`${callId}.json`);
    let separator = "[";
    while (next?.callId === callId) {
      const { messages } = next;
      // Indexed: `for...of` in this async function allocates an iterator
      // result per message, garbage that grows the young generation.
      for (let i = 0; i < messages.length; i += 1) {
        // Awaited only when the archive's reader is behind: an await per
        // message would cost a promise each.
        const afterSeparator = entry.write(separator);
        if (afterSeparator !== undefined) await afterSeparator;
        const afterMessage = entry.write(messages[i]!);
        if (afterMessage !== undefined) await afterMessage;
        separator = ",";
      }
      const result = await following;
      next = result.done ? undefined : result.value;
      if (next !== undefined) following = readAhead(rest);
    }
    await entry.write("]");
    entry.close();
  }
}

/** The iterator's next result, already asked for. */
function readAhead<T>(
  iterator: AsyncIterator<T>,
): Promise<IteratorResult<T>> {
  const result = iterator.next();
  result.catch(() => {});
  return result;
}
