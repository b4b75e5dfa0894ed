/**
 * What Node's HTTP/1.1 parser knows of a request's body, told to the
 * pipeline.
 *
 * @module
 */
import type { IncomingMessage } from "node:http";
import type { Middleware } from "../../src/http/mod.ts";

/**
 * The pipeline step that tells the context when a request came without a
 * body, from what Node's HTTP/1.1 parser saw: neither `Content-Length` nor
 * `Transfer-Encoding` (RFC 9112, 6.3). The mock's journal then need not
 * touch `request.body`, which on @hono/node-server builds a whole web
 * `Request` with a stream over the socket (a trigger test or a DELETE sent
 * as `curl -X POST` or wrk sends it). Needs @hono/node-server's `{ incoming }`
 * beside the request (`context.runtimeArgument`); elsewhere it does nothing.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Context } from "../../src/http/mod.ts";
 * import { nodeBodyFraming } from "./node_body_framing.ts";
 *
 * const context = new Context(new Request("http://api.test/", { method: "POST" }), {
 *   incoming: { headers: {} },
 * });
 * await nodeBodyFraming(context, () => Promise.resolve(context.empty(204)));
 * assert.equal(context.bodyless, true);
 * ```
 */
export const nodeBodyFraming: Middleware = (context, next) => {
  const incoming = (context.runtimeArgument as {
    incoming?: Pick<IncomingMessage, "headers">;
  } | undefined)?.incoming;
  if (
    incoming !== undefined &&
    incoming.headers["content-length"] === undefined &&
    incoming.headers["transfer-encoding"] === undefined
  ) {
    context.bodyless = true;
  }
  return next();
};
