/**
 * Bearer authentication (RFC 6750) and role-based permissions.
 *
 * @module
 */
import { HttpError } from "../http/mod.ts";
import type { Grant, Role, Store } from "../store/mod.ts";
import { hashToken } from "../store/mod.ts";

/** Something a request may ask to do. */
export type Permission =
  | "transcripts:read"
  | "workflows:test"
  | "integrations:delete";

/** Which roles hold which permission. */
const PERMISSIONS: Record<Role, ReadonlySet<Permission>> = {
  owner: new Set([
    "transcripts:read",
    "workflows:test",
    "integrations:delete",
  ]),
  admin: new Set([
    "transcripts:read",
    "workflows:test",
    "integrations:delete",
  ]),
  member: new Set(["transcripts:read", "workflows:test"]),
  viewer: new Set(["transcripts:read"]),
  billing: new Set(),
};

/** RFC 7235 token68, the form RFC 6750 gives bearer tokens. */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/**
 * Resolves the request's bearer token to its grant.
 *
 * @param request The request, with `Authorization: Bearer <token>`.
 * @param store Where grants are looked up, by the token's SHA-256 digest.
 * @param onUnknownToken Called when the store knows no such token (a guess,
 * as opposed to a missing or malformed header), before the 401 is thrown.
 * @returns The token's project and role.
 * @throws {HttpError} 401 `UNAUTHORIZED` with a `WWW-Authenticate` challenge
 * when the header is missing or malformed or the token is unknown.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { authenticate } from "./authenticate.ts";
 * import { MemoryStore } from "../store/memory_store.ts";
 *
 * const request = new Request("http://x/", { headers: { authorization: "Bearer nope" } });
 * await assert.rejects(
 *   authenticate(request, new MemoryStore()),
 *   (error: { status: number; errorCode: string }) =>
 *     error.status === 401 && error.errorCode === "UNAUTHORIZED",
 * );
 * ```
 */
export function authenticate(
  request: Request,
  store: Store,
  onUnknownToken?: () => void,
): Promise<Grant> {
  return withGrant(request, store, onUnknownToken, (grant) => grant);
}

/**
 * {@linkcode authenticate}, then `use` of the grant, in one callback of the
 * store's promise: a pipeline step passes its `next()` there, one promise a
 * request fewer than `authenticate(…).then(use)`.
 *
 * @param request The request, with `Authorization: Bearer <token>`.
 * @param store Where grants are looked up.
 * @param onUnknownToken As for {@linkcode authenticate}.
 * @param use What to make of the grant.
 * @returns What `use` returns, or the 401 as a rejection.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { withGrant } from "./authenticate.ts";
 * import { MemoryStore } from "../store/memory_store.ts";
 *
 * const request = new Request("http://x/");
 * await assert.rejects(
 *   withGrant(request, new MemoryStore(), undefined, () => "used"),
 *   { status: 401, errorCode: "UNAUTHORIZED" },
 * );
 * ```
 */
export function withGrant<T>(
  request: Request,
  store: Store,
  onUnknownToken: (() => void) | undefined,
  use: (grant: Grant) => T | PromiseLike<T>,
): Promise<T> {
  // Not async: a known token costs the store's promise and one callback,
  // without an async function's frame and its await (measured on Bun).
  try {
    const header = request.headers.get("authorization");
    if (header === null) {
      throw unauthorized("Missing bearer token", 'Bearer realm="api"');
    }
    const token = BEARER.exec(header)?.[1];
    if (token === undefined) {
      throw unauthorized(
        "Malformed Authorization header: expected 'Bearer <token>'",
        'Bearer realm="api", error="invalid_request"',
      );
    }
    const cached = digests.get(token);
    if (cached !== undefined) {
      return store.findGrant(cached).then((grant) =>
        grant === undefined ? refuseToken(onUnknownToken) : use(grant)
      );
    }
    return hashToken(token).then((digest) =>
      store.findGrant(digest).then((grant) => {
        if (grant === undefined) return refuseToken(onUnknownToken);
        remember(token, digest);
        return use(grant);
      })
    );
  } catch (error) {
    return Promise.reject(error);
  }
}

/** Notes an unknown token, then refuses it: 401 `UNAUTHORIZED`. */
function refuseToken(onUnknownToken: (() => void) | undefined): never {
  onUnknownToken?.();
  throw unauthorized(
    "Invalid bearer token",
    'Bearer realm="api", error="invalid_token"',
  );
}

/**
 * Whether a role holds a permission.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { allows } from "./authenticate.ts";
 *
 * assert.equal(allows("viewer", "transcripts:read"), true);
 * assert.equal(allows("member", "integrations:delete"), false);
 * ```
 */
export function allows(role: Role, permission: Permission): boolean {
  return PERMISSIONS[role].has(permission);
}

/**
 * Refuses a grant that lacks a permission: 403 `UNAUTHORIZED_ROLE`. (The spec
 * answers a refused integration delete otherwise: see
 * `operations/delete_integration.ts`.)
 *
 * @throws {HttpError} 403 when the role lacks the permission.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { authorize } from "./authenticate.ts";
 *
 * authorize({ projectId: "p", role: "owner" }, "integrations:delete"); // passes
 * assert.throws(
 *   () => authorize({ projectId: "p", role: "viewer" }, "workflows:test"),
 *   { status: 403, errorCode: "UNAUTHORIZED_ROLE" },
 * );
 * ```
 */
export function authorize(grant: Grant, permission: Permission): void {
  if (allows(grant.role, permission)) return;
  throw new HttpError(
    403,
    "UNAUTHORIZED_ROLE",
    `Role '${grant.role}' is not allowed to perform this operation`,
  );
}

/** How many recently seen tokens keep their digest at hand. */
const DIGEST_CACHE_SIZE = 1024;

/**
 * Digests of recently accepted tokens: the asynchronous SHA-256 is most of an
 * authenticated request's cost on Node. Only tokens the store knew are kept,
 * so unknown tokens cannot flush the cache; the grant itself is still looked
 * up on every request, so a revoked token stops working at once.
 */
const digests = new Map<string, string>();

function remember(token: string, digest: string): void {
  if (digests.size >= DIGEST_CACHE_SIZE) {
    digests.delete(digests.keys().next().value!);
  }
  digests.set(token, digest);
}

function unauthorized(message: string, challenge: string): HttpError {
  return new HttpError(401, "UNAUTHORIZED", message, {
    headers: { "www-authenticate": challenge },
  });
}
