/**
 * `POST /v1/call/message/bulk`: the transcripts of many calls as one ZIP.
 *
 * @module
 */
import { authenticate, authorize } from "../auth.ts";
import { readBody } from "../request_body.ts";
import { parseBulkRequest } from "../validation/mod.ts";
import { HttpError } from "../http_error.ts";
import { transcriptArchive } from "../transcript_archive.ts";
import type { OperationContext } from "./context.ts";
import type { ExportRefusal } from "./export_slots.ts";
import {
  DEFAULT_EXPORT_STALL_TIMEOUT_MS,
  watchedExport,
} from "./stall_watch.ts";

/** When a client refused for too many exports should try again, in seconds. */
const RETRY_AFTER_SECONDS = "1";

/**
 * Answers with a streamed ZIP of the requested calls' transcripts, or 404
 * `NO_TRANSCRIPTS_FOUND` when none of them has a message. The 404 decision is
 * made on the store's first chunk, before any byte is sent. When the
 * context's export slots are all taken, or the project's share of them,
 * answers 503 `TOO_MANY_EXPORTS` with `Retry-After`; a slot is held until the
 * ZIP ends, fails, is cancelled, or its client has read nothing for
 * `exportStallTimeoutMs` (then the transfer is cut).
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
    exportStallTimeoutMs = DEFAULT_EXPORT_STALL_TIMEOUT_MS,
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

  const release = exportSlots === undefined
    ? () => {}
    : exportSlots.take(grant.projectId);
  if (typeof release !== "function") throw tooManyExports(release);
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
  const body = watchedExport(archive, {
    stallTimeoutMs: exportStallTimeoutMs,
    onEnd: release,
  });
  return new Response(body, {
    headers: {
      "content-type": "application/zip",
      "content-disposition": 'attachment; filename="transcripts.zip"',
      ...headers,
    },
  });
}

function tooManyExports({ full, max }: ExportRefusal): HttpError {
  return new HttpError(
    503,
    "TOO_MANY_EXPORTS",
    full === "server"
      ? `The server is streaming its maximum of ${max} exports at once; retry shortly`
      : `This project is streaming its maximum of ${max} exports at once; retry shortly`,
    { headers: { "retry-after": RETRY_AFTER_SECONDS } },
  );
}
