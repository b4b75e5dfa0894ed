/**
 * What the API reports about itself: finished requests, the access log's
 * lines, OpenTelemetry spans and metrics, and the pipeline step that
 * observes each request.
 *
 * The door of `src/telemetry/`: the rest of the project imports this folder
 * through this module only.
 *
 * @module
 */
export * from "./access_log.ts";
export * from "./finished_request.ts";
export * from "./observe.ts";
export * from "./request_telemetry.ts";
