/**
 * The API as one standards-based handler: `(request) => Promise<Response>`.
 *
 * @module
 */
import { authenticateRequests } from "./auth/mod.ts";
import { FailedAuthLimiter } from "./auth/mod.ts";
import { DEFAULT_EXPORT_MIN_BYTES_PER_SECOND } from "./http/mod.ts";
import { Context } from "./http/mod.ts";
import { answerHead } from "./http/mod.ts";
import { compose, type Middleware, passThrough } from "./http/mod.ts";
import {
  type ErrorLogger,
  errorRenderer,
  type InfoLogger,
} from "./http/mod.ts";
import { BODY_TIMEOUT_MS, MAX_BODY_BYTES } from "./http/mod.ts";
import { Router } from "./http/mod.ts";
import { routeRequests } from "./http/mod.ts";
import { assertRuntimeSupport } from "./http/mod.ts";
import {
  bulkDownload,
  DEFAULT_EXPORT_STALL_TIMEOUT_MS,
} from "./operations/mod.ts";
import { callMessages } from "./operations/mod.ts";
import { deleteIntegration } from "./operations/mod.ts";
import type { Endpoint, GrantedContext } from "./http/mod.ts";
import {
  DEFAULT_MAX_CONCURRENT_EXPORTS,
  ExportSlots,
} from "./operations/mod.ts";
import { healthz, readyz } from "./operations/mod.ts";
import { testTrigger } from "./operations/mod.ts";
import type { Store } from "./store/mod.ts";
import type { RequestFinishedListener } from "./telemetry/mod.ts";
import { observeRequests } from "./telemetry/mod.ts";
import { loadRequestTelemetry } from "./telemetry/mod.ts";
import type { ZipCompression } from "./zip/mod.ts";

export type { ErrorLogger, InfoLogger } from "./http/mod.ts";

/**
 * A Fetch API handler. A runtime's server may pass what it knows of the
 * connection beside the request (Deno's `info`, Bun's `server`,
 * @hono/node-server's `{ incoming, outgoing }`), for `clientAddress` and
 * the servers' own steps (`context.runtimeArgument`).
 */
export type Handler = (
  request: Request,
  runtimeArgument?: unknown,
) => Promise<Response>;

