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
 * Wraps a handler with permissive CORS. A preflight (`OPTIONS` with
 * `Access-Control-Request-Method`) is answered 204 at once, allowing the
 * origin, method and headers asked for; every other response allows the
 * caller's origin (never with `Access-Control-Allow-Credentials`: the API
 * takes bearer tokens, not cookies) and exposes `Content-Disposition`,
 * `X-Request-Id`, `WWW-Authenticate` and `Allow`. A dropped connection
 * (`Response.error()`) passes through as it is.
 *
 * @param handler The handler to wrap.
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
export function withCors(handler: Handler): Handler {
  return async (request) => {
    const origin = request.headers.get("origin");
    const preflightMethod = request.headers.get(
      "access-control-request-method",
    );
    if (request.method === "OPTIONS" && preflightMethod !== null) {
      const headers = corsHeaders(origin);
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
    if (isNetworkError(response)) return response;
    const cors = corsHeaders(origin);
    cors.set("access-control-expose-headers", EXPOSED_HEADERS);
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

function corsHeaders(origin: string | null): Headers {
  const headers = new Headers({ vary: "Origin" });
  headers.set("access-control-allow-origin", origin ?? "*");
  return headers;
}
