/**
 * Matching a request's method and path to a route: 404 `NOT_FOUND` for an
 * unknown path, 405 `METHOD_NOT_ALLOWED` with `Allow` for a known path asked
 * with another method. A `GET` route also answers `HEAD` (RFC 9110, 9.3.2):
 * the caller sends the GET's status and headers without its body.
 *
 * @module
 */
import { HttpError } from "../errors/mod.ts";
import { unquote } from "../validation/mod.ts";

/** A route: a method and a path pattern whose `{name}` segments are params. */
export interface Route<T> {
  /** The HTTP method, upper case. */
  method: string;
  /** e.g. `/v1/integration/{integration_id}`. */
  pattern: string;
  /** What the route leads to. */
  target: T;
}

/** A matched route with its (percent-decoded) path params. */
export interface RouteMatch<T> {
  /** What the matched route leads to. */
  target: T;
  /** The route's pattern, e.g. `/v1/integration/{integration_id}`. */
  pattern: string;
  /** The `{name}` segments' values, by name. */
  params: Record<string, string>;
}

/** Options of {@linkcode Router}. */
export interface RouterOptions {
  /**
   * The 404's message for a path no route has. Default:
   * `No route for <pathname>`.
   */
  notFoundMessage?: (pathname: string) => string;
}

/**
 * A route table.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Router } from "./router.ts";
 *
 * const router = new Router([
 *   { method: "DELETE", pattern: "/v1/integration/{integration_id}", target: "delete" },
 * ]);
 * assert.deepEqual(router.match("DELETE", "/v1/integration/42"), {
 *   target: "delete",
 *   pattern: "/v1/integration/{integration_id}",
 *   params: { integration_id: "42" },
 * });
 * ```
 *
 * @example A GET route answers HEAD too
 * ```ts
 * import assert from "node:assert/strict";
 * import { HttpError } from "../errors/mod.ts";
 * import { Router } from "./router.ts";
 *
 * const router = new Router([{ method: "GET", pattern: "/healthz", target: 1 }]);
 * assert.equal(router.match("HEAD", "/healthz").target, 1);
 * assert.throws(
 *   () => router.match("POST", "/healthz"),
 *   (error: HttpError) =>
 *     new Headers(error.headers).get("allow") === "GET, HEAD",
 * );
 * ```
 */
export class Router<T> {
  #routes: CompiledRoute<T>[];
  #notFoundMessage: ((pathname: string) => string) | undefined;

  /**
   * Compiles the routes' patterns once, for every match to come.
   *
   * @param routes The routes, tried in order (a 405's `Allow` lists their
   * methods in this order).
   * @param options The 404's message.
   */
  constructor(routes: readonly Route<T>[], options: RouterOptions = {}) {
    this.#notFoundMessage = options.notFoundMessage;
    this.#routes = routes.map(({ method, pattern, target }) => {
      const segments = pattern.split("/");
      return {
        method,
        pattern,
        segments,
        params: segments.map((segment) =>
          segment.startsWith("{") && segment.endsWith("}")
            ? segment.slice(1, -1)
            : undefined
        ),
        target,
      };
    });
  }

  /**
   * Finds the route of a request.
   *
   * @param method The request method.
   * @param pathname The URL's path, still percent-encoded.
   * @returns The route's target and params.
   * @throws {HttpError} 404 or 405.
   */
  match(method: string, pathname: string): RouteMatch<T> {
    const segments = pathname.split("/");
    let allowed: string[] | undefined;
    for (const route of this.#routes) {
      const params = matchSegments(route, segments);
      if (params === undefined) continue;
      if (
        route.method === method || (method === "HEAD" && route.method === "GET")
      ) {
        return { target: route.target, pattern: route.pattern, params };
      }
      (allowed ??= []).push(...methodsOf(route));
    }
    if (allowed === undefined) {
      throw new HttpError(
        404,
        "NOT_FOUND",
        this.#notFoundMessage?.(pathname) ?? `No route for ${pathname}`,
      );
    }
    throw new HttpError(
      405,
      "METHOD_NOT_ALLOWED",
      `Method ${method} is not allowed on ${pathname}`,
      { headers: { allow: allowed.join(", ") } },
    );
  }

  /**
   * The methods a path answers, in route order, `HEAD` after each `GET`
   * (what a 405's `Allow` lists, or a CORS preflight allows).
   *
   * @param pathname The URL's path, still percent-encoded.
   * @returns The methods; none for a path no route has.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Router } from "./router.ts";
   *
   * const router = new Router([
   *   { method: "GET", pattern: "/v1/call/{call_id}/message", target: 1 },
   * ]);
   * assert.deepEqual(router.methodsAt("/v1/call/42/message"), ["GET", "HEAD"]);
   * assert.deepEqual(router.methodsAt("/v1/call"), []);
   * ```
   */
  methodsAt(pathname: string): string[] {
    return this.#routesAt(pathname).flatMap(methodsOf);
  }

  /**
   * The targets of the routes a path has, whatever their methods.
   *
   * @param pathname The URL's path, still percent-encoded.
   * @returns The targets, in route order; none for a path no route has.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Router } from "./router.ts";
   *
   * const router = new Router([{ method: "GET", pattern: "/healthz", target: 1 }]);
   * assert.deepEqual(router.targetsAt("/healthz"), [1]);
   * assert.deepEqual(router.targetsAt("/readyz"), []);
   * ```
   */
  targetsAt(pathname: string): T[] {
    return this.#routesAt(pathname).map((route) => route.target);
  }

  #routesAt(pathname: string): CompiledRoute<T>[] {
    const segments = pathname.split("/");
    return this.#routes.filter((route) => matchesPattern(route, segments));
  }
}

/** The methods a route answers: its own, and `HEAD` beside a `GET`. */
function methodsOf(route: CompiledRoute<unknown>): string[] {
  return route.method === "GET" ? ["GET", "HEAD"] : [route.method];
}

/** A route split once: its segments, and each `{name}` segment's name. */
interface CompiledRoute<T> {
  method: string;
  pattern: string;
  segments: string[];
  params: (string | undefined)[];
  target: T;
}

/** Whether a path matches a route's pattern, without decoding its params. */
function matchesPattern(
  route: CompiledRoute<unknown>,
  path: string[],
): boolean {
  const { segments, params: names } = route;
  if (segments.length !== path.length) return false;
  // A loop, not `every`: no closure a route a request.
  for (let i = 0; i < segments.length; i += 1) {
    if (
      names[i] === undefined ? segments[i] !== path[i] : path[i] === ""
    ) return false;
  }
  return true;
}

function matchSegments(
  route: CompiledRoute<unknown>,
  path: string[],
): Record<string, string> | undefined {
  // The literal segments first: most routes fail there, before any params
  // are decoded.
  if (!matchesPattern(route, path)) return undefined;
  const { segments, params: names } = route;
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i += 1) {
    const name = names[i];
    if (name !== undefined) params[name] = unquote(path[i]!);
  }
  return params;
}
