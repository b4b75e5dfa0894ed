/**
 * `POST /v1/call/message/bulk`: the transcripts of many calls as one ZIP.
 *
 * @module
 */
import { authorize } from "../auth/mod.ts";
import { WatchedBody } from "../http/mod.ts";
import { readBody } from "../http/mod.ts";
import { parseBulkRequest } from "../validation/mod.ts";
import { HttpError } from "../http/mod.ts";
import type { Store } from "../store/mod.ts";
import type { ZipCompression } from "../zip/mod.ts";
import type { GrantedContext, Operation } from "../http/mod.ts";
import type { ExportRefusal, ExportSlots } from "./export_slots.ts";

/** How long an export's client may read nothing before it is cut, in ms. */
export const DEFAULT_EXPORT_STALL_TIMEOUT_MS = 60_000;

/**
 * The archive's module and the ZIP writer under it, loaded at the first
 * export rather than at start: a server starts without them.
 */
let archiveModule:
  | Promise<typeof import("./transcript_archive.ts")>
  | undefined;

/** When a client refused for too many exports should try again, in seconds. */
const RETRY_AFTER_SECONDS = "1";

/** Settings of {@linkcode bulkDownload}. */
export interface BulkDownloadSettings {
  /** Where the transcripts are. */
  store: Store;
  /** The clock, for the entries' modification time. */
  now: () => Date;
  /** Told of a store failure that aborted an archive midway. */
  logError: (requestId: string, error: unknown) => void;
  /** How long the request body may take to arrive, in ms. */
  bodyTimeoutMs: number;
  /** The bound on exports streaming at once, in all and per project. */
  exportSlots: ExportSlots;
  /** How long a client may read nothing before its export is cut, in ms. */
  stallTimeoutMs: number;
  /**
   * The slowest a client may read, in bytes a second, averaged over each
   * `stallTimeoutMs` of its own reading time; below it its export is cut as
   * a stalled one. Default 0: any rate.
   */
  minBytesPerSecond?: number | undefined;
  /** How the archive's entries are deflated; default: the runtime's own. */
  compression?: ZipCompression | undefined;
}

/**
 * The operation that answers with a streamed ZIP of the requested calls'
 * transcripts, or 404 `NO_TRANSCRIPTS_FOUND` when none of them has a
 * message. The 404 decision is made on the store's first chunk, before any
 * byte is sent. When the export slots are all taken, or the project's share
 * of them, it answers 503 `TOO_MANY_EXPORTS` with `Retry-After`; a slot is
 * held until the ZIP ends, fails, is cancelled, or its client has read
 * nothing for `stallTimeoutMs` or read more slowly than `minBytesPerSecond`
 * (then the transfer is cut). The response is built by `context.stream`,
 * so the context knows the watch on its body, which gives the slot back.
 *
 * @param settings The store, the clock and the export's bounds.
 * @returns The operation.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Context } from "../http/context.ts";
 * import { bulkDownload } from "./bulk_download.ts";
 * import type { GrantedContext } from "../http/context.ts";
 * import { ExportSlots } from "./export_slots.ts";
 * import { MemoryStore } from "../store/memory_store.ts";
 *
 * const exportSlots = new ExportSlots(1);
 * const run = bulkDownload({
 *   store: new MemoryStore(),
 *   now: () => new Date(),
 *   logError: console.error,
 *   bodyTimeoutMs: 30_000,
 *   exportSlots,
 *   stallTimeoutMs: 60_000,
 * });
 * const context = new Context(
 *   new Request("http://x/v1/call/message/bulk", {
 *     method: "POST",
 *     headers: { "content-type": "application/json" },
 *     body: '{"call_ids": ["5d1f8a8e-2b7c-4f3e-8f00-6a7d5c4b3a21"]}',
 *   }),
 * );
 * context.grant = { projectId: "p", role: "viewer" };
 * await assert.rejects(
 *   run(context as GrantedContext),
 *   { status: 404, errorCode: "NO_TRANSCRIPTS_FOUND" },
 * );
 * assert.equal(exportSlots.running, 0); // the slot was given back
 * ```
 */
export function bulkDownload(
  settings: BulkDownloadSettings,
): Operation<GrantedContext> {
  const {
    store,
    now,
    logError,
    exportSlots,
    stallTimeoutMs,
    minBytesPerSecond,
    compression,
  } = settings;
  const bodyOptions = { timeoutMs: settings.bodyTimeoutMs };
  return async (context) => {
    const { request, requestId, grant } = context;
    const callIds = parseBulkRequest(
      await readBody(request, bodyOptions),
      request.headers.get("content-type"),
    );
    authorize(grant, "transcripts:read");

    const release = exportSlots.take(grant.projectId);
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
      const { transcriptArchive } =
        await (archiveModule ??= import("./transcript_archive.ts"));
      archive = transcriptArchive(first.value, chunks, {
        lastModified: now(),
        onError: (error) => logError(requestId, error),
        ...(compression === undefined ? {} : { compression }),
      });
    } catch (error) {
      release();
      throw error;
    }
    const body = new WatchedBody(archive, stallTimeoutMs, minBytesPerSecond);
    body.onEnd(release);
    return context.stream(body, {
      "content-type": "application/zip",
      "content-disposition": 'attachment; filename="transcripts.zip"',
    });
  };
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
