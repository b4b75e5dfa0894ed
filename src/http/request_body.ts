/**
 * Reading a request body with a size limit and a deadline, without ever
 * buffering more than the limit.
 *
 * @module
 */
import { HttpError } from "../errors/mod.ts";

/** The largest request body accepted: 1 MiB. */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * How long a body may take to arrive, once the handler starts reading it:
 * 30 s, enough for 1 MiB at 35 kB/s. A body trickled more slowly (say a byte
 * every 5 s) is refused with 408 instead of holding the request open.
 */
export const BODY_TIMEOUT_MS = 30_000;

/**
 * The request body could not be read to its end: the client went away (it
 * closed or reset the connection mid-body) or let the deadline pass. It is
 * the client's doing, so the handler answers it as a 4xx (which the client
 * most likely never reads) and logs one line at info level, never an
 * unexpected error.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ClientGoneError } from "./request_body.ts";
 *
 * const error = new ClientGoneError("the connection was reset");
 * assert.equal(error.status, 400);
 * assert.equal(error.toJSON().error_code, "BAD_REQUEST");
 * ```
 */
export class ClientGoneError extends HttpError {
  /** What happened, for the info line (never sent). */
  readonly detail: string;

  /**
   * A body the client left unfinished: 400, or 408 past the deadline.
   *
   * @param detail What happened, for the info line (never sent).
   * @param options The status (400, or 408 for a missed deadline) and the
   * underlying failure.
   */
  constructor(
    detail: string,
    options: { timeout?: boolean; cause?: unknown } = {},
  ) {
    super(
      options.timeout ? 408 : 400,
      options.timeout ? "REQUEST_TIMEOUT" : "BAD_REQUEST",
      options.timeout
        ? "The request body did not arrive in time"
        : "The request body ended before it was complete",
      {
        cause: options.cause,
        // Whatever is left of the body is not worth reading.
        headers: { connection: "close" },
      },
    );
    this.name = "ClientGoneError";
    this.detail = detail;
  }
}

/** Options of {@linkcode readBody}. */
export interface ReadBodyOptions {
  /** The largest body accepted, in bytes. Default {@linkcode MAX_BODY_BYTES}. */
  limit?: number;
  /** How long the whole body may take. Default {@linkcode BODY_TIMEOUT_MS}. */
  timeoutMs?: number;
  /**
   * The 413's message. Default: `Request body is larger than <limit> bytes`.
   */
  tooLargeMessage?: string;
}

/**
 * Reads a request's body whole, refusing it with 413 `PAYLOAD_TOO_LARGE` as
 * soon as it is known to exceed `limit`: from `Content-Length` before reading
 * anything, else while reading, with the rest left unread. A body that stops
 * midway (the client went away) or takes longer than `timeoutMs` is a
 * {@linkcode ClientGoneError}.
 *
 * @param request The request.
 * @param options The size limit, the deadline and the 413's message.
 * @returns The body's bytes (empty when there is none).
 * @throws {HttpError} 413 when the body is larger than `limit`.
 * @throws {ClientGoneError} 400 when the body cannot be read to its end,
 * 408 when it does not arrive within `timeoutMs`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readBody } from "./request_body.ts";
 *
 * const bytes = await readBody(new Request("http://x/", { method: "POST", body: "{}" }));
 * assert.equal(bytes.length, 2);
 * ```
 */
export async function readBody(
  request: Request,
  options: ReadBodyOptions = {},
): Promise<Uint8Array> {
  const { limit = MAX_BODY_BYTES, timeoutMs = BODY_TIMEOUT_MS } = options;
  const message = options.tooLargeMessage;
  if (declaredLength(request) > limit) {
    throw payloadTooLarge(limit, { message });
  }
  const { bytes, truncated } = await readBodyStart(request, limit, timeoutMs);
  // Read in part, the rest of unknown size: the connection goes.
  if (truncated) throw payloadTooLarge(limit, { message, closing: true });
  return bytes;
}

/**
 * Refuses a body that its `Content-Length` declares larger than `limit`,
 * before a byte of it is read, for a route that takes a body of at most
 * `limit` bytes. A body within the limit, or of unknown length, is left for
 * the operation to read (with {@linkcode readBody}, which bounds it too).
 *
 * @param request The request.
 * @param limit The largest body the route takes, in bytes.
 * @throws {HttpError} 413 `PAYLOAD_TOO_LARGE` (see
 * {@linkcode payloadTooLarge}).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { refuseDeclaredOver } from "./request_body.ts";
 *
 * const declared = (length: number) =>
 *   new Request("http://x/", {
 *     method: "POST",
 *     headers: { "content-length": `${length}` },
 *   });
 * assert.throws(() => refuseDeclaredOver(declared(2048), 1024), { status: 413 });
 * refuseDeclaredOver(declared(1024), 1024); // within the limit: left unread
 * ```
 */
