/**
 * HTTP for the Fetch API: the per-request context and the endpoint types a
 * route leads to, the pipeline and its generic steps (HEAD, routing, error
 * rendering), the router, request bodies and their limits, watched response
 * bodies and how they end, the hardening headers; and, re-exported from
 * `src/errors/` (a layer below, so that validation can throw it), the one
 * error type.
 *
 * The door of `src/http/`: the rest of the project imports this folder
 * through this module only.
 *
 * @module
 */
export * from "../errors/mod.ts";
export * from "./body_watch.ts";
export * from "./context.ts";
export * from "./hardening_headers.ts";
export * from "./head.ts";
export * from "./pipeline.ts";
export * from "./render_error.ts";
export * from "./request_body.ts";
export * from "./router.ts";
export * from "./routing.ts";
export * from "./runtime_support.ts";
