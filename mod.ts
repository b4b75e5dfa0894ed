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
export {
  type BuiltAnswer,
  Context,
  type MatchedRoute,
} from "./src/http/mod.ts";
export {
  compose,
  type ErrorRenderer,
  type Middleware,
  type Next,
} from "./src/http/mod.ts";
export {
  createHandler,
  type ErrorLogger,
  type Handler,
  type HandlerOptions,
  type InfoLogger,
} from "./src/handler.ts";
export { type ExportRefusal, ExportSlots } from "./src/operations/mod.ts";
export {
  type BodyEndListener,
  DEFAULT_EXPORT_MIN_BYTES_PER_SECOND,
  ExportStalledError,
  WatchedBody,
} from "./src/http/mod.ts";
export type { Endpoint, GrantedContext, Operation } from "./src/http/mod.ts";
export {
  DEFAULT_AUTH_FAILURE_LIMIT,
  DEFAULT_AUTH_FAILURE_WINDOW_MS,
  FailedAuthLimiter,
  type FailedAuthOptions,
} from "./src/auth/mod.ts";
export type {
  Deflater,
  DeflaterFactory,
  GzipCompressor,
  GzipPair,
  Utf8Writer,
  ZipCompression,
} from "./src/zip/mod.ts";
export type { AbortCause } from "./src/http/mod.ts";
export type {
  FinishedRequest,
  RequestFinishedListener,
} from "./src/telemetry/mod.ts";
export {
  type AccessLogOptions,
  createAccessLog,
  LOG_LEVELS,
  type LogFormat,
  type LogLevel,
} from "./src/telemetry/mod.ts";
export { type IntegrationTools, MemoryStore } from "./src/store/mod.ts";
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
} from "./src/store/mod.ts";
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
} from "./src/store/mod.ts";
export { demoFixtures } from "./src/store/mod.ts";
export {
  type ErrorResponseBody,
  HttpError,
  type HttpErrorOptions,
} from "./src/errors/mod.ts";
export {
  type HttpValidationErrorBody,
  RequestValidationError,
  type ValidationIssue,
} from "./src/validation/mod.ts";
export { hashToken } from "./src/store/mod.ts";
export { type OpenApiDocument, openApiDocument } from "./src/openapi/mod.ts";