export function refuseDeclaredOver(request: Request, limit: number): void {
  if (declaredLength(request) > limit) throw payloadTooLarge(limit);
}

/**
 * Whether a request's headers say a body came with it: a `Content-Length`
 * over 0, or a `Transfer-Encoding` (RFC 9112, 6.3: an HTTP/1.1 request with
 * neither has none). The headers, not `request.body`, tell: Node's and
 * Deno's servers hand a `POST` without a body an empty stream, which costs
 * to build and to read. Each is read with `get`, here and below: on Deno,
 * `has` first copies every header of a served request out of the runtime.
 *
 * @param request The request.
 * @returns Whether it declares a body.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { declaresBody } from "./request_body.ts";
 *
 * const post = (headers: Record<string, string>) =>
 *   new Request("http://x/", { method: "POST", headers });
 * assert.equal(declaresBody(post({})), false);
 * assert.equal(declaresBody(post({ "content-length": "0" })), false);
 * assert.equal(declaresBody(post({ "content-length": "2" })), true);
 * assert.equal(declaresBody(post({ "transfer-encoding": "chunked" })), true);
 * ```
 */
export function declaresBody(request: Request): boolean {
  return declaredLength(request) > 0 ||
    request.headers.get("transfer-encoding") !== null;
}

/**
 * A body small enough to read whole at no risk: 64 KiB. A route that takes
 * no body reads and drops one up to this size (see
 * {@linkcode discardSmallBody}); and a body left unread up to this size is
 * read to its end by the server after the answer, to keep the connection,
 * which costs less than a new one (a JSON body with an expired token is
 * refused before it is read). Past it, the connection is closed.
 */
export const SMALL_BODY_BYTES = 64 * 1024;

/** The 413's message on a route that takes no body. */
const NOT_TAKEN =
  `This route takes no request body, and ignores one of at most ${SMALL_BODY_BYTES} bytes`;

/**
 * Ignores the body a request sent to a route that takes none, as FastAPI
 * does, so that the answer is the one the same request gets without it: a
 * body of at most {@linkcode SMALL_BODY_BYTES} (what clients send without
 * thinking: `requests.post(url, json={})`, `curl --json '{}'`). Declared in
 * `Content-Length`, it is left for the runtime to drop; streamed
 * (`Transfer-Encoding`), it is read and dropped. A larger one is refused
 * with 413 `PAYLOAD_TOO_LARGE`: declared so, before a byte is read;
 * streamed, as soon as it passes the bound, with `Connection: close` and
 * the rest unread. A body the
 * runtime says came (`Transfer-Encoding`) but hands over no stream of (a
 * chunked `GET`) cannot be bounded, and is refused the same way. Call it
 * only for a request that {@linkcode declaresBody}.
 *
 * @param request The request.
 * @param timeoutMs How long the body may take to arrive. Default
 * {@linkcode BODY_TIMEOUT_MS}.
 * @throws {HttpError} 413 `PAYLOAD_TOO_LARGE` (see
 * {@linkcode payloadTooLarge}).
 * @throws {ClientGoneError} when the body breaks off or does not arrive in
 * time.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { discardSmallBody } from "./request_body.ts";
 *
 * const post = (body: string, framing: Record<string, string>) =>
 *   new Request("http://x/", { method: "POST", headers: framing, body });
 * const declared = post("{}", { "content-length": "2" });
 * await discardSmallBody(declared);
 * assert.equal(declared.bodyUsed, false); // the runtime drops it
 * const streamed = post("{}", { "transfer-encoding": "chunked" });
 * await discardSmallBody(streamed);
 * assert.equal(streamed.bodyUsed, true); // read, and dropped
 * await assert.rejects(
 *   discardSmallBody(post(" ".repeat(70_000), { "content-length": "70000" })),
 *   { status: 413 },
 * );
 * ```
 */
export async function discardSmallBody(
  request: Request,
  timeoutMs: number = BODY_TIMEOUT_MS,
): Promise<void> {
  if (declaredLength(request) > SMALL_BODY_BYTES) {
    throw payloadTooLarge(SMALL_BODY_BYTES, { message: NOT_TAKEN });
  }
  // Declared in length, the runtime reads and drops it itself before the
  // connection's next request: reading it here would only cost (a stream
  // built over the socket on Node, three times the request's CPU).
  if (request.headers.get("transfer-encoding") === null) return;
  if (request.body === null) {
    // Chunked, the runtime would read whatever comes.
    throw payloadTooLarge(SMALL_BODY_BYTES, {
      message: NOT_TAKEN,
      closing: true,
    });
  }
  const { truncated } = await readBodyStart(
    request,
    SMALL_BODY_BYTES,
    timeoutMs,
  );
  if (truncated) {
    throw payloadTooLarge(SMALL_BODY_BYTES, {
      message: NOT_TAKEN,
      closing: true,
    });
  }
}

