/**
 * The routing step: finds a request's route, says on the context what it
 * leads to, and bounds the request's body by what the route takes.
 *
 * @module
 */
import { HttpError } from "../errors/mod.ts";
import { type Middleware, passThrough } from "./pipeline.ts";
import {
  declaresBody,
  discardSmallBody,
  refuseDeclaredOver,
} from "./request_body.ts";
import type { Router } from "./router.ts";
import type { Endpoint } from "./context.ts";

/**
 * Routes each request: sets `context.route` and `context.endpoint`, or
 * answers 404 (no route has the path) or 405 (another method has it).
 * What a token gives access to, refusals included, is never stored: the
 * answers of a route that needs one, and a 405 on its path, carry
 * `Cache-Control: no-store`. A body declared over the route's `bodyLimit`
 * is refused with 413 before anything else reads it; on a route that takes
 * none, a small body is read and dropped, so that the answer is the one
 * the request gets without it, and a larger one refused (see
 * `discardSmallBody`). Whether a body came, the headers tell.
 *
 * @param router The routes.
 * @param bodyTimeoutMs How long a body the route does not take may take to
 *   arrive while it is read to be dropped.
 * @returns The step.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Context } from "./context.ts";
 * import { Router } from "./router.ts";
 * import { routeRequests } from "./routing.ts";
 *
 * const router = new Router([{
 *   method: "GET",
 *   pattern: "/v1/call/{call_id}/message",
 *   target: { authenticated: false as const, operation: () => Promise.reject() },
 * }]);
 * const context = new Context(new Request("http://api.test/v1/call/42/message"));
 * const response = await routeRequests(router, 1000)(
 *   context,
 *   () => Promise.resolve(context.empty(204)),
 * );
 * assert.equal(response.status, 204);
 * assert.deepEqual(context.route?.params, { call_id: "42" });
 * ```
 */
export function routeRequests(
  router: Router<Endpoint>,
  bodyTimeoutMs: number,
): Middleware {
  return passThrough((context, next) => {
    const { request, pathname } = context;
    let match;
    try {
      match = router.match(request.method, pathname);
    } catch (error) {
      // Another method on a path that needs a token: a refusal of that
      // path, never stored either.
      if (
        error instanceof HttpError && error.status === 405 &&
        router.targetsAt(pathname).some((target) => target.authenticated)
      ) {
        context.keepPrivate();
      }
      throw error;
    }
    const { target } = match;
    // The match is the route (its pattern and params): no copy a request.
    context.route = match;
    context.endpoint = target;
    if (target.authenticated) context.keepPrivate();
    if (target.bodyLimit !== undefined) {
      refuseDeclaredOver(request, target.bodyLimit);
      return next();
    }
    if (declaresBody(request)) {
      return discardSmallBody(request, bodyTimeoutMs).then(next);
    }
    // Noted for the error renderer, which need not read the headers again.
    context.bodyless = true;
    return next();
  });
}
