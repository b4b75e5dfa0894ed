/**
 * `POST /v1/workflow/{flow_id}/trigger/test`: the trigger's sample events.
 *
 * @module
 */
import { authorize } from "../auth/mod.ts";
import { HttpError } from "../http/mod.ts";
import { parsePathUuid } from "../validation/mod.ts";
import { type TriggerEvent, triggerEvents } from "./trigger_events.ts";
import type { Flow, Store } from "../store/mod.ts";
import type { GrantedContext, Operation } from "../http/mod.ts";

/**
 * A flow's sample events, under the spec's rule for a flow that nothing
 * starts: its `EMPTY` trigger is refused with 409 `TRIGGER_NOT_CONFIGURED`
 * (the request is well formed; the flow's state forbids it: RFC 9110,
 * 15.5.10).
 *
 * @param flow The flow whose trigger runs.
 * @param store Where a `call_ended` trigger finds calls.
 * @param now The clock, read only by a trigger that needs the time.
 * @returns The events, for `{"events": [...]}`.
 * @throws {HttpError} 409 `TRIGGER_NOT_CONFIGURED` for an `EMPTY` trigger.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sampleEvents } from "./test_trigger.ts";
 * import { MemoryStore } from "../store/memory_store.ts";
 *
 * const flow = { flowId: "f", projectId: "p", name: "Hook" };
 * assert.deepEqual(
 *   await sampleEvents(
 *     { ...flow, trigger: { type: "webhook", sample_payload: { a: 1 } } },
 *     new MemoryStore(),
 *     () => new Date(),
 *   ),
 *   [{ a: 1 }],
 * );
 * await assert.rejects(
 *   sampleEvents({ ...flow, trigger: { type: "EMPTY" } }, new MemoryStore(), () => new Date()),
 *   { status: 409, errorCode: "TRIGGER_NOT_CONFIGURED" },
 * );
 * ```
 */
export function sampleEvents(
  flow: Flow,
  store: Store,
  now: () => Date,
): Promise<TriggerEvent[]> {
  const sample = sampleOrRefusal(flow, store, now);
  return sample instanceof HttpError
    ? Promise.reject(sample)
    : Promise.resolve(sample);
}

/**
 * {@linkcode sampleEvents}'s events as soon as they are at hand (a webhook's
 * or a schedule's at once), or its refusal returned rather than thrown.
 */
function sampleOrRefusal(
  flow: Flow,
  store: Store,
  now: () => Date,
): TriggerEvent[] | Promise<TriggerEvent[]> | HttpError {
  const { trigger } = flow;
  if (trigger.type === "EMPTY") {
    return new HttpError(
      409,
      "TRIGGER_NOT_CONFIGURED",
      `Flow ${flow.flowId} has no trigger configured`,
    );
  }
  return triggerEvents(trigger, flow.projectId, store, now);
}

/** Settings of {@linkcode testTrigger}. */
export interface TestTriggerSettings {
  /** Where the flows are, and the calls a `call_ended` trigger samples. */
  store: Store;
  /** The clock, for schedule triggers. */
  now: () => Date;
}

/**
 * The operation that runs the flow's trigger in test mode: 200
 * `{"events": [...]}`, 404 `FLOW_NOT_FOUND`, or 409 `TRIGGER_NOT_CONFIGURED`
 * for an `EMPTY` trigger.
 *
 * @param settings The store and the clock.
 * @returns The operation.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Context } from "../http/context.ts";
 * import type { GrantedContext } from "../http/context.ts";
 * import { testTrigger } from "./test_trigger.ts";
 * import { MemoryStore } from "../store/memory_store.ts";
 *
 * const flowId = "5d1f8a8e-2b7c-4f3e-8f00-6a7d5c4b3a21";
 * const run = testTrigger({ store: new MemoryStore(), now: () => new Date() });
 * const context = new Context(
 *   new Request(`http://x/v1/workflow/${flowId}/trigger/test`, { method: "POST" }),
 * );
 * context.route = {
 *   pattern: "/v1/workflow/{flow_id}/trigger/test",
 *   params: { flow_id: flowId },
 * };
 * context.grant = { projectId: "p", role: "member" };
 * const response = await run(context as GrantedContext);
 * assert.equal(response.status, 404);
 * assert.equal(context.errorCode, "FLOW_NOT_FOUND");
 * ```
 */
export function testTrigger(
  { store, now }: TestTriggerSettings,
): Operation<GrantedContext> {
  // Not async: the store's promise and one callback, without an async
  // function's frame and its await (measured on Bun).
  return (context) => {
    const { params, grant } = context;
    let flowId: string;
    let found: Promise<Flow | undefined>;
    try {
      flowId = parsePathUuid("flow_id", params.flow_id!);
      authorize(grant, "workflows:test");
      found = store.findFlow(grant.projectId, flowId);
    } catch (error) {
      return Promise.reject(error);
    }
    return found.then((flow) => {
      // Refusals are answered, not thrown: no rejection through the pipeline.
      if (flow === undefined) {
        return context.error(
          new HttpError(404, "FLOW_NOT_FOUND", `Flow ${flowId} not found`),
        );
      }
      const sample = sampleOrRefusal(flow, store, now);
      if (sample instanceof HttpError) return context.error(sample);
      // A webhook's or a schedule's events are at hand: nothing to wait for.
      return sample instanceof Promise
        ? sample.then((events) => context.json({ events }))
        : context.json({ events: sample });
    });
  };
}