/**
 * Whether a request came with a body that nobody read and that its headers
 * declare larger than {@linkcode SMALL_BODY_BYTES}, or of unknown length
 * (`Transfer-Encoding`): an answer to it asks to close the connection, or
 * the server would read the rest, whatever its size, before the next
 * request. (Deno hands some requests without a body an empty stream: the
 * headers, not the stream, tell.)
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { leavesLargeBody } from "./request_body.ts";
 *
 * const declared = (length: number) =>
 *   new Request("http://x/", { headers: { "content-length": `${length}` } });
 * assert.equal(leavesLargeBody(declared(20_000_000)), true);
 * assert.equal(leavesLargeBody(declared(100)), false);
 * const chunked = new Request("http://x/", {
 *   method: "POST",
 *   headers: { "transfer-encoding": "chunked" },
 *   body: "{}",
 * });
 * assert.equal(leavesLargeBody(chunked), true); // of unknown length
 * await chunked.text();
 * assert.equal(leavesLargeBody(chunked), false); // read
 * ```
 */
export function leavesLargeBody(request: Request): boolean {
  // The headers first: on Deno, `bodyUsed` of a request that may have a
  // body (a DELETE, a POST) builds its body stream, as on every error
  // answer.
  return (declaredLength(request) > SMALL_BODY_BYTES ||
    request.headers.get("transfer-encoding") !== null) && !request.bodyUsed;
}

/**
 * The 413 `PAYLOAD_TOO_LARGE` of a body over `limit`. With `closing`, for a
 * body read in part whose rest is of unknown size, it says
 * `Connection: close`: the server closes the connection once the answer is
 * sent rather than read the rest. (The handler says so itself for a body
 * left unread that is large; see {@linkcode leavesLargeBody}.)
 *
 * @param limit The limit, in bytes.
 * @param options The message (default: `Request body is larger than
 * <limit> bytes`), and whether to close.
 * @returns The error.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { payloadTooLarge } from "./request_body.ts";
 *
 * const response = payloadTooLarge(1024, { closing: true }).toResponse();
 * assert.equal(response.status, 413);
 * assert.equal(response.headers.get("connection"), "close");
 * ```
 */
export function payloadTooLarge(
  limit: number,
  options: { message?: string | undefined; closing?: boolean } = {},
): HttpError {
  return new HttpError(
    413,
    "PAYLOAD_TOO_LARGE",
    options.message ?? `Request body is larger than ${limit} bytes`,
    options.closing ? { headers: { connection: "close" } } : {},
  );
}

/**
 * The bodies read whole ahead of the handler by {@linkcode readDeclaredBody},
 * by request: a later read of the same request gets them.
 */
const readAhead = new WeakMap<Request, Promise<Uint8Array>>();

/**
 * Reads the whole body of a request whose `Content-Length` declares one of
 * 1 to `limit` bytes (and no `Transfer-Encoding`), with the runtime's own
 * `request.arrayBuffer()`: on @hono/node-server straight off the socket,
 * without the web `Request` and streams that `request.body` or `clone()`
 * build; natively on Deno and Bun. The bytes stay with the request, so that
 * the handler's own read ({@linkcode readBody}, {@linkcode readBodyStart})
 * gets them rather than a used body. For a step that records bodies before
 * the handler runs (the mock's journal). A body that stops midway or takes
 * longer than `timeoutMs` is a {@linkcode ClientGoneError}, to every reader.
 *
 * @param request The request.
 * @param limit The largest declared length read this way.
 * @param timeoutMs How long the body may take. Default
 * {@linkcode BODY_TIMEOUT_MS}.
 * @returns The body's bytes; `undefined` for a request whose headers declare
 * no such body (none, a larger one, a streamed one), or whose body was read
 * already by another way: read it another way, if at all.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readBody, readDeclaredBody } from "./request_body.ts";
 *
 * const request = new Request("http://x/", {
 *   method: "POST",
 *   headers: { "content-length": "2" },
 *   body: "{}",
 * });
 * const bytes = await readDeclaredBody(request, 1024);
 * assert.equal(bytes?.length, 2);
 * assert.equal(request.bodyUsed, true);
 * assert.equal((await readBody(request)).length, 2); // handed on
 * assert.equal(readDeclaredBody(new Request("http://x/"), 1024), undefined);
 * ```
 */
