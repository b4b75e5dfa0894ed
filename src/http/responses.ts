/**
 * The responses the operations answer with. Each one built here says what
 * its body is: a whole body knows its byte length from the start
 * ({@linkcode bodyLengthOf}), a streamed one is marked with its watch
 * ({@linkcode watchedBodyOf}), so nobody has to read a body ahead to tell
 * them apart or to count it.
 *
 * @module
 */
import type { WatchedBody } from "./body_watch.ts";

/**
 * Where a response built here keeps its body length: a property under a
 * private symbol, cheaper than a WeakMap entry per response (V8 pays for
 * each in every garbage collection).
 */
const BODY_LENGTH = Symbol("bodyLength");

/** Where a streamed response keeps the watch on its body. */
const WATCHED_BODY = Symbol("watchedBody");

/** A response carrying its body length, or the watch on its streamed body. */
type Measured = Response & {
  [BODY_LENGTH]?: number;
  [WATCHED_BODY]?: WatchedBody;
};

/**
 * A JSON response.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { json } from "./responses.ts";
 *
 * const response = json({ events: [] }, 200, { "x-request-id": "r1" });
 * assert.equal(response.headers.get("content-type"), "application/json");
 * assert.equal(response.headers.get("x-request-id"), "r1");
 * assert.equal(await response.text(), '{"events":[]}');
 * ```
 */
export function json(
  body: unknown,
  status = 200,
  headers?: Readonly<Record<string, string>>,
): Response {
  return jsonText(JSON.stringify(body), status, headers);
}

/**
 * A response whose body is JSON text already serialised.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { bodyLengthOf, jsonText } from "./responses.ts";
 *
 * const response = jsonText('["€"]', 201);
 * assert.equal(response.status, 201);
 * assert.equal(response.headers.get("content-type"), "application/json");
 * assert.equal(bodyLengthOf(response), 7);
 * assert.deepEqual(await response.json(), ["€"]);
 * ```
 */
export function jsonText(
  text: string,
  status = 200,
  headers?: Readonly<Record<string, string>>,
): Response {
  // A string body and a plain header record keep @hono/node-server on its
  // fast path (it writes them without building a web Response).
  const response: Measured = new Response(text, {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
  response[BODY_LENGTH] = utf8Length(text);
  return response;
}

/**
 * A response without a body, e.g. a 204.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { bodyLengthOf, empty } from "./responses.ts";
 *
 * const response = empty(204, { "x-request-id": "r1" });
 * assert.equal(response.status, 204);
 * assert.equal(response.body, null);
 * assert.equal(bodyLengthOf(response), 0);
 * ```
 */
export function empty(
  status: number,
  headers?: Readonly<Record<string, string>>,
): Response {
  const response: Measured = new Response(null, {
    status,
    headers: { ...headers },
  });
  response[BODY_LENGTH] = 0;
  return response;
}

/**
 * The answer to a `HEAD` request from the answer its `GET` would have: the
 * same status and headers, no body. `Content-Length` stays the GET body's
 * length when it is known (RFC 9110, 9.3.2).
 *
 * @param response The GET's answer; its body is cancelled.
 * @returns A response without a body.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { bodyLengthOf, json, withoutBody } from "./responses.ts";
 *
 * const head = withoutBody(json({ status: "ok" }, 200, { "x-request-id": "r1" }));
 * assert.equal(head.status, 200);
 * assert.equal(head.body, null);
 * assert.equal(head.headers.get("content-type"), "application/json");
 * assert.equal(head.headers.get("content-length"), "15");
 * assert.equal(head.headers.get("x-request-id"), "r1");
 * assert.equal(bodyLengthOf(head), 0);
 * ```
 */
export function withoutBody(response: Response): Response {
  const headers = new Headers(response.headers);
  const length = bodyLengthOf(response);
  if (length !== undefined) headers.set("content-length", String(length));
  void response.body?.cancel().catch(() => {});
  const head: Measured = new Response(null, {
    status: response.status,
    statusText: response.statusText,
    headers,
  });
  head[BODY_LENGTH] = 0;
  return head;
}

/**
 * A response whose body is streamed as it is read, marked as such: its
 * length is known only once it is over, which `body` tells.
 *
 * @param body The watched body.
 * @param headers The response's headers.
 * @returns A 200 response.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { WatchedBody } from "./body_watch.ts";
 * import { bodyLengthOf, streamed, watchedBodyOf } from "./responses.ts";
 *
 * const body = new WatchedBody(new Blob(["zip"]).stream(), 60_000);
 * const response = streamed(body, { "content-type": "application/zip" });
 * assert.equal(watchedBodyOf(response), body);
 * assert.equal(bodyLengthOf(response), undefined);
 * assert.equal(await response.text(), "zip");
 * ```
 */
export function streamed(
  body: WatchedBody,
  headers: Readonly<Record<string, string>>,
): Response {
  const response: Measured = new Response(body.readable, { headers });
  response[WATCHED_BODY] = body;
  return response;
}

/**
 * The watch on the body of a response built by {@linkcode streamed}.
 *
 * @param response Any response.
 * @returns The watch, or `undefined` for a response not streamed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { json, watchedBodyOf } from "./responses.ts";
 *
 * assert.equal(watchedBodyOf(json({ ok: true })), undefined);
 * ```
 */
export function watchedBodyOf(response: Response): WatchedBody | undefined {
  return (response as Measured)[WATCHED_BODY];
}

/**
 * The byte length of a body built by {@linkcode json},
 * {@linkcode jsonText} or {@linkcode empty}, read without touching the body.
 *
 * @param response Any response.
 * @returns The length in bytes, or `undefined` for a response not built here
 * or {@linkcode streamed} (whose length is known only once it is sent).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { bodyLengthOf, json } from "./responses.ts";
 *
 * assert.equal(bodyLengthOf(json({ ok: true })), 11);
 * assert.equal(bodyLengthOf(new Response("streamed")), undefined);
 * ```
 */
export function bodyLengthOf(response: Response): number | undefined {
  return (response as Measured)[BODY_LENGTH];
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