/** Options of {@linkcode createHandler}. */
export interface HandlerOptions {
  /** Where the data lives. */
  store: Store;
  /** The clock, for schedule triggers and ZIP timestamps. Default: now. */
  now?: () => Date;
  /**
   * Where unexpected failures go, with the request id echoed to the client.
   * Default: one line on `console.error`.
   */
  logError?: ErrorLogger;
  /**
   * Called once per request when its response is over (for a JSON answer:
   * once it is built, its length known; for a streamed export: when the last
   * byte was handed over, or the client went away), with what an access log
   * needs. Never holds a token, a body or a query string. Default: none.
   */
  onRequestFinished?: RequestFinishedListener;
  /**
   * How long `GET /readyz` waits for the store's `ping()` before answering
   * 503, in milliseconds. Default 2000.
   */
  readinessTimeout?: number;
  /**
   * Where a client that went away mid-request (or missed the body deadline)
   * is noted: one line, no stack. Default: `console.info`.
   */
  logInfo?: InfoLogger;
  /**
   * How long a request body may take to arrive once the handler reads it;
   * beyond it the answer is 408 `REQUEST_TIMEOUT`. Default 30 s
   * (`BODY_TIMEOUT_MS`).
   */
  bodyTimeoutMs?: number;
  /**
   * How many bulk exports may stream at once; the next one is answered 503
   * `TOO_MANY_EXPORTS` with `Retry-After: 1`. An integer from 1; default 16.
   */
  maxConcurrentExports?: number;
  /**
   * How many of them one project may stream at once when it exports alone
   * (its share); its next one is answered 503 `TOO_MANY_EXPORTS` while
   * other projects still export. With other projects exporting the share
   * shrinks: the slots divided by one more than the projects exporting (see
   * `ExportSlots.shareOf`), so that no two projects can hold every slot. An
   * integer from 1; default half of `maxConcurrentExports`, at least 1.
   */
  maxExportsPerProject?: number;
  /**
   * The export slots to count in, shared with other handlers (e.g. the
   * per-request handlers of one Worker isolate); when set,
   * `maxConcurrentExports` and `maxExportsPerProject` are its own.
   */
  exportSlots?: ExportSlots;
  /**
   * How long an export's client may read nothing before the transfer is
   * cut and its slot freed, in ms. Default 60 s.
   */
  exportStallTimeoutMs?: number;
  /**
   * The slowest an export's client may read, in bytes a second, averaged
   * over each `exportStallTimeoutMs` of its own reading time: a client that
   * trickles below it is cut as a stalled one is, and its slot freed.
   * Default 4096 (`DEFAULT_EXPORT_MIN_BYTES_PER_SECOND`); 0 for any rate.
   */
  exportMinBytesPerSecond?: number;
  /**
   * The address of a request's client, from the request and what the
   * runtime's server passed beside it, for bounding failed authentication
   * (the servers of `./server` and `callflow-api serve` read the socket's,
   * or `X-Forwarded-For` when `TRUST_PROXY` says so; the Worker
   * `CF-Connecting-IP`). Default: none, and failed authentication is not
   * bounded: bound it at the gateway.
   */
  clientAddress?: (request: Request, runtimeArgument?: unknown) =>
    | string
    | undefined;
  /**
   * Counts each client address's unknown tokens: past its limit in its
   * window (default 20 a minute), the address's requests to routes that
   * need a token are answered 429 `TOO_MANY_FAILED_AUTHENTICATIONS` with
   * `Retry-After`, without asking the store. Share one between handlers
   * the way `exportSlots` is. Default: a limiter of its own, with the
   * defaults; it counts only when `clientAddress` names an address.
   */
  failedAuthLimiter?: FailedAuthLimiter;
  /**
   * Aborted when the server begins to shut down: from then on `GET /readyz`
   * answers 503 `SERVICE_UNAVAILABLE`, so that load balancers stop sending
   * new connections, while every other request is still served.
   */
  shutdownSignal?: AbortSignal;
  /**
   * Headers to send with every answer the handler builds, from the request
   * (e.g. CORS headers from its `Origin`); `X-Request-Id` wins over one of
   * the same name. They are built into each response rather than set on it
   * afterwards, which on @hono/node-server would take the response off its
   * fast path. Default: none.
   */
  responseHeaders?: (request: Request) => Readonly<Record<string, string>>;
  /**
   * Steps of a layer built on the API (the mock's guard, CORS, control API,
   * journal and faults; a server's drain, runtime and reference-page
   * steps), run in this order after the access log and before
   * `HEAD`, routing and authentication; each may answer itself or call `next()` (see
   * `Middleware`). What they throw is rendered as the API's own errors are.
   * Default: none.
   */
  // deno-lint-ignore no-explicit-any
  middleware?: readonly Middleware<any>[];
  /**
   * Report each request to OpenTelemetry through `@opentelemetry/api`: a
   * server span (continuing an incoming `traceparent`, ended with the body's
   * last byte) under which the store's spans nest, the
   * `http.server.request.duration` histogram and the export metrics; the
   * trace id goes to `onRequestFinished`. Register an SDK for them to go
   * anywhere. Default `false`: the handler then touches no OpenTelemetry API.
   */
  telemetry?: boolean;
  /**
   * How the bulk export deflates its entries: `gzip` makes each entry's gzip
   * compressor (a `ReadableWritablePair` such as
   * `new CompressionStream("gzip")`, whose deflate stream and CRC-32 the ZIP
   * takes), `readAheadBytes` how much text the writer may add to the entries
   * after the one being sent, so that they compress meanwhile, `utf8Write`
   * an encoder that allocates nothing. A runtime's server hands in a
   * compressor that runs off the main thread (the servers of
   * `callflow-api serve` and `./server` do: `node:zlib` and
   * `Buffer#utf8Write` on Node and Bun, Web Workers on Deno). Default: the
   * runtime's `CompressionStream("gzip")`, 64 KiB read ahead.
   */
  exportCompression?: ZipCompression;
}

/**
 * Creates the API's handler over a store. It uses Web APIs only, so it runs
 * under Deno, Bun, Node, Deno Deploy, a Service Worker or MSW alike.
 *
 * The handler runs each request through one list of steps (see
 * docs/architecture.md): observing it for the access log and telemetry (when
 * asked for), `options.middleware`, `HEAD`, routing, authentication, then the
 * route's operation, on one {@linkcode Context} per request.
 *
 * Every response carries `X-Request-Id` (the client's, when it sent a plain
 * one) and `X-Content-Type-Options: nosniff`; those of routes that need a
 * token also `Cache-Control: no-store`. Errors are ErrorResponseSchema
 * bodies, request validation errors HTTPValidationError bodies; anything
 * unexpected becomes a generic 500 whose detail goes to `logError` only.
 *
 * @param options The store, and optionally a clock and an error logger.
 * @returns The handler.
 *
 * @example A step of your own, run before routing
 * ```ts
 * import assert from "node:assert/strict";
 * import { createHandler, MemoryStore, type Middleware } from "../mod.ts";
 *
 * const poweredBy: Middleware = async (context, next) => {
 *   context.headers = { ...context.headers, "x-powered-by": "callflow" };
 *   return await next();
 * };
 * const handler = createHandler({
 *   store: new MemoryStore(),
 *   middleware: [poweredBy],
 * });
 * const response = await handler(new Request("http://api.test/healthz"));
 * assert.equal(response.headers.get("x-powered-by"), "callflow");
 * assert.deepEqual(await response.json(), { status: "ok" });
 * ```
 *
 * @example Serving from memory under Deno
 * ```ts ignore
 * import { createHandler, MemoryStore } from "@callflow/api";
 *
 * const store = new MemoryStore();
 * await store.seed(JSON.parse(await Deno.readTextFile("fixtures.json")));
 * Deno.serve({ port: 8787 }, createHandler({ store }));
 * ```
 */
