/**
 * `POST /v1/call/message/bulk`: the transcripts of many calls as one ZIP.
 *
 * @module
 */
import { authenticate, authorize } from "../auth.ts";
import { readBody } from "../body.ts";
import { parseBulkRequest } from "../bulk_request.ts";
import { HttpError } from "../http_error.ts";
import { transcriptArchive } from "../transcript_archive.ts";
import type { OperationContext } from "./context.ts";

/**
 * Answers with a streamed ZIP of the requested calls' transcripts, or 404
 * `NO_TRANSCRIPTS_FOUND` when none of them has a message. The 404 decision is
 * made on the store's first chunk, before any byte is sent.
 *
 * @example
 * ```ts
 * import { bulkDownload } from "./bulk_download.ts";
 * import { MemoryStore } from "../memory_store.ts";
 *
 * const response = await bulkDownload({
 *   request: new Request("http://x/v1/call/message/bulk", { method: "POST" }),
 *   params: {},
 *   store: new MemoryStore(),
 *   now: () => new Date(),
 *   reportError: console.error,
 * }).catch((error) => error.status); // 401: no token
 * ```
 */
export async function bulkDownload(
  { request, store, now, reportError, headers }: OperationContext,
): Promise<Response> {
  const grant = await authenticate(request, store);
  const callIds = parseBulkRequest(
    await readBody(request),
    request.headers.get("content-type"),
  );
  authorize(grant, "transcripts:read");

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
  const archive = transcriptArchive(first.value, chunks, {
    lastModified: now(),
    onError: reportError,
  });
  return new Response(archive, {
    headers: {
      "content-type": "application/zip",
      "content-disposition": 'attachment; filename="transcripts.zip"',
      ...headers,
    },
  });
}
