/**
 * The authentication step: resolves the bearer token of a route that needs
 * one to its grant, within the failed-authentication bound.
 *
 * @module
 */
import { type Middleware, passThrough } from "../http/mod.ts";
import type { Grant, Store } from "../store/mod.ts";
import { withGrant } from "./authenticate.ts";
import type { FailedAuthLimiter } from "./failed_auth.ts";

/** Options of {@linkcode authenticateRequests}. */
export interface AuthenticationOptions {
  /** Where grants are looked up. */
  store: Store;
  /** Counts each client address's unknown tokens. */
  failedAuth: FailedAuthLimiter;
  /**
   * The address of a request's client; without one, failed authentication
   * is not bounded.
   */
  clientAddress:
    | ((request: Request, runtimeArgument?: unknown) => string | undefined)
    | undefined;
}

/**
 * Sets `context.grant` for a route that needs a token (any other passes
 * through): 401 without a known token, 429 for an address past its limit
 * of unknown tokens, which then costs no store query.
 *
 * @param options The store, the limiter and the client's address.
 * @returns The step.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Context } from "../http/context.ts";
 * import { MemoryStore } from "../store/memory_store.ts";
 * import { authenticateRequests } from "./authentication.ts";
 * import { FailedAuthLimiter } from "./failed_auth.ts";
 *
 * const step = authenticateRequests({
 *   store: new MemoryStore(),
 *   failedAuth: new FailedAuthLimiter(),
 *   clientAddress: undefined,
 * });
 * const context = new Context(new Request("http://api.test/"));
 * context.endpoint = { authenticated: true, operation: () => Promise.reject() };
 * await assert.rejects(
 *   step(context, () => Promise.resolve(context.empty(204))),
 *   (error: { status: number }) => error.status === 401,
 * );
 * ```
 */
export function authenticateRequests(
  options: AuthenticationOptions,
): Middleware {
  const { store, failedAuth, clientAddress } = options;
  // Not async: one callback a request rather than an async function's
  // frame and a second promise to wait on.
  return passThrough((context, next) => {
    if (context.endpoint?.authenticated !== true) return next();
    const granted = (grant: Grant) => {
      context.grant = grant;
      return next();
    };
    if (clientAddress === undefined) {
      return withGrant(context.request, store, undefined, granted);
    }
    const { request, runtimeArgument } = context;
    // A limited address costs no store query. While no address has failed,
    // none is limited: the address (on Bun, a native call and an object per
    // request) is found only once a token fails. A client gone before the
    // store answered may then go uncounted: it never reads its 401 either.
    let address = failedAuth.empty
      ? undefined
      : clientAddress(request, runtimeArgument);
    if (address !== undefined) {
      try {
        failedAuth.check(address);
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return withGrant(request, store, () => {
      address ??= clientAddress(request, runtimeArgument);
      if (address !== undefined) failedAuth.fail(address);
    }, granted);
  });
}
