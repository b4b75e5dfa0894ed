/**
 * The request journal: what the mock was asked and what it answered, for a
 * test's assertions (`api.requests`, `GET /__mock/requests`).
 *
 * @module
 */
import { isoTimeNow } from "../src/telemetry/mod.ts";
import type { Context } from "../src/http/mod.ts";
import {
  ClientGoneError,
  readBodyStart,
  readDeclaredBody,
  SMALL_BODY_BYTES,
} from "../src/http/mod.ts";
import { isNetworkError } from "./drop_connection.ts";
import type { MockContext, MockStep } from "./mock_context.ts";

/** One request the mock answered. */
export interface JournalEntry {
  /** When the request arrived (ISO 8601, UTC). */
  time: string;
  /** The request's method. */
  method: string;
  /** The request's path, still percent-encoded. */
  path: string;
  /** The query string without `?`; empty when there is none. */
  query: string;
  /** The headers, names lower-cased; `authorization` masked to its scheme. */
  headers: Record<string, string>;
  /**
   * The body as UTF-8 text, cut at the journal's body limit; `null`: none,
   * or one that failed to arrive.
   */
  body: string | null;
  /** Whether `body` was cut at the limit. */
  body_truncated: boolean;
  /** The status answered; `null` when the connection was dropped. */
  status: number | null;
  /** The ErrorResponseSchema `error_code` of an error answer, else `null`. */
  error_code: string | null;
  /** Milliseconds until the answer's status and headers were ready. */
  duration_ms: number;
  /** The OpenAPI `operationId` of the request, `null` for other paths. */
  operation: string | null;
  /** The id of the fault rule applied (`fault-1`), `prefer` or `null`. */
  fault: string | null;
}

/** Options of {@linkcode RequestJournal}. */
export interface JournalOptions {
  /** How many entries to keep, the oldest dropped first. Default 1000. */
  limit?: number;
  /** How many bytes of each body to keep. Default 65536. */
  bodyLimit?: number;
}

/** Default of {@linkcode JournalOptions.limit}. */
export const DEFAULT_JOURNAL_LIMIT = 1000;
/** Default of {@linkcode JournalOptions.bodyLimit}. */
export const DEFAULT_JOURNAL_BODY_LIMIT = 65_536;

const decoder = new TextDecoder();

/**
 * An entry as the journal keeps it: the request's own `Headers` until the
 * entry is first read, then their copy. Copying them as each request
 * arrives made @hono/node-server build a full `Headers` from the raw ones
 * (it reads single headers from Node's parse otherwise): 3 µs of a mock
 * request's 33 µs of CPU. Until then an entry holds what those headers hold
 * (on Node, the incoming message): 1 to 3 KB more an entry, as many entries
 * as the journal keeps. The headers of a request whose body the journal
 * read from a clone are copied at once (see {@linkcode RequestJournal.start}).
 */
export interface NotedRequest extends Omit<JournalEntry, "headers" | "body"> {
  /** The headers as sent, or already copied (see {@linkcode JournalEntry}). */
  headers: Headers | Record<string, string>;
  /**
   * The body as read, cut at the journal's body limit: its bytes until
   * {@linkcode bodyText} first decodes them, then their text; `null` as in
   * {@linkcode JournalEntry.body}.
   */
  body: Uint8Array | string | null;
  /** The request URL's scheme and authority, e.g. `http://127.0.0.1:4010`. */
  origin: string;
  /** The answer's headers (copied when first read); `null` when dropped. */
  responseHeaders: Headers | Record<string, string> | null;
  /** The answer's body as far as the journal keeps it; see {@linkcode ResponseBody}. */
  responseBody: ResponseBody | null;
  /** The request token's role and project, once it was authenticated. */
  grant: { readonly role: string; readonly projectId: string } | null;
  /** The entry's number: 1 for the journal's first request, never reused. */
  seq: number;
}

/**
 * An answer's body as the journal keeps it. An answer built from a whole
 * body (`Context.built`: every JSON answer) is kept as it was built, at no
 * cost; any other (the export's ZIP stream, a body a fault cut) is read from
 * a clone of the response after it was handed to the server, up to the
 * journal's body limit; past it, the clone is dropped and only the size is
 * noted.
 */
