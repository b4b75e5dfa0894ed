/**
 * `POST /v1/workflow/{flow_id}/trigger/test`: the trigger's sample events.
 *
 * @module
 */
import { authenticate, authorize } from "../auth.ts";
import { HttpError } from "../http_error.ts";
import { parsePathUuid } from "../validation/mod.ts";
import { sampleEvents } from "../trigger_events.ts";
import { json } from "../responses.ts";
import type { OperationContext } from "./context.ts";

/**
 * Runs the flow's trigger in test mode: 200 `{"events": [...]}`, 404
 * `FLOW_NOT_FOUND`, or 400 `TRIGGER_NOT_CONFIGURED` for an `EMPTY` trigger.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { triggerTest } from "./trigger_test.ts";
 * import { MemoryStore } from "../store/memory_store.ts";
 *
 * await assert.rejects(
 *   triggerTest({
 *     request: new Request("http://x/v1/workflow/abc/trigger/test", { method: "POST" }),
 *     params: { flow_id: "abc" },
 *     store: new MemoryStore(),
 *     now: () => new Date(),
 *     reportError: console.error,
 *   }),
 *   (error: { status: number }) => error.status === 401, // no token
 * );
 * ```
 */
export async function triggerTest(
  { request, params, store, now, headers }: OperationContext,
): Promise<Response> {
  const grant = await authenticate(request, store);
  const flowId = parsePathUuid("flow_id", params.flow_id!);
  authorize(grant, "workflows:test");

  const flow = await store.findFlow(grant.projectId, flowId);
  if (flow === undefined) {
    return HttpError.respond(
      404,
      "FLOW_NOT_FOUND",
      `Flow ${flowId} not found`,
      headers,
    );
  }
  return json(
    { events: await sampleEvents(flow, store, now()) },
    200,
    headers,
  );
}
