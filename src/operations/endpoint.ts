/**
 * What a route leads to. An operation's settings (the store, the clock, its
 * deadlines) are fixed when the handler builds it, once; a request brings
 * only its {@linkcode Context}.
 *
 * @module
 */
import type { Context } from "../http/mod.ts";
import type { Grant } from "../store/mod.ts";

/** The context of a route that needs a token, with the token's grant. */
export type GrantedContext = Context & { readonly grant: Grant };

/**
 * An operation: one endpoint's work, for one request. It answers with a
 * response built by its context, or throws an `HttpError` (or a
 * `RequestValidationError`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Context } from "../http/context.ts";
 * import type { Operation } from "./endpoint.ts";
 *
 * const hello: Operation = (context) =>
 *   Promise.resolve(context.json({ hello: context.params.name }));
 * const context = new Context(new Request("http://x/hello/Ada"));
 * context.route = { pattern: "/hello/{name}", params: { name: "Ada" } };
 * const response = await hello(context);
 * assert.deepEqual(await response.json(), { hello: "Ada" });
 * assert.equal(response.headers.get("x-request-id"), context.requestId);
 * ```
 */
export type Operation<OperationContext extends Context = Context> = (
  context: OperationContext,
) => Promise<Response>;

/**
 * What a route leads to: an operation anyone may call, or one that needs a
 * bearer token, which the pipeline resolves to a grant before calling it (a
 * missing or unknown token is answered 401 without reaching the operation;
 * what the grant's role may do, the operation checks itself, after
 * validating its input, as the spec orders the errors). A body over the
 * route's `bodyLimit` is refused before either.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Context } from "../http/context.ts";
 * import type { Endpoint, GrantedContext } from "./endpoint.ts";
 *
 * const endpoint: Endpoint = {
 *   authenticated: true,
 *   operation: (context) =>
 *     Promise.resolve(context.empty(context.grant.role === "owner" ? 204 : 403)),
 * };
 * assert.ok(endpoint.authenticated);
 * const context = new Context(new Request("http://x/"));
 * context.grant = { projectId: "p", role: "owner" };
 * const response = await endpoint.operation(context as GrantedContext);
 * assert.equal(response.status, 204);
 * ```
 */
export type Endpoint =
  & (
    | { authenticated: false; operation: Operation }
    | { authenticated: true; operation: Operation<GrantedContext> }
  )
  & {
    /**
     * The largest request body the route takes, in bytes; one declared
     * larger is refused with 413 before anything else, its rest unread.
     * Default: the route takes no body, and reads and drops a small one
     * (see `discardSmallBody`).
     */
    bodyLimit?: number;
  };
