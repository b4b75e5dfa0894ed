/**
 * The MSW adapter: one `http.all` handler that passes every request under the
 * base URL to a Fetch handler and answers with its `Response` as it is. Works
 * with MSW 2 and MSW 3, in `setupServer` (Node, Deno, Bun) and `setupWorker`
 * (browsers).
 *
 * @module
 */
import { http, type HttpHandler } from "msw";
import type { Handler } from "../src/handler.ts";

/**
 * An MSW request handler, of the MSW version the project has installed: what
 * `http.all` returns in MSW 2 and 3.
 */
export type MswHandler = HttpHandler;

/**
 * MSW request handlers that hand every request under `baseUrl` to `handler`.
 * A path in the base URL (`https://example.com/api`) is cut off before the
 * handler sees the request, so the handler gets `/v1/...` whatever the base.
 *
 * @param baseUrl Where the API is mocked: an absolute URL, or a path (resolved
 * against the page's origin in a browser).
 * @param handler The Fetch handler that answers.
 * @returns The handlers to give `setupServer` or `setupWorker`.
 *
 * @example Mocking a Fetch handler with MSW
 * ```ts ignore
 * import { setupServer } from "msw/node";
 * import { createMswHandlers } from "./msw_handlers.ts";
 *
 * const server = setupServer(
 *   ...createMswHandlers("https://api.example.com", () =>
 *     Promise.resolve(Response.json({ ok: true }))),
 * );
 * server.listen();
 * ```
 */
export function createMswHandlers(
  baseUrl: string,
  handler: Handler,
): MswHandler[] {
  const base = baseUrl.replace(/\/+$/, "");
  const prefix = new URL(base === "" ? "/" : base, "http://base.invalid")
    .pathname.replace(/\/+$/, "");
  return [
    http.all(
      `${base}/*`,
      async ({ request }) => handler(await asSent(request, prefix)),
    ),
  ];
}

/**
 * The request as a server hands it over: its path without `prefix`, and a
 * body that no header measures (`fetch` adds `Content-Length` only when it
 * sends) given the `Content-Length` it goes out with, so that the handler
 * bounds it as it bounds one that came over HTTP: a route that takes no
 * body ignores one of up to 64 KiB and refuses a larger one with 413. (A
 * browser's `Headers` keep no `Content-Length`: under `setupWorker`, such a
 * body is ignored whatever its size.)
 */
async function asSent(request: Request, prefix: string): Promise<Request> {
  const { method, headers } = request;
  const hasBody = request.body !== null && method !== "GET" &&
    method !== "HEAD";
  const unmeasured = hasBody && !headers.has("content-length") &&
    !headers.has("transfer-encoding");
  if (prefix === "" && !unmeasured) return request;
  const url = new URL(request.url);
  url.pathname = url.pathname.slice(prefix.length) || "/";
  const body = hasBody ? await request.arrayBuffer() : null;
  const sent = new Headers(headers);
  if (unmeasured) sent.set("content-length", String(body!.byteLength));
  return new Request(url, {
    method,
    headers: sent,
    body,
    signal: request.signal,
  });
}
