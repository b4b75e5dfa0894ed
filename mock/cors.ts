/**
 * Permissive CORS for the standalone mock server, so that a web app on any
 * origin can call it, preflight included: a preflight is answered for the
 * mock's own routes, with each route's methods.
 *
 * @module
 */
import type { Handler } from "../src/handler.ts";
import { PUBLIC_HEADERS } from "../src/http/hardening_headers.ts";
import { openApiDocument } from "../src/openapi/document.ts";
import { pathnameOf, Router } from "../src/http/router.ts";
import { controlOpenApiDocument } from "./control_openapi.ts";
import { isNetworkError } from "./drop_connection.ts";

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
  /**
   * The methods a path answers (none: not a route of the mock, and its
   * preflight goes to the handler, which answers 404). Default: the paths
   * and methods of the API's and the control API's OpenAPI documents
   * ({@linkcode routeMethods}).
   */
  methodsAt?: (pathname: string) => string[];
}

/** The paths of OpenAPI documents, by path template then lowercase method. */
export interface DocumentPaths {
  /** The operations, by path template then by lowercase method. */
  paths: Record<string, Record<string, unknown>>;
}

/**
 * The methods each path of OpenAPI documents answers, `HEAD` beside each
 * `GET` (as the handler answers it).
 *
 * @param documents The documents whose `paths` to read.
 * @returns The methods a (percent-encoded) path answers, none for a path the
 * documents do not have.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openApiDocument } from "../src/openapi/document.ts";
 * import { routeMethods } from "./cors.ts";
 *
 * const methodsAt = routeMethods([openApiDocument]);
 * assert.deepEqual(methodsAt("/v1/integration/42"), ["DELETE"]);
 * assert.deepEqual(methodsAt("/healthz"), ["GET", "HEAD"]);
 * assert.deepEqual(methodsAt("/v2"), []);
 * ```
 */
export function routeMethods(
  documents: readonly DocumentPaths[],
): (pathname: string) => string[] {
  const router = new Router(
    documents.flatMap((document) =>
      Object.entries(document.paths).flatMap(([pattern, operations]) =>
        Object.keys(operations).map((method) => ({
          method: method.toUpperCase(),
          pattern,
          target: undefined,
        }))
      )
    ),
  );
  return (pathname) => router.methodsAt(pathname);
}

/**
 * The mock's routes: the API's and the control API's, and the document the
 * API serves about itself.
 */
const mockRouteMethods = routeMethods([
  openApiDocument,
  controlOpenApiDocument,
  { paths: { "/openapi.json": { get: {} } } },
]);

/**
 * Wraps a handler with permissive CORS. A preflight (`OPTIONS` with
 * `Access-Control-Request-Method`) to a route is answered 204 at once,
 * allowing the origin, the route's methods and the headers asked for; a
 * preflight to any other path goes to the handler (a 404). Every other
 * response gets
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
 *
 * @example A preflight allows the route's own methods
 * ```ts
 * import assert from "node:assert/strict";
 * import { withCors } from "./cors.ts";
 *
 * const handler = withCors(() => Promise.resolve(new Response("ok")));
 * const preflight = await handler(
 *   new Request("http://127.0.0.1:4010/v1/integration/42", {
 *     method: "OPTIONS",
 *     headers: {
 *       origin: "http://localhost:5173",
 *       "access-control-request-method": "DELETE",
 *     },
 *   }),
 * );
 * assert.equal(preflight.status, 204);
 * assert.equal(preflight.headers.get("access-control-allow-methods"), "DELETE");
 * ```
 */
export function withCors(
  handler: Handler,
  options: CorsOptions = {},
): Handler {
  const builtIn = options.builtIn ?? (() => false);
  const methodsAt = options.methodsAt ?? mockRouteMethods;
  return async (request) => {
    const methods = request.method === "OPTIONS" &&
        request.headers.has("access-control-request-method")
      ? methodsAt(pathnameOf(request.url))
      : [];
    if (methods.length > 0) {
      const headers = new Headers({
        ...PUBLIC_HEADERS,
        ...originHeaders(request),
      });
      headers.set("access-control-allow-methods", methods.join(", "));
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
