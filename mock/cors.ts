/**
 * Permissive CORS for the standalone mock server, so that a web app on any
 * origin can call it, preflight included.
 *
 * @module
 */
import type { Handler } from "../src/handler.ts";
import { isNetworkError } from "./drop_connection.ts";

const ALLOWED_METHODS = "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS";
const EXPOSED_HEADERS =
  "Content-Disposition, X-Request-Id, WWW-Authenticate, Allow";

/**
 * The CORS headers of every answer but a preflight's: the caller's origin
 * allowed (never with `Access-Control-Allow-Credentials`: the API takes
 * bearer tokens, not cookies), and `Content-Disposition`, `X-Request-Id`,
 * `WWW-Authenticate` and `Allow` exposed. Pass it as the handler's (or the
 * mock state's) `responseHeaders` so that the API's answers are built with
 * them.
 *
 * @param request The request, whose `Origin` is allowed.
 * @returns The headers, lowercase names.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { corsHeaders } from "./cors.ts";
 *
 * const request = new Request("http://127.0.0.1:4010/", {
 *   headers: { origin: "http://localhost:5173" },
 * });
 * assert.equal(
 *   corsHeaders(request)["access-control-allow-origin"],
 *   "http://localhost:5173",
 * );
 * assert.equal(corsHeaders(new Request("http://x/"))["access-control-allow-origin"], "*");
 * ```
 */
export function corsHeaders(request: Request): Record<string, string> {
  return {
    ...originHeaders(request),
    "access-control-expose-headers": EXPOSED_HEADERS,
  };
}

/** The headers a preflight shares with every other answer: the origin's. */
function originHeaders(request: Request): Record<string, string> {
  return {
    "access-control-allow-origin": request.headers.get("origin") ?? "*",
    vary: "Origin",
  };
}

/** Options of {@linkcode withCors}. */
export interface CorsOptions {
  /**
   * Whether the wrapped handler's answer to a request already carries
   * {@linkcode corsHeaders} (it was built with them), so that they need not
   * be set on it afterwards. Default: never.
   */
  builtIn?: (request: Request) => boolean;
}

/**
 * Wraps a handler with permissive CORS. A preflight (`OPTIONS` with
 * `Access-Control-Request-Method`) is answered 204 at once, allowing the
 * origin, method and headers asked for; every other response gets
 * {@linkcode corsHeaders}, unless `options.builtIn` says it has them. A
 * dropped connection (`Response.error()`) passes through as it is.
 *
 * @param handler The handler to wrap.
 * @param options Which answers carry the headers already.
 * @returns The wrapped handler.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { withCors } from "./cors.ts";
 *
 * const handler = withCors(() => Promise.resolve(new Response("ok")));
 * const response = await handler(
 *   new Request("http://127.0.0.1:4010/", {
 *     headers: { origin: "http://localhost:5173" },
 *   }),
 * );
 * assert.equal(
 *   response.headers.get("access-control-allow-origin"),
 *   "http://localhost:5173",
 * );
 * ```
 */
export function withCors(
  handler: Handler,
  options: CorsOptions = {},
): Handler {
  const builtIn = options.builtIn ?? (() => false);
  return async (request) => {
    const preflightMethod = request.headers.get(
      "access-control-request-method",
    );
    if (request.method === "OPTIONS" && preflightMethod !== null) {
      const headers = new Headers(originHeaders(request));
      headers.set("access-control-allow-methods", ALLOWED_METHODS);
      const requested = request.headers.get("access-control-request-headers");
      if (requested !== null) {
        headers.set("access-control-allow-headers", requested);
      }
      headers.set("access-control-max-age", "86400");
      headers.append(
        "vary",
        "Access-Control-Request-Method, Access-Control-Request-Headers",
      );
      return new Response(null, { status: 204, headers });
    }
    const response = await handler(request);
    if (isNetworkError(response) || builtIn(request)) return response;
    const cors = Object.entries(corsHeaders(request));
    try {
      // In place: copying the response would turn its body into a stream,
      // sent chunked at several times the cost (bench/README.md).
      for (const [name, value] of cors) response.headers.set(name, value);
      return response;
    } catch {
      // Immutable headers (a fetched or redirect response): copy it.
      const headers = new Headers(response.headers);
      for (const [name, value] of cors) headers.set(name, value);
      return new Response(response.body, {
        status: response.status,
        statusText: response.statusText,
        headers,
      });
    }
  };
}
