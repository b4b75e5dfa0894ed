/**
 * `DELETE /v1/integration/{integration_id}`: permanent deletion.
 *
 * @module
 */
import { allows, authenticate } from "../auth.ts";
import { HttpError } from "../http_error.ts";
import { empty } from "../responses.ts";
import type { Grant } from "../store/store.ts";
import { parsePathUuid } from "../validation/mod.ts";
import type { OperationContext } from "./context.ts";

/**
 * Refuses a grant whose role may not delete integrations as the spec does: 403
 * with the error code `INTERNAL_SERVER_ERROR` (not `UNAUTHORIZED_ROLE`) and a
 * message naming the missing permission.
 *
 * @param grant The request's project and role.
 * @throws {HttpError} 403 `INTERNAL_SERVER_ERROR` when the role lacks
 * `integrations:delete`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { authorizeDelete } from "./delete_integration.ts";
 *
 * authorizeDelete({ projectId: "p", role: "admin" }); // passes
 * assert.throws(() => authorizeDelete({ projectId: "p", role: "member" }), {
 *   status: 403,
 *   errorCode: "INTERNAL_SERVER_ERROR",
 *   message: "Missing required permissions to delete integrations: " +
 *     "integrations:delete",
 * });
 * ```
 */
export function authorizeDelete(grant: Grant): void {
  const permission = "integrations:delete";
  if (allows(grant.role, permission)) return;
  throw new HttpError(
    403,
    "INTERNAL_SERVER_ERROR",
    `Missing required permissions to delete integrations: ${permission}`,
  );
}

/**
 * Deletes the integration with its HTTP tools and its MCP tool cache: 204, or
 * 404 `INTEGRATION_NOT_FOUND`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { deleteIntegration } from "./delete_integration.ts";
 * import { MemoryStore } from "../store/memory_store.ts";
 *
 * await assert.rejects(
 *   deleteIntegration({
 *     request: new Request("http://x/v1/integration/abc", { method: "DELETE" }),
 *     params: { integration_id: "abc" },
 *     store: new MemoryStore(),
 *     now: () => new Date(),
 *     reportError: console.error,
 *   }),
 *   (error: { status: number }) => error.status === 401, // no token
 * );
 * ```
 */
export async function deleteIntegration(
  { request, params, store, headers }: OperationContext,
): Promise<Response> {
  const grant = await authenticate(request, store);
  const integrationId = parsePathUuid(
    "integration_id",
    params.integration_id!,
  );
  authorizeDelete(grant);

  if (!await store.deleteIntegration(grant.projectId, integrationId)) {
    return HttpError.respond(
      404,
      "INTEGRATION_NOT_FOUND",
      `Integration ${integrationId} not found`,
      headers,
    );
  }
  return empty(204, headers);
}
