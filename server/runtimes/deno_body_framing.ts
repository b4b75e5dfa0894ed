/**
 * What the headers of a request `Deno.serve` hands over say of its body,
 * told to the pipeline.
 *
 * @module
 */
import type { Middleware } from "../../src/http/mod.ts";

/**
 * The pipeline step that tells the context when a request `Deno.serve`
 * handed over came without a body: an HTTP/1.1 request (it carries `Host`)
 * with neither `Content-Length` nor `Transfer-Encoding` (RFC 9112, 6.3), what
 * `curl -X POST` and wrk send. Deno hands such a `POST` an empty body
 * stream; without this step the mock's journal reads it from a clone (about
 * 35 µs of CPU a request, twice the rest of a trigger test). An HTTP/2
 * request (cleartext with prior knowledge, which `Deno.serve` answers) may
 * stream a body without `Content-Length`, and carries no `Host` (its
 * `:authority` stands in for it): its body is looked for as before. One
 * that sends `Host` as well is taken for HTTP/1.1, and a body it streams
 * without a length is then not journaled. Needs the `info` `Deno.serve` passes
 * beside the request (`context.runtimeArgument`); without it (a request
 * built in process) it does nothing.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Context } from "../../src/http/mod.ts";
 * import { denoBodyFraming } from "./deno_body_framing.ts";
 *
 * const info = { remoteAddr: { transport: "tcp", hostname: "127.0.0.1", port: 1 } };
 * const post = (headers: Record<string, string>) =>
 *   new Context(new Request("http://api.test/", { method: "POST", headers }), info);
 * const answer = (context: Context) => () => Promise.resolve(context.empty(204));
 *
 * const bare = post({ host: "api.test" }); // HTTP/1.1, curl -X POST
 * await denoBodyFraming(bare, answer(bare));
 * assert.equal(bare.bodyless, true);
 *
 * const declared = post({ host: "api.test", "content-length": "2" });
 * await denoBodyFraming(declared, answer(declared));
 * assert.equal(declared.bodyless, false);
 *
 * const http2 = post({}); // no Host: HTTP/2, may stream a body
 * await denoBodyFraming(http2, answer(http2));
 * assert.equal(http2.bodyless, false);
 * ```
 */
export const denoBodyFraming: Middleware = (context, next) => {
  const info = context.runtimeArgument;
  if (typeof info === "object" && info !== null && "remoteAddr" in info) {
    const { headers } = context.request;
    // Each read with `get`: on Deno, `has` copies every header first.
    if (
      headers.get("content-length") === null &&
      headers.get("transfer-encoding") === null &&
      headers.get("host") !== null
    ) {
      context.bodyless = true;
    }
  }
  return next();
};
