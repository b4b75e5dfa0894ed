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
export async function authenticate(
  request: Request,
  store: Store,
  onUnknownToken?: () => void,
): Promise<Grant> {
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
  const digest = cached ?? await hashToken(token);
  const grant = await store.findGrant(digest);
  if (grant === undefined) {
    onUnknownToken?.();
    throw unauthorized(
      "Invalid bearer token",
      'Bearer realm="api", error="invalid_token"',
    );
  }
  if (cached === undefined) remember(token, digest);
  return grant;
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
