/**
 * `DELETE /v1/integration/{integration_id}`: permanent deletion.
 *
 * @module
 */
import { allows } from "../auth/mod.ts";
import { HttpError } from "../http/mod.ts";
import type { Grant, Store } from "../store/mod.ts";
import { parsePathUuid } from "../validation/mod.ts";
import type { GrantedContext, Operation } from "../http/mod.ts";

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
 * The operation that deletes the integration with its HTTP tools and its MCP
 * tool cache: 204, or 404 `INTEGRATION_NOT_FOUND`.
 *
 * @param store Where the integrations are.
 * @returns The operation.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Context } from "../http/context.ts";
 * import { deleteIntegration } from "./delete_integration.ts";
 * import type { GrantedContext } from "../http/context.ts";
 * import { MemoryStore } from "../store/memory_store.ts";
 *
 * const integrationId = "5d1f8a8e-2b7c-4f3e-8f00-6a7d5c4b3a21";
 * const context = new Context(
 *   new Request(`http://x/v1/integration/${integrationId}`, { method: "DELETE" }),
 * );
 * context.route = {
 *   pattern: "/v1/integration/{integration_id}",
 *   params: { integration_id: integrationId },
 * };
 * context.grant = { projectId: "p", role: "owner" };
 * const response = await deleteIntegration(new MemoryStore())(
 *   context as GrantedContext,
 * );
 * assert.equal(response.status, 404);
 * assert.equal(context.errorCode, "INTEGRATION_NOT_FOUND");
 * ```
 */
export function deleteIntegration(store: Store): Operation<GrantedContext> {
  // Not async: the store's promise and one callback, without an async
  // function's frame and its await (measured on Bun).
  return (context) => {
    const { params, grant } = context;
    let integrationId: string;
    let deleted: Promise<boolean>;
    try {
      integrationId = parsePathUuid("integration_id", params.integration_id!);
      authorizeDelete(grant);
      deleted = store.deleteIntegration(grant.projectId, integrationId);
    } catch (error) {
      return Promise.reject(error);
    }
    return deleted.then((found) =>
      found ? context.empty(204) : context.error(
        // Answered, not thrown: no rejection through the pipeline.
        new HttpError(
          404,
          "INTEGRATION_NOT_FOUND",
          `Integration ${integrationId} not found`,
        ),
      )
    );
  };
}
