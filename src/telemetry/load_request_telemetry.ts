/**
 * Loading the handler's OpenTelemetry instrumentation only when it is on:
 * `@opentelemetry/api` is 48 modules, which a server without telemetry
 * need not load at start.
 *
 * @module
 */
import type { ExportSlots } from "../operations/mod.ts";
import type { RequestTelemetry } from "./request_telemetry.ts";

/**
 * Imports `request_telemetry.ts` (and `@opentelemetry/api`) and creates the
 * instruments of one handler.
 *
 * @param exportSlots The handler's export slots, whose exports in flight it
 * observes.
 * @returns The instrumentation.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ExportSlots } from "../operations/export_slots.ts";
 * import { loadRequestTelemetry } from "./load_request_telemetry.ts";
 *
 * const telemetry = await loadRequestTelemetry(new ExportSlots());
 * const traced = telemetry.start(new Request("http://x/healthz"));
 * assert.equal(traced.run(() => 42), 42);
 * ```
 */
export async function loadRequestTelemetry(
  exportSlots: ExportSlots,
): Promise<RequestTelemetry> {
  const { RequestTelemetry } = await import("./request_telemetry.ts");
  return new RequestTelemetry(exportSlots);
}
