/**
 * What the API reports about itself: finished requests, the access log's
 * lines, OpenTelemetry spans and metrics, and the pipeline step that
 * observes each request.
 *
 * The door of `src/telemetry/`: the rest of the project imports this folder
 * through this module only. `@opentelemetry/api` is loaded only when
 * telemetry is on (`loadRequestTelemetry`): it is 48 modules to load.
 *
 * @module
 */
export * from "./access_log.ts";
export * from "./finished_request.ts";
export * from "./observe.ts";
export * from "./load_request_telemetry.ts";
export type * from "./request_telemetry.ts";
