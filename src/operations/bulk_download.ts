/**
 * `POST /v1/call/message/bulk`: the transcripts of many calls as one ZIP.
 *
 * @module
 */
import { authenticate, authorize } from "../auth.ts";
import { readBody } from "../validation/body.ts";
import { parseBulkRequest } from "../validation/mod.ts";
import { HttpError } from "../http_error.ts";
import { transcriptArchive } from "../transcript_archive.ts";
import type { OperationContext } from "./context.ts";
import { releasedAtEnd } from "./export_slots.ts";

/** When a client refused for too many exports should try again, in seconds. */
const RETRY_AFTER_SECONDS = "1";

/**
 * Answers with a streamed ZIP of the requested calls' transcripts, or 404
 * `NO_TRANSCRIPTS_FOUND` when none of them has a message. The 404 decision is
 * made on the store's first chunk, before any byte is sent. When the
 * context's export slots are all taken, answers 503 `TOO_MANY_EXPORTS` with
 * `Retry-After`; a slot is held until the ZIP ends, fails or is cancelled.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { bulkDownload } from "./bulk_download.ts";
 * import { MemoryStore } from "../store/memory_store.ts";
 *
 * await assert.rejects(
 *   bulkDownload({
 *     request: new Request("http://x/v1/call/message/bulk", { method: "POST" }),
 *     params: {},
 *     store: new MemoryStore(),
 *     now: () => new Date(),
 *     reportError: console.error,
 *   }),
 *   (error: { status: number }) => error.status === 401, // no token
 * );
 * ```
 */
export async function bulkDownload(
  {
    request,
    store,
    now,
    reportError,
    bodyTimeoutMs,
    exportSlots,
    headers,
  }: OperationContext,
): Promise<Response> {
  const grant = await authenticate(request, store);
  const callIds = parseBulkRequest(
    await readBody(
      request,
      bodyTimeoutMs === undefined ? {} : { timeoutMs: bodyTimeoutMs },
    ),
    request.headers.get("content-type"),
  );
  authorize(grant, "transcripts:read");

  const release = exportSlots === undefined ? () => {} : exportSlots.take();
  if (release === undefined) {
    throw new HttpError(
      503,
      "TOO_MANY_EXPORTS",
      `The server is streaming its maximum of ${
        exportSlots!.max
      } exports at once; retry shortly`,
      { headers: { "retry-after": RETRY_AFTER_SECONDS } },
    );
  }
  let archive: ReadableStream<Uint8Array>;
  try {
    const chunks = store.transcripts(grant.projectId, callIds)
      [Symbol.asyncIterator]();
    const first = await chunks.next();
    if (first.done) {
      throw new HttpError(
        404,
        "NO_TRANSCRIPTS_FOUND",
        "None of the requested calls has a transcript",
      );
    }
    archive = transcriptArchive(first.value, chunks, {
      lastModified: now(),
      onError: reportError,
    });
  } catch (error) {
    release();
    throw error;
  }
  return new Response(releasedAtEnd(archive, release), {
    headers: {
      "content-type": "application/zip",
      "content-disposition": 'attachment; filename="transcripts.zip"',
      ...headers,
    },
  });
}
