/**
 * `POST /v1/workflow/{flow_id}/trigger/test`: the trigger's sample events.
 *
 * @module
 */
import { authenticate, authorize } from "../auth.ts";
import { HttpError } from "../http_error.ts";
import { parsePathUuid } from "../validation/mod.ts";
import { type TriggerEvent, triggerEvents } from "../trigger_events.ts";
import { json } from "../responses.ts";
import type { Flow, Store } from "../store/store.ts";
import type { OperationContext } from "./context.ts";

/**
 * A flow's sample events, under the spec's rule for a flow that nothing
 * starts: its `EMPTY` trigger is refused with 400 `TRIGGER_NOT_CONFIGURED`.
 *
 * @param flow The flow whose trigger runs.
 * @param store Where a `call_ended` trigger finds calls.
 * @param now The current time.
 * @returns The events, for `{"events": [...]}`.
 * @throws {HttpError} 400 `TRIGGER_NOT_CONFIGURED` for an `EMPTY` trigger.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sampleEvents } from "./trigger_test.ts";
 * import { MemoryStore } from "../store/memory_store.ts";
 *
 * const flow = { flowId: "f", projectId: "p", name: "Hook" };
 * assert.deepEqual(
 *   await sampleEvents(
 *     { ...flow, trigger: { type: "webhook", sample_payload: { a: 1 } } },
 *     new MemoryStore(),
 *     new Date(),
 *   ),
 *   [{ a: 1 }],
 * );
 * await assert.rejects(
 *   sampleEvents({ ...flow, trigger: { type: "EMPTY" } }, new MemoryStore(), new Date()),
 *   { status: 400, errorCode: "TRIGGER_NOT_CONFIGURED" },
 * );
 * ```
 */
export function sampleEvents(
  flow: Flow,
  store: Store,
  now: Date,
): Promise<TriggerEvent[]> {
  const { trigger } = flow;
  if (trigger.type === "EMPTY") {
    return Promise.reject(
      new HttpError(
        400,
        "TRIGGER_NOT_CONFIGURED",
        `Flow ${flow.flowId} has no trigger configured`,
      ),
    );
  }
  return triggerEvents(trigger, flow.projectId, store, now);
}

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
