/**
 * One request's context: what the pipeline's steps learn about a request,
 * in one place, and the builders of its answers; and what a route leads to,
 * an endpoint and its operation. An operation's settings (the store, the
 * clock, its deadlines) are fixed when the handler builds it, once; a request
 * brings only its {@linkcode Context}.
 *
 * @module
 */
import type { WatchedBody } from "./body_watch.ts";
import {
  answerHeaders,
  nativeAnswer,
  PRIVATE_HEADERS,
} from "./hardening_headers.ts";
import { leavesLargeBody } from "./request_body.ts";
import type { HttpError } from "../errors/mod.ts";
import { RequestValidationError } from "../validation/mod.ts";
import type { Grant } from "../store/mod.ts";

/** A route the router matched: its pattern and its path params. */
export interface MatchedRoute {
  /** The route's pattern, e.g. `/v1/call/{call_id}/message`. */
  readonly pattern: string;
  /** Path params, percent-decoded, not yet validated. */
  readonly params: Readonly<Record<string, string>>;
}

/** An incoming `X-Request-Id` worth echoing: short, plain characters. */
const REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * A request on its way through the pipeline. The request, its path, its id
 * and its arrival are read once, when it comes in; each later field is set
 * by one step (named on it) and read by the steps after it, and by the
 * steps before it once `next()` has answered.
 *
 * Answers are built here ({@linkcode Context.json}, {@linkcode Context.empty},
 * {@linkcode Context.stream}, {@linkcode Context.error}): each is built with
 * {@linkcode Context.headers} and tells the context its body's length, or
 * the watch on its streamed body, so that the access log, the telemetry and
 * the servers learn it without touching the body.
 *
 * @typeParam Vars What a layer's own steps note beside the core's fields
 * (the mock's journal and faults do); read and written through `vars`.
 *
 * @example A step's view of a request
 * ```ts
 * import assert from "node:assert/strict";
 * import { Context } from "./context.ts";
 *
 * const context = new Context(
 *   new Request("http://api.test/v1/call/42/message?x=1", {
 *     headers: { "x-request-id": "r-1" },
 *   }),
 * );
 * assert.equal(context.pathname, "/v1/call/42/message");
 * assert.equal(context.requestId, "r-1");
 * const response = context.json({ ok: true }, 201);
 * assert.equal(response.status, 201);
 * assert.equal(response.headers.get("x-request-id"), "r-1");
 * assert.equal(context.bodyLength, 11);
 * ```
 */
export class Context<Vars extends object = Record<never, never>> {
  /** The request. */
  readonly request: Request;
  /**
   * What the runtime's server passed beside the request (Deno's `info`,
   * Bun's `server`, @hono/node-server's `{ incoming, outgoing }`), if any.
   */
  readonly runtimeArgument: unknown;
  /** The URL's path, still percent-encoded, without the query string. */
  readonly pathname: string;
  /** The request id sent back in `X-Request-Id`: the client's when plain. */
  readonly requestId: string;
  /** When the request arrived, from `performance.now()`. */
  readonly startedAt: number;
  /** The matched route. Set by the routing step. */
  route: MatchedRoute | undefined;
  /** What the matched route leads to. Set by the routing step. */
  endpoint: Endpoint | undefined;
  /** What the request's token grants. Set by the authentication step. */
  grant: Grant | undefined;
  /**
   * Whether the server that received the request knows it came without a
   * body (over HTTP/1.1: neither `Content-Length` nor `Transfer-Encoding`,
   * RFC 9112, 6.3), so that a step that records bodies (the mock's journal)
   * need not look for one: on @hono/node-server, touching `request.body`
   * builds a whole web `Request`.
   * Set by a runtime's step (`server/runtimes/node_body_framing.ts`), and
   * by routing once the headers declared no body (for the error renderer);
   * default `false`: the body is looked at.
   */
  bodyless = false;
  #vars: Partial<Vars> | undefined;
  #headers: Record<string, string> | undefined;
  #private = false;
  #errorCode: string | undefined;
  #bodyLength: number | undefined;
  #watchedBody: WatchedBody | undefined;
  #built: BuiltAnswer | undefined;

  /**
   * Reads what every step needs of a request, once.
   *
   * @param request The request.
   * @param runtimeArgument What the runtime's server passed beside it.
   */
  constructor(request: Request, runtimeArgument?: unknown) {
    this.request = request;
    this.runtimeArgument = runtimeArgument;
    this.startedAt = performance.now();
    this.pathname = pathnameOf(request.url);
    this.requestId = requestIdOf(request);
  }

  /**
   * What a layer's own steps note (see the class's `Vars`); made when a
   * step first reads it.
   */
  get vars(): Partial<Vars> {
    return this.#vars ??= {};
  }

  /**
   * The headers every answer is built with: `X-Request-Id` and
   * `X-Content-Type-Options: nosniff` from the start; steps add theirs
   * (`Cache-Control: no-store` on a token's routes, see
   * {@linkcode Context.keepPrivate}; CORS) before the answer is built.
   * Built into each response rather than set on it afterwards, which on
   * @hono/node-server would take the response off its fast path.
   * The record is made when a step first reads or sets it: an answer of a
   * request whose steps touched none is built in one object (and on Bun
   * sent from a template, see `nativeAnswer`).
   */
  get headers(): Record<string, string> {
    return this.#headers ??= answerHeaders(this.#private, this.requestId);
  }

  set headers(headers: Record<string, string>) {
    this.#headers = headers;
  }

  /**
   * Adds `Cache-Control: no-store` (`PRIVATE_HEADERS`) under
   * {@linkcode Context.headers}: what a token gave access to, refusals
   * included, is never stored. A `Cache-Control` a step set already stays.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Context } from "./context.ts";
   *
   * const context = new Context(new Request("http://api.test/v1/x"));
   * context.keepPrivate();
   * const response = context.empty(204);
   * assert.equal(response.headers.get("cache-control"), "no-store");
   * assert.equal(response.headers.get("x-content-type-options"), "nosniff");
   * ```
   */
  keepPrivate(): void {
    if (this.#headers === undefined) this.#private = true;
    else this.#headers = { ...PRIVATE_HEADERS, ...this.#headers };
  }

  /** The matched route's path params; none before routing. */
  get params(): Readonly<Record<string, string>> {
    return this.route?.params ?? {};
  }

  /**
   * The `error_code` of the answer, once an ErrorResponseSchema error
   * answered (a 422 HTTPValidationError has none).
   */
  get errorCode(): string | undefined {
    return this.#errorCode;
  }

  /**
   * The byte length of the answer's body, once an answer was built here and
   * its body is whole; `undefined` for a streamed one (see
   * {@linkcode Context.watchedBody}).
   */
  get bodyLength(): number | undefined {
    return this.#bodyLength;
  }

  /**
   * The last answer built here from a whole body (or none), with that body
   * and the header record it was built with: a step that records answers
   * (the mock's journal) reads them here rather than from a clone of the
   * response, which costs a web `Response` and a stream. `undefined` before
   * such an answer, or after a streamed one.
   */
  get built(): BuiltAnswer | undefined {
    return this.#built;
  }

  /** The watch on the answer's streamed body, once one was built here. */
  get watchedBody(): WatchedBody | undefined {
    return this.#watchedBody;
  }

  /**
   * A JSON answer.
   *
   * @param body What to serialise.
   * @param status The status. Default 200.
   * @param headers More headers, under {@linkcode Context.headers}.
   * @returns The response.
   */
  json(
    body: unknown,
    status = 200,
    headers?: Readonly<Record<string, string>>,
  ): Response {
    return this.jsonText(JSON.stringify(body), status, headers);
  }

  /**
   * A JSON answer whose text is serialised already.
   *
   * @param text The JSON text.
   * @param status The status. Default 200.
   * @param headers More headers, under {@linkcode Context.headers}.
   * @returns The response.
   */
  jsonText(
    text: string,
    status = 200,
    headers?: Readonly<Record<string, string>>,
  ): Response {
    this.#bodyLength = utf8Length(text);
    // A string body and a plain header record keep @hono/node-server on its
    // fast path (it writes them without building a web Response).
    return headers === undefined && this.#headers === undefined
      ? this.#buildPlain(text, status, "application/json")
      : this.#build(text, status, {
        "content-type": "application/json",
        ...headers,
        ...this.headers,
      });
  }

  /**
   * An answer whose whole body is at hand, text or bytes, sent as it is
   * (Hono's `c.body`): a page, a script, a stylesheet.
   *
   * @param content The body.
   * @param headers Its headers (`Content-Type` among them), under
   * {@linkcode Context.headers}.
   * @param status The status. Default 200.
   * @returns The response.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Context } from "./context.ts";
   *
   * const context = new Context(new Request("http://api.test/docs"));
   * const page = context.body("<p>é</p>", { "content-type": "text/html" });
   * assert.equal(context.bodyLength, 9); // bytes, not characters
   * assert.equal(await page.text(), "<p>é</p>");
   * ```
   */
  body(
    content: string | Uint8Array,
    headers: Readonly<Record<string, string>>,
    status = 200,
  ): Response {
    this.#bodyLength = typeof content === "string"
      ? utf8Length(content)
      : content.byteLength;
    return this.#build(content, status, { ...headers, ...this.headers });
  }

  /**
   * An answer without a body, e.g. a 204.
   *
   * @param status The status.
   * @param headers More headers, under {@linkcode Context.headers}.
   * @returns The response.
   */
  empty(status: number, headers?: Readonly<Record<string, string>>): Response {
    this.#bodyLength = 0;
    return headers === undefined && this.#headers === undefined
      ? this.#buildPlain(null, status)
      : this.#build(null, status, { ...headers, ...this.headers });
  }

  /** An answer with the headers of a request no step added to. */
  #buildPlain(
    body: string | null,
    status: number,
    contentType?: "application/json",
  ): Response {
    const { requestId } = this;
    const headers = answerHeaders(this.#private, requestId, contentType);
    const response = nativeAnswer(
      body,
      status,
      this.#private,
      requestId,
      contentType,
    );
    if (response === undefined) return this.#build(body, status, headers);
    this.#built = { response, body, headers };
    return response;
  }

  /** An answer with the headers of a record. */
  #build(
    body: string | Uint8Array | null,
    status: number,
    headers: Record<string, string>,
  ): Response {
    const response = new Response(body as BodyInit | null, {
      status,
      headers,
    });
    this.#built = { response, body, headers };
    return response;
  }

  /**
   * An answer whose body is streamed as it is read: its length is known once
   * it is over, which `body` tells.
   *
   * @param body The watched body.
   * @param headers More headers, under {@linkcode Context.headers}.
   * @returns A 200 response.
   */
  stream(
    body: WatchedBody,
    headers: Readonly<Record<string, string>>,
  ): Response {
    this.#watchedBody = body;
    this.#built = undefined;
    return new Response(body.readable, {
      headers: { ...headers, ...this.headers },
    });
  }

  /**
   * The answer to an error: an {@linkcode HttpError}'s ErrorResponseSchema
   * body, or a {@linkcode RequestValidationError}'s HTTPValidationError.
   * When a large request body is left unread (a 413, or a 401 before it, a
   * 404), the answer says `Connection: close`, so that the server closes
   * the connection rather than read the rest. An operation may answer its
   * own refusal with it rather than throw the error (a thrown one is
   * rendered here too, see `errorRenderer`): the same answer, without a
   * rejected promise through the pipeline.
   *
   * @param error The error.
   * @returns The response, with the error's own headers (e.g. `Allow`).
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { HttpError } from "../errors/mod.ts";
   * import { Context } from "./context.ts";
   *
   * const context = new Context(new Request("http://api.test/v1/x"));
   * const response = context.error(new HttpError(404, "X_NOT_FOUND", "No x"));
   * assert.equal(response.status, 404);
   * assert.equal(context.errorCode, "X_NOT_FOUND");
   * assert.deepEqual(await response.json(), {
   *   status: "error",
   *   error_code: "X_NOT_FOUND",
   *   message: "No x",
   * });
   * ```
   */
  error(error: HttpError | RequestValidationError): Response {
    if (!this.bodyless && leavesLargeBody(this.request)) {
      this.headers = { ...this.headers, connection: "close" };
    }
    if (error instanceof RequestValidationError) {
      return this.json(error.toJSON(), 422);
    }
    this.#errorCode = error.errorCode;
    return this.jsonText(
      error.toJSONText(),
      error.status,
      error.headerRecord(),
    );
  }

  /**
   * The answer to a `HEAD` request from the answer its `GET` would have: the
   * same status and headers, no body. `Content-Length` stays the GET body's
   * length when it is known (RFC 9110, 9.3.2).
   *
   * @param response The GET's answer; its body is cancelled.
   * @returns A response without a body.
   */
  withoutBody(response: Response): Response {
    const headers = new Headers(response.headers);
    if (this.#bodyLength !== undefined) {
      headers.set("content-length", String(this.#bodyLength));
    }
    void response.body?.cancel().catch(() => {});
    this.#bodyLength = 0;
    this.#watchedBody = undefined;
    return new Response(null, {
      status: response.status,
      statusText: response.statusText,
      headers,
    });
  }
}

/** The context of a route that needs a token, with the token's grant. */
export type GrantedContext = Context & { readonly grant: Grant };

/**
 * An operation: one endpoint's work, for one request. It answers with a
 * response built by its context (a refusal with {@linkcode Context.error}),
 * or throws an `HttpError` (or a `RequestValidationError`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Context, type Operation } from "./context.ts";
 *
 * const hello: Operation = (context) =>
 *   Promise.resolve(context.json({ hello: context.params.name }));
 * const context = new Context(new Request("http://x/hello/Ada"));
 * context.route = { pattern: "/hello/{name}", params: { name: "Ada" } };
 * const response = await hello(context);
 * assert.deepEqual(await response.json(), { hello: "Ada" });
 * assert.equal(response.headers.get("x-request-id"), context.requestId);
 * ```
 */
export type Operation<OperationContext extends Context = Context> = (
  context: OperationContext,
) => Promise<Response>;

/**
 * What a route leads to: an operation anyone may call, or one that needs a
 * bearer token, which the pipeline resolves to a grant before calling it (a
 * missing or unknown token is answered 401 without reaching the operation;
 * what the grant's role may do, the operation checks itself, after
 * validating its input, as the spec orders the errors). A body over the
 * route's `bodyLimit` is refused before either.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Context, type Endpoint, type GrantedContext } from "./context.ts";
 *
 * const endpoint: Endpoint = {
 *   authenticated: true,
 *   operation: (context) =>
 *     Promise.resolve(context.empty(context.grant.role === "owner" ? 204 : 403)),
 * };
 * assert.ok(endpoint.authenticated);
 * const context = new Context(new Request("http://x/"));
 * context.grant = { projectId: "p", role: "owner" };
 * const response = await endpoint.operation(context as GrantedContext);
 * assert.equal(response.status, 204);
 * ```
 */
export type Endpoint =
  & (
    | { authenticated: false; operation: Operation }
    | { authenticated: true; operation: Operation<GrantedContext> }
  )
  & {
    /**
     * The largest request body the route takes, in bytes; one declared
     * larger is refused with 413 before anything else, its rest unread.
     * Default: the route takes no body, and reads and drops a small one
     * (see `discardSmallBody`).
     */
    bodyLimit?: number;
  };
/** An answer built from a whole body: see {@linkcode Context.built}. */
export interface BuiltAnswer {
  /** The response. */
  readonly response: Response;
  /** Its body; `null` for none. */
  readonly body: string | Uint8Array | null;
  /** The headers it was built with, names as given. */
  readonly headers: Readonly<Record<string, string>>;
}

/** Path characters the URL parser keeps as they are in a special URL. */
const PLAIN_PATH = /^\/[\w\-.~!$&'()*+,;=:@%/]*$/;
/** A `.` or `..` segment, which the URL parser would resolve. */
const DOT_SEGMENT = /\/(?:\.|%2e){1,2}(?=\/|$)/i;

/**
 * The path of a request URL, as `new URL(url).pathname` gives it, without
 * parsing the whole URL when the path is plain (the usual case): a path the
 * parser would rewrite (dot segments, characters it escapes) goes through
 * `URL`.
 *
 * @param url An absolute URL, as `Request.url` gives it.
 * @returns The path, still percent-encoded.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { pathnameOf } from "./context.ts";
 *
 * assert.equal(pathnameOf("http://h:1/v1/call/x/message?a=1"), "/v1/call/x/message");
 * assert.equal(pathnameOf("http://h/v1/call#x?a=1"), "/v1/call");
 * assert.equal(pathnameOf("http://h/v1/call/%2e%2e/x"), "/v1/x");
 * ```
 */
export function pathnameOf(url: string): string {
  const scheme = url.indexOf("://");
  const start = scheme === -1 ? -1 : url.indexOf("/", scheme + 3);
  if (start !== -1) {
    // The first "?" or "#": searched by the engine, not a loop over each
    // character (about half the cost, on every runtime).
    let end = url.indexOf("?", start);
    if (end === -1) end = url.length;
    const fragment = url.indexOf("#", start);
    if (fragment !== -1 && fragment < end) end = fragment;
    const path = url.slice(start, end);
    if (PLAIN_PATH.test(path) && !DOT_SEGMENT.test(path)) return path;
  }
  return new URL(url).pathname;
}

/** The request id to use: the client's when plain, a fresh UUID otherwise. */
function requestIdOf(request: Request): string {
  const incomingId = request.headers.get("x-request-id");
  return incomingId !== null && REQUEST_ID.test(incomingId)
    ? incomingId
    : crypto.randomUUID();
}

/** Something beyond ASCII (more than one byte a character in UTF-8). */
const NON_ASCII = /[^\x20-\x7e\t\n\r]/;

/** The length of a string encoded as UTF-8, as `Response` encodes it. */
function utf8Length(text: string): number {
  if (!NON_ASCII.test(text)) return text.length;
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (
      code >= 0xd800 && code < 0xdc00 && i + 1 < text.length &&
      (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00
    ) {
      // A surrogate pair: one code point, four bytes.
      bytes += 4;
      i++;
    } else {
      // Other BMP characters; a lone surrogate is sent as U+FFFD, also three.
      bytes += 3;
    }
  }
  return bytes;
}