export function readDeclaredBody(
  request: Request,
  limit: number,
  timeoutMs: number = BODY_TIMEOUT_MS,
): Promise<Uint8Array> | undefined {
  const ahead = readAhead.get(request);
  if (ahead !== undefined) return ahead;
  const length = declaredLength(request);
  if (
    length === 0 || length > limit || request.bodyUsed ||
    request.headers.get("transfer-encoding") !== null
  ) {
    return undefined;
  }
  const { deadline, timer } = bodyDeadline(timeoutMs);
  const read = Promise.race([request.arrayBuffer(), deadline]).then(
    (buffer) => {
      clearTimeout(timer);
      return new Uint8Array(buffer);
    },
    (error: unknown) => {
      clearTimeout(timer);
      throw clientGone(error);
    },
  );
  readAhead.set(request, read);
  return read;
}

/** The body length `Content-Length` declares; 0 when it declares none. */
function declaredLength(request: Request): number {
  return Number(request.headers.get("content-length")) || 0;
}

/**
 * Reads the first `limit` bytes of a request's body and leaves the rest
 * unread: a record of the body (the mock's request journal), not a body to
 * parse. A body that stops midway or takes longer than `timeoutMs` is a
 * {@linkcode ClientGoneError}, as for {@linkcode readBody}. A body read
 * whole already by {@linkcode readDeclaredBody} is handed on from there.
 *
 * @param request The request.
 * @param limit How many bytes to keep.
 * @param timeoutMs How long the bytes may take. Default
 * {@linkcode BODY_TIMEOUT_MS}.
 * @returns The first `limit` bytes (empty when there is no body), and
 * whether the body went on past them.
 * @throws {ClientGoneError} 400 when the body cannot be read that far, 408
 * when it does not arrive within `timeoutMs`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readBodyStart } from "./request_body.ts";
 *
 * const request = new Request("http://x/", { method: "POST", body: "hello" });
 * const { bytes, truncated } = await readBodyStart(request, 4);
 * assert.equal(new TextDecoder().decode(bytes), "hell");
 * assert.ok(truncated);
 * ```
 */
export async function readBodyStart(
  request: Request,
  limit: number,
  timeoutMs: number = BODY_TIMEOUT_MS,
): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  const ahead = readAhead.get(request);
  if (ahead !== undefined) {
    const bytes = await ahead;
    return bytes.byteLength > limit
      ? { bytes: bytes.subarray(0, limit), truncated: true }
      : { bytes, truncated: false };
  }
  if (request.body === null) {
    return { bytes: new Uint8Array(), truncated: false };
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  const reader = request.body.getReader();
  const { deadline, timer } = bodyDeadline(timeoutMs);
  try {
    for (;;) {
      const { done, value } = await Promise.race([reader.read(), deadline])
        .catch((error: unknown) => {
          // Neither wait for a stalled stream to cancel nor fail on it.
          reader.cancel().catch(() => {});
          throw clientGone(error);
        });
      if (done) break;
      if (size + value.byteLength > limit) {
        reader.cancel().catch(() => {});
        chunks.push(value.subarray(0, limit - size));
        size = limit;
        truncated = true;
        break;
      }
      size += value.byteLength;
      chunks.push(value);
    }
  } finally {
    clearTimeout(timer);
  }
  if (chunks.length === 1) return { bytes: chunks[0]!, truncated };
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { bytes, truncated };
}

/**
 * A promise that rejects with the 408's {@linkcode ClientGoneError} once
 * `timeoutMs` passed, and its timer, to clear when the body came.
 */
function bodyDeadline(
  timeoutMs: number,
): { deadline: Promise<never>; timer: ReturnType<typeof setTimeout> } {
  let timer!: ReturnType<typeof setTimeout>;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new ClientGoneError(`the body took longer than ${timeoutMs} ms`, {
            timeout: true,
          }),
        ),
      timeoutMs,
    );
  });
  return { deadline, timer };
}

/** A failure to read a body, as the {@linkcode ClientGoneError} it is. */
function clientGone(error: unknown): ClientGoneError {
  return error instanceof ClientGoneError ? error : new ClientGoneError(
    `the body was cut off: ${describe(error)}`,
    { cause: error },
  );
}

/** One line about a stream failure: its name, message and code, no stack. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return `${error.name}: ${error.message}${
    typeof code === "string" ? ` (${code})` : ""
  }`;
}
