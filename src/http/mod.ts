/**
 * HTTP for the Fetch API: the per-request context, the pipeline and its
 * generic steps (HEAD, routing, error rendering), the router, request bodies
 * and their limits, watched response bodies, the one error type, the
 * hardening headers.
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