export interface ResponseBody {
  /** The body, or `null` when it was over the limit or failed to arrive. */
  content: string | Uint8Array | null;
  /**
   * The body's size in bytes; for a streamed body past the limit, what
   * `Content-Length` says, else -1 (unknown).
   */
  size: number;
  /** Why the body did not arrive whole (a fault cut it), if it did not. */
  error: string | null;
  /** Milliseconds from the answer's headers to its last byte read here. */
  receiveMs: number;
  /** Settles when the body was read (or given up); none for a built one. */
  done?: Promise<void>;
}

/**
 * The last `limit` requests, oldest first.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Context } from "../src/http/context.ts";
 * import { RequestJournal } from "./journal.ts";
 *
 * const journal = new RequestJournal({ limit: 1 });
 * const context = new Context(
 *   new Request("http://mock/v1/x?a=1", {
 *     headers: { authorization: "Bearer secret" },
 *   }),
 * );
 * const started = await journal.start(context);
 * journal.finish(started, context.empty(204), context);
 * assert.equal(journal.entries()[0]!.headers.authorization, "Bearer ***");
 * ```
 */
export class RequestJournal {
  #entries: NotedRequest[] = [];
  #limit: number;
  #bodyLimit: number;
  #seq = 0;
  #clears = 0;

  /** @param options Entry and body limits. */
  constructor(options: JournalOptions = {}) {
    this.#limit = positive(options.limit, DEFAULT_JOURNAL_LIMIT, "limit");
    this.#bodyLimit = positive(
      options.bodyLimit,
      DEFAULT_JOURNAL_BODY_LIMIT,
      "bodyLimit",
    );
  }

  /** A copy of the entries, oldest first. */
  entries(): JournalEntry[] {
    const shown = this.#entries.slice(-this.#limit);
    return shown.map((entry) => {
      // Copied once, and kept: the request's headers can then go.
      if (entry.headers instanceof Headers) {
        entry.headers = copyHeaders(entry.headers);
      }
      return publicEntry(entry);
    });
  }

  /**
   * The entries with what the journal keeps beside them (origin, answer's
   * headers and body, token's grant, sequence number), oldest first, after
   * `after` (a {@linkcode NotedRequest.seq}) when given: what the HAR export
   * reads. The records are the journal's own: a reader may replace their
   * `Headers` by copies (as {@linkcode RequestJournal.entries} does) and
   * their body's bytes by its text ({@linkcode bodyText}), and change
   * nothing else.
   *
   * @param after Only entries numbered above this.
   * @param limit At most this many (the oldest first).
   * @returns The records.
   */
  records(after = 0, limit = Infinity): readonly NotedRequest[] {
    const shown = this.#entries.slice(-this.#limit);
    const first = shown.findIndex((entry) => entry.seq > after);
    return first === -1 ? [] : shown.slice(first, first + limit);
  }

  /** The number of the newest request so far (0: none yet). */
  get seq(): number {
    return this.#seq;
  }

  /** How many bytes of each body the journal keeps. */
  get bodyLimit(): number {
    return this.#bodyLimit;
  }

  /** How many times the journal was cleared: a reader's cue to start over. */
  get clears(): number {
    return this.#clears;
  }

  /** Forgets every entry. */
  clear(): void {
    this.#entries = [];
    this.#clears += 1;
  }

  /**
   * Notes a request as it arrives, with up to the body limit of its body: a
   * body whose `Content-Length` declares it within the limit (and within
   * {@linkcode SMALL_BODY_BYTES}) is read whole with the runtime's cheapest
   * read, and handed on to the handler (`readDeclaredBody`); any other is
   * read from a clone, the request's own body left unread. The bytes are
   * decoded when the entry is first read; the headers are copied then, or
   * at once when a body was read from a clone.
   *
   * @param request The request.
   * @returns The entry so far, to pass to {@linkcode finish}.
   */
  async start(context: Context): Promise<NotedRequest> {
    const { request } = context;
    const { url } = request;
    const query = url.indexOf("?");
    const fragment = url.indexOf("#");
    const may = mayHaveBody(context);
    const whole = may
      ? readDeclaredBody(request, Math.min(this.#bodyLimit, SMALL_BODY_BYTES))
      : undefined;
    // `request.body` is touched only when the cheap read does not suit.
    const read = whole !== undefined || (may && request.body !== null);
    const { body, truncated } = !read
      ? NO_BODY
      : await (whole === undefined
        ? this.#readBody(request)
        : noted(whole, this.#bodyLimit));
    const host = url.indexOf("/", url.indexOf("//") + 2);
    return {
      origin: host === -1 ? url : url.slice(0, host),
      responseHeaders: null,
      responseBody: null,
      grant: null,
      seq: 0,
      time: isoTimeNow(),
      method: request.method,
      path: context.pathname,
      query: query === -1 || (fragment !== -1 && fragment < query)
        ? ""
        : url.slice(query + 1, fragment === -1 ? url.length : fragment),
      // Once its body is read from a clone, a request's headers hold on to
      // the streams over its socket (on Node): they are copied at once. A
      // body read whole builds no stream.
      headers: read && whole === undefined
        ? copyHeaders(request.headers)
        : request.headers,
      body,
      body_truncated: truncated,
      status: null,
      error_code: null,
      duration_ms: 0,
      operation: null,
      fault: null,
    };
  }

  /**
   * Records a request once its answer is ready: its status (none for a
   * dropped connection), error code, duration, operation and fault, read
   * from its context.
   *
   * @param entry What {@linkcode RequestJournal.start} returned.
   * @param response The answer.
   * @param context The request's context.
   */
  finish(entry: NotedRequest, response: Response, context: MockContext): void {
    const dropped = isNetworkError(response);
    // The entry is the journal's own, from `start`: filled in, not copied.
    entry.status = dropped ? null : response.status;
    // The API's own errors (and the mock's) say their code without their
    // body being read; any other answer has none.
    entry.error_code = dropped ? null : context.errorCode ?? null;
    entry.duration_ms = Math.round(performance.now() - context.startedAt);
    entry.operation = context.vars.operation ?? null;
    entry.fault = context.vars.fault ?? null;
    keepAnswer(entry, response, dropped, context, this.#bodyLimit);
    entry.grant = context.grant ?? null;
    entry.seq = this.#seq += 1;
    this.#entries.push(entry);
    // Trimmed in batches: dropping the oldest entry on every request would
    // move all the others each time.
    if (this.#entries.length >= 2 * this.#limit) {
      this.#entries.splice(0, this.#entries.length - this.#limit);
    }
  }

  #readBody(request: Request): Promise<NotedBody> {
    return noted(
      readBodyStart(request.clone(), this.#bodyLimit),
      this.#bodyLimit,
    );
  }
}

/** A request's body as an entry notes it. */
interface NotedBody {
  body: Uint8Array | null;
  truncated: boolean;
}

/**
 * A body read, as the journal notes it: cut at `limit` (a body declared
 * within it is read whole, but a `Request` built in process may say less
 * than it holds); none when it failed to arrive, which is the handler's to
 * report.
 */
async function noted(
  read: Promise<Uint8Array | { bytes: Uint8Array; truncated: boolean }>,
  limit: number,
): Promise<NotedBody> {
  try {
    const result = await read;
    const { bytes, truncated } = result instanceof Uint8Array
      ? { bytes: result, truncated: false }
      : result;
    return bytes.byteLength > limit
      ? { body: bytes.subarray(0, limit), truncated: true }
      : { body: bytes, truncated };
  } catch (error) {
    if (error instanceof ClientGoneError) return NO_BODY;
    throw error;
  }
}

/**
 * A record's request body as UTF-8 text (see {@linkcode JournalEntry.body}):
 * decoded when first asked for, and kept.
 *
 * @param record A journal record.
 * @returns The text, or `null` for no body.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { bodyText, type NotedRequest } from "./journal.ts";
 *
 * const record = { body: new TextEncoder().encode("{}") } as NotedRequest;
 * assert.equal(bodyText(record), "{}");
 * assert.equal(record.body, "{}"); // kept decoded
 * ```
 */
export function bodyText(record: NotedRequest): string | null {
  if (record.body instanceof Uint8Array) {
    record.body = decoder.decode(record.body);
  }
  return record.body;
}

/**
 * Keeps an answer in its entry: as it was built when the context built it
 * (no copy, no stream), else its `Headers` and a clone's body.
 */
function keepAnswer(
  entry: NotedRequest,
  response: Response,
  dropped: boolean,
  context: MockContext,
  limit: number,
): void {
  if (dropped) return;
  const built = context.built;
  if (built?.response === response) {
    entry.responseHeaders = built.headers as Record<string, string>;
    if (built.body === null) return;
    // Over the limit, the body is not kept: the journal would hold it.
    const size = context.bodyLength ?? 0;
    entry.responseBody = {
      content: size > limit ? null : built.body,
      size,
      error: null,
      receiveMs: 0,
    };
    return;
  }
  entry.responseHeaders = response.headers;
  if (response.body !== null) {
    entry.responseBody = readResponse(response, limit);
  }
}

/**
 * Starts reading a clone of an answer's body, up to `limit` bytes: past it
 * the clone is cancelled, so that a long export still streams at its
 * client's pace (the other branch of the tee keeps what it has not sent).
 */
function readResponse(response: Response, limit: number): ResponseBody {
  const started = performance.now();
  const length = Number(response.headers.get("content-length") ?? NaN);
  const reader = response.clone().body!.getReader();
  const body: ResponseBody = {
    content: null,
    size: 0,
    error: null,
    receiveMs: 0,
  };
  const chunks: Uint8Array[] = [];
  let size = 0;
  body.done = (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.byteLength;
        if (size > limit) {
          body.size = Number.isInteger(length) ? length : -1;
          await reader.cancel();
          return;
        }
        chunks.push(value);
      }
      body.size = size;
      body.content = concat(chunks, size);
    } catch (error) {
      body.size = size;
      body.error = (error as Error)?.message ?? String(error);
    } finally {
      body.receiveMs = Math.round(performance.now() - started);
    }
  })();
  return body;
}

/** A journal record as {@linkcode JournalEntry}, headers copied. */
function publicEntry(entry: NotedRequest): JournalEntry {
  const {
    origin: _origin,
    responseHeaders: _responseHeaders,
    responseBody: _responseBody,
    grant: _grant,
    seq: _seq,
    ...shown
  } = entry;
  return {
    ...shown,
    body: bodyText(entry),
    headers: { ...entry.headers as Record<string, string> },
  };
}

/** The chunks in one array of `size` bytes. */
function concat(chunks: Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}

/** What the journal notes of a request without a body. */
const NO_BODY: NotedBody = { body: null, truncated: false };

/**
 * Whether a request may carry a body, told without touching it: a GET or HEAD
 * cannot, `Content-Length: 0` (what fetch and Python's requests send for a
 * POST without a body) says there is none, and so does the server when it
 * knows (`context.bodyless`: on Node and Deno, what `curl -X POST` sends). On
 * @hono/node-server, reading `request.body` builds a full Request with
 * streams over the socket; Deno hands such a `POST` an empty stream.
 */
function mayHaveBody(context: Context): boolean {
  const { method, headers } = context.request;
  return !context.bodyless && method !== "GET" && method !== "HEAD" &&
    headers.get("content-length") !== "0";
}

/**
 * The headers as a record, names lower-cased, `authorization` masked.
 *
 * @param headers The headers.
 * @returns Their copy.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { copyHeaders } from "./journal.ts";
 *
 * const copy = copyHeaders(new Headers({ Authorization: "Bearer abc" }));
 * assert.deepEqual(copy, { authorization: "Bearer ***" });
 * ```
 */
export function copyHeaders(headers: Headers): Record<string, string> {
  const copy: Record<string, string> = {};
  for (const [name, value] of headers) {
    copy[name] = name === "authorization" ? mask(value) : value;
  }
  return copy;
}

/** `Bearer abc` → `Bearer ***`: the scheme stays, the credentials go. */
function mask(value: string): string {
  const scheme = /^\s*(\S+)\s/.exec(value);
  return scheme === null ? "***" : `${scheme[1]} ***`;
}

function positive(
  value: number | undefined,
  fallback: number,
  name: string,
): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) {
    throw new RangeError(`Journal ${name} must be a positive integer`);
  }
  return value;
}

/**
 * The journal's step: records each request that reaches it, with what the
 * steps after it answered.
 *
 * @param journal Where requests are recorded.
 * @returns The step.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Context } from "../src/http/context.ts";
 * import { journalRequests, RequestJournal } from "./journal.ts";
 * import type { MockVars } from "./mock_context.ts";
 *
 * const journal = new RequestJournal();
 * const context = new Context<MockVars>(new Request("http://mock/healthz"));
 * await journalRequests(journal)(context, () => Promise.resolve(context.empty(204)));
 * assert.equal(journal.entries()[0]?.status, 204);
 * ```
 */
export function journalRequests(journal: RequestJournal): MockStep {
  return async (context, next) => {
    const entry = await journal.start(context);
    const response = await next();
    journal.finish(entry, response, context);
    return response;
  };
}
