/**
 * What every operation is handed per request. An operation's settings (the
 * store, the clock, its deadlines) are fixed when the handler builds it,
 * once; a request brings only what is its own.
 *
 * @module
 */
import type { Grant } from "../store/store.ts";

/** The request, as an operation sees it. */
export interface RequestContext {
  /** The request. */
  request: Request;
  /** Path params, percent-decoded, not yet validated. */
  params: Record<string, string>;
  /** The request id echoed in `X-Request-Id`, for the error log. */
  requestId: string;
  /**
   * Headers every response carries (the handler's `X-Request-Id`): set when
   * the response is built, never added to it afterwards, which would cost
   * each runtime's server its fast path for plain header records.
   */
  headers: Readonly<Record<string, string>>;
}

/** The request of a route that needs a token, with the token's grant. */
export interface GrantedContext extends RequestContext {
  /** The caller's project and role, from its bearer token. */
  grant: Grant;
}

/**
 * An operation: one endpoint's work, for one request. It answers with a
 * response or throws an `HttpError` (or a `RequestValidationError`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { Operation } from "./endpoint.ts";
 * import { json } from "../http/responses.ts";
 *
 * const hello: Operation = ({ params, headers }) =>
 *   Promise.resolve(json({ hello: params.name }, 200, headers));
 * const response = await hello({
 *   request: new Request("http://x/hello/Ada"),
 *   params: { name: "Ada" },
 *   requestId: "r1",
 *   headers: { "x-request-id": "r1" },
 * });
 * assert.deepEqual(await response.json(), { hello: "Ada" });
 * assert.equal(response.headers.get("x-request-id"), "r1");
 * ```
 */
export type Operation<Context extends RequestContext = RequestContext> = (
  context: Context,
) => Promise<Response>;

/**
 * What a route leads to: an operation anyone may call, or one that needs a
 * bearer token, which the handler resolves to a grant before calling it (a
 * missing or unknown token is answered 401 without reaching the operation;
 * what the grant's role may do, the operation checks itself, after
 * validating its input, as the spec orders the errors). A body over the
 * route's `bodyLimit` is refused before either.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { Endpoint } from "./endpoint.ts";
 * import { empty } from "../http/responses.ts";
 *
 * const endpoint: Endpoint = {
 *   authenticated: true,
 *   operation: ({ grant, headers }) =>
 *     Promise.resolve(empty(grant.role === "owner" ? 204 : 403, headers)),
 * };
 * assert.ok(endpoint.authenticated);
 * const response = await endpoint.operation({
 *   request: new Request("http://x/"),
 *   params: {},
 *   requestId: "r1",
 *   headers: {},
 *   grant: { projectId: "p", role: "owner" },
 * });
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
     * The largest request body the route takes, in bytes; a larger one is
     * refused with 413 before anything else, its rest unread. Default 0: the
     * route takes no body.
     */
    bodyLimit?: number;
  };
