/**
 * A workflow trigger run in test mode: the sample events it would produce,
 * read from the store without side effects.
 *
 * @module
 */
import { nextFireTimes } from "../store/mod.ts";
import type { Store, Trigger } from "../store/mod.ts";

/** A sample event: any JSON object. */
export type TriggerEvent = Record<string, unknown>;

/** How many events a `call_ended` or `schedule` trigger test returns. */
export const SAMPLE_EVENT_COUNT = 3;

/** The call id of the example event given when a project has no calls. */
export const EXAMPLE_CALL_ID = "00000000-0000-0000-0000-000000000000";

/** A trigger that starts its workflow: any kind but `EMPTY`. */
export type ConfiguredTrigger = Exclude<Trigger, { type: "EMPTY" }>;

/**
 * The sample events of a trigger (an `EMPTY` one has none: the operation
 * answers it with 409 `TRIGGER_NOT_CONFIGURED`).
 *
 * - `webhook`: its `sample_payload`, as the one event.
 * - `call_ended`: the project's latest calls, newest first, at most 3, as
 *   `call.ended` events; one example event (`"example": true`) when there
 *   are none.
 * - `schedule`: the next 3 fire times after `now()` as `schedule.fired`
 *   events.
 *
 * A `webhook` or `schedule` trigger's events are returned as they are, a
 * `call_ended` one's as a promise (only it reads the store), and the clock is
 * read only by the triggers that need the time: the common webhook test pays
 * for neither a promise nor a `Date`.
 *
 * @param trigger The trigger to run.
 * @param projectId The flow's project, where `call_ended` finds calls.
 * @param store Where `call_ended` finds calls.
 * @param now The clock.
 * @returns The events, for `{"events": [...]}`, or a promise of them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { triggerEvents } from "./trigger_events.ts";
 * import { MemoryStore } from "../store/memory_store.ts";
 *
 * const events = await triggerEvents(
 *   { type: "schedule", cron: "0 2 * * *", timezone: "UTC" },
 *   "0b6f1c2e-8d3a-4c55-9a57-3e3c2d1f0a11",
 *   new MemoryStore(),
 *   () => new Date("2026-01-01T12:00:00Z"),
 * );
 * assert.deepEqual(events[0], {
 *   event: "schedule.fired",
 *   scheduled_for: "2026-01-02T02:00:00.000Z",
 * });
 * ```
 */
export function triggerEvents(
  trigger: ConfiguredTrigger,
  projectId: string,
  store: Store,
  now: () => Date,
): TriggerEvent[] | Promise<TriggerEvent[]> {
  switch (trigger.type) {
    case "webhook":
      return [trigger.sample_payload];
    case "call_ended":
      return store.recentCalls(projectId, SAMPLE_EVENT_COUNT).then((calls) =>
        calls.length === 0
          ? [{
            event: "call.ended",
            call_id: EXAMPLE_CALL_ID,
            created_at: now().toISOString(),
            message_count: 0,
            example: true,
          }]
          : calls.map((call) => ({
            event: "call.ended",
            call_id: call.callId,
            created_at: call.createdAt,
            message_count: call.messageCount,
          }))
      );
    case "schedule":
      return nextFireTimes(
        trigger.cron,
        trigger.timezone,
        SAMPLE_EVENT_COUNT,
        now(),
      ).map((time) => ({
        event: "schedule.fired",
        scheduled_for: time.toISOString(),
      }));
  }
}
