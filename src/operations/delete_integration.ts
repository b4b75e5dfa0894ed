/**
 * `DELETE /v1/integration/{integration_id}`: permanent deletion.
 *
 * @module
 */
import { authenticate, authorize } from "../auth.ts";
import { HttpError } from "../http_error.ts";
import { parsePathUuid } from "../validation/mod.ts";
import type { OperationContext } from "./context.ts";

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
  authorize(grant, "integrations:delete");

  if (!await store.deleteIntegration(grant.projectId, integrationId)) {
    return HttpError.respond(
      404,
      "INTEGRATION_NOT_FOUND",
      `Integration ${integrationId} not found`,
      headers,
    );
  }
  return new Response(null, { status: 204, headers: { ...headers } });
}
