/**
 * Permissive CORS for the standalone mock server, so that a web app on any
 * origin can call it, preflight included: a preflight is answered for the
 * mock's own routes, with each route's methods.
 *
 * @module
 */
import { Router } from "../src/http/mod.ts";
import { OPERATION_TABLE } from "./operation_table.ts";
import type { MockContext, MockStep } from "./mock_context.ts";

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

/** The API's paths, from the table generated from its OpenAPI document. */
function apiPaths(): DocumentPaths {
  const paths: DocumentPaths["paths"] = {};
  for (const [, method, path] of OPERATION_TABLE) {
    (paths[path] ??= {})[method.toLowerCase()] = {};
  }
  return { paths };
}

let mockRoutes: Promise<(pathname: string) => string[]> | undefined;

/**
 * The mock's routes: the API's and the control API's, and the document the
 * API serves about itself. Built at the first preflight, not at start, the
 * control API's document loaded then (0.3 ms of CPU on Bun).
 */
function mockRouteMethods(): Promise<(pathname: string) => string[]> {
  return mockRoutes ??= import("./control_openapi.ts").then((
    { controlOpenApiDocument },
  ) =>
    routeMethods([
      apiPaths(),
      controlOpenApiDocument,
      { paths: { "/openapi.json": { get: {} } } },
    ])
  );
}

/**
 * Permissive CORS, as a step of the mock's pipeline. A preflight (`OPTIONS`
 * with `Access-Control-Request-Method`) to a route is answered 204 at once,
 * allowing the origin, the route's methods and the headers asked for; a
 * preflight to any other path goes on (to a 404). Every other answer is
 * built with {@linkcode corsHeaders}.
 *
 * @param methodsAt The methods each path answers. Default: the API's and
 *   the control API's routes.
 * @returns The step.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Context } from "../src/http/context.ts";
 * import { allowCors } from "./cors.ts";
 *
 * const cors = allowCors();
 * const answer = (request: Request) => {
 *   const context = new Context(request);
 *   return cors(context, () => Promise.resolve(context.json({ ok: true })));
 * };
 * const origin = "http://localhost:5173";
 * const response = await answer(
 *   new Request("http://127.0.0.1:4010/", { headers: { origin } }),
 * );
 * assert.equal(response.headers.get("access-control-allow-origin"), origin);
 *
 * const preflight = await answer(
 *   new Request("http://127.0.0.1:4010/v1/integration/42", {
 *     method: "OPTIONS",
 *     headers: { origin, "access-control-request-method": "DELETE" },
 *   }),
 * );
 * assert.equal(preflight.status, 204);
 * assert.equal(preflight.headers.get("access-control-allow-methods"), "DELETE");
 * ```
 */
export function allowCors(
  methodsAt?: (pathname: string) => string[],
): MockStep {
  return (context, next) => {
    const { request } = context;
    if (
      request.method !== "OPTIONS" ||
      !request.headers.has("access-control-request-method")
    ) {
      context.headers = { ...context.headers, ...corsHeaders(request) };
      return next();
    }
    return (methodsAt === undefined
      ? mockRouteMethods()
      : Promise.resolve(methodsAt)).then((methodsOf) =>
        answerPreflight(context, next, methodsOf(context.pathname))
      );
  };
}

/** A preflight's answer: 204 with the methods, or on (none: no route). */
function answerPreflight(
  context: MockContext,
  next: () => Promise<Response>,
  methods: string[],
): Promise<Response> {
  const { request } = context;
  if (methods.length === 0) {
    context.headers = { ...context.headers, ...corsHeaders(request) };
    return next();
  }
  const headers = new Headers({
    ...context.headers,
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
  return Promise.resolve(new Response(null, { status: 204, headers }));
}
