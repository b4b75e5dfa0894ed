/**
 * The Call, Integration and Workflow API as one standards-based handler,
 * `(request: Request) => Promise<Response>`, over a pluggable store.
 *
 * @example Serving the demo data with Deno
 * ```ts ignore
 * import { createHandler, demoFixtures, MemoryStore } from "@callflow/api";
 *
 * const store = new MemoryStore();
 * await store.seed(demoFixtures);
 * Deno.serve({ port: 8787 }, createHandler({ store }));
 * ```
 *
 * @module
 */
export { Context, type MatchedRoute } from "./src/http/context.ts";
export {
  compose,
  type ErrorRenderer,
  type Middleware,
  type Next,
} from "./src/http/pipeline.ts";
export {
  createHandler,
  type ErrorLogger,
  type Handler,
  type HandlerOptions,
  type InfoLogger,
} from "./src/handler.ts";
export {
  type ExportRefusal,
  ExportSlots,
} from "./src/operations/export_slots.ts";
export {
  type BodyEndListener,
  DEFAULT_EXPORT_MIN_BYTES_PER_SECOND,
  ExportStalledError,
  WatchedBody,
} from "./src/http/body_watch.ts";
export type {
  Endpoint,
  GrantedContext,
  Operation,
} from "./src/operations/endpoint.ts";
export {
  DEFAULT_AUTH_FAILURE_LIMIT,
  DEFAULT_AUTH_FAILURE_WINDOW_MS,
  FailedAuthLimiter,
  type FailedAuthOptions,
} from "./src/auth/failed_auth.ts";
export type {
  GzipCompressor,
  GzipPair,
  ZipCompression,
} from "./src/zip/zip_stream.ts";
export {
  type AbortCause,
  type FinishedRequest,
  type RequestFinishedListener,
} from "./src/telemetry/finished_request.ts";
export {
  type AccessLogOptions,
  createAccessLog,
  LOG_LEVELS,
  type LogFormat,
  type LogLevel,
} from "./src/telemetry/access_log.ts";
export {
  type IntegrationTools,
  MemoryStore,
} from "./src/store/memory_store.ts";
export {
  type CallSummary,
  type Flow,
  type Grant,
  type Role,
  ROLES,
  type Store,
  type StoreDegraded,
  type TranscriptChunk,
  type Trigger,
} from "./src/store/store.ts";
export {
  type CallFixture,
  type Fixtures,
  FixturesError,
  type FixturesInput,
  type FlowFixture,
  type HttpIntegrationFixture,
  type IntegrationFixture,
  type McpIntegrationFixture,
  parseFixtures,
  type ParseFixturesOptions,
  type ProjectFixture,
  type SeedOptions,
  type TokenFixture,
  type ToolFixture,
} from "./src/store/fixtures.ts";
export { demoFixtures } from "./src/store/demo_fixtures.ts";
export {
  type ErrorResponseBody,
  HttpError,
  type HttpErrorOptions,
} from "./src/http/http_error.ts";
export {
  type HttpValidationErrorBody,
  RequestValidationError,
  type ValidationIssue,
} from "./src/validation/mod.ts";
export { hashToken } from "./src/auth/sha256.ts";
export {
  type OpenApiDocument,
  openApiDocument,
} from "./src/openapi/document.ts";