export function createHandler(options: HandlerOptions): Handler {
  assertRuntimeSupport();
  const {
    store,
    now = () => new Date(),
    logError = logToConsole,
    logInfo = infoToConsole,
    onRequestFinished,
    responseHeaders,
    clientAddress,
    failedAuthLimiter: failedAuth = new FailedAuthLimiter(),
  } = options;
  const exportSlots = options.exportSlots ?? new ExportSlots(
    options.maxConcurrentExports ?? DEFAULT_MAX_CONCURRENT_EXPORTS,
    options.maxExportsPerProject,
  );
  const bodyTimeoutMs = options.bodyTimeoutMs ?? BODY_TIMEOUT_MS;
  const router = endpoints({
    store,
    now,
    logError,
    bodyTimeoutMs,
    exportSlots,
    stallTimeoutMs: options.exportStallTimeoutMs ??
      DEFAULT_EXPORT_STALL_TIMEOUT_MS,
    minBytesPerSecond: options.exportMinBytesPerSecond ??
      DEFAULT_EXPORT_MIN_BYTES_PER_SECOND,
    readinessTimeout: options.readinessTimeout ?? 2000,
    shutdownSignal: options.shutdownSignal,
    compression: options.exportCompression,
  });
  const telemetry = options.telemetry
    ? loadRequestTelemetry(exportSlots)
    : undefined;
  const before: Middleware[] = [
    ...(onRequestFinished === undefined && telemetry === undefined
      ? []
      : [observeRequests({ onRequestFinished, telemetry })]),
    ...(responseHeaders === undefined
      ? []
      : [withResponseHeaders(responseHeaders)]),
    ...(options.middleware ?? []),
  ];
  const after: Middleware[] = [
    routeRequests(router, bodyTimeoutMs),
    authenticateRequests({ store, failedAuth, clientAddress }),
    runOperation,
  ];
  const render = errorRenderer({ logError, logInfo });
  // A `HEAD` runs the same steps with `answerHead` before routing; every
  // other request goes without it: a step, a closure and a promise less.
  const run = compose([...before, ...after], render);
  const runHead = compose([...before, answerHead, ...after], render);
  return (request, runtimeArgument) =>
    (request.method === "HEAD" ? runHead : run)(
      new Context(request, runtimeArgument),
    );
}

/** The last step: the matched route's operation. */
const runOperation: Middleware = (context) => {
  const endpoint = context.endpoint!;
  return endpoint.authenticated
    ? endpoint.operation(context as GrantedContext)
    : endpoint.operation(context);
};

/** Adds the headers of `HandlerOptions.responseHeaders` to every answer. */
function withResponseHeaders(
  responseHeaders: (request: Request) => Readonly<Record<string, string>>,
): Middleware {
  return passThrough((context, next) => {
    context.headers = {
      ...context.headers,
      ...responseHeaders(context.request),
      "x-request-id": context.requestId,
    };
    return next();
  });
}

/** The settings the handler's operations are built with, once. */
interface EndpointSettings {
  store: Store;
  now: () => Date;
  logError: ErrorLogger;
  bodyTimeoutMs: number;
  exportSlots: ExportSlots;
  stallTimeoutMs: number;
  minBytesPerSecond: number;
  readinessTimeout: number;
  shutdownSignal: AbortSignal | undefined;
  compression: ZipCompression | undefined;
}

/** The API's routes, their operations built with the handler's settings. */
function endpoints(settings: EndpointSettings): Router<Endpoint> {
  const { store } = settings;
  return new Router<Endpoint>([
    {
      method: "GET",
      pattern: "/openapi.json",
      target: { authenticated: false, operation: serveOpenApi },
    },
    {
      method: "GET",
      pattern: "/healthz",
      target: { authenticated: false, operation: healthz },
    },
    {
      method: "GET",
      pattern: "/readyz",
      target: { authenticated: false, operation: readyz(settings) },
    },
    {
      method: "POST",
      pattern: "/v1/call/message/bulk",
      target: {
        authenticated: true,
        operation: bulkDownload(settings),
        bodyLimit: MAX_BODY_BYTES,
      },
    },
    {
      method: "GET",
      pattern: "/v1/call/{call_id}/message",
      target: { authenticated: true, operation: callMessages(store) },
    },
    {
      method: "DELETE",
      pattern: "/v1/integration/{integration_id}",
      target: { authenticated: true, operation: deleteIntegration(store) },
    },
    {
      method: "POST",
      pattern: "/v1/workflow/{flow_id}/trigger/test",
      target: { authenticated: true, operation: testTrigger(settings) },
    },
  ]);
}

/**
 * The document, naming the origin it was asked at as its server. Loaded at
 * the first ask, not at start: building it is about 8 ms of CPU on Node, a
 * tenth of a server's start beyond the bare runtime's.
 */
async function serveOpenApi(context: Context): Promise<Response> {
  const { origin } = new URL(context.request.url);
  const { openApiDocumentFor } = await import("./openapi/mod.ts");
  return context.json(openApiDocumentFor(origin));
}

function logToConsole(requestId: string, error: unknown): void {
  console.error(`[request ${requestId}] unexpected error:`, error);
}

function infoToConsole(requestId: string, message: string): void {
  console.info(`[request ${requestId}] ${message}`);
}
