/**
 * `HEAD` on every `GET` route: the router matches a `HEAD` to its `GET`, and
 * this step takes the body off the answer.
 *
 * @module
 */
import type { Middleware } from "./pipeline.ts";

/**
 * Answers a `HEAD` request with what its `GET` would answer, without the
 * body (RFC 9110, 9.3.2); any other request passes through untouched.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Context } from "./context.ts";
 * import { answerHead } from "./head.ts";
 *
 * const context = new Context(new Request("http://api.test/", { method: "HEAD" }));
 * const response = await answerHead(
 *   context,
 *   () => Promise.resolve(context.json({ status: "ok" })),
 * );
 * assert.equal(response.body, null);
 * assert.equal(response.headers.get("content-length"), "15");
 * assert.equal(context.bodyLength, 0);
 * ```
 */
export const answerHead: Middleware = (context, next) =>
  context.request.method === "HEAD"
    ? next().then((response) => context.withoutBody(response))
    : next();
