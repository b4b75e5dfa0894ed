/**
 * The API as one standards-based handler: `(request) => Promise<Response>`.
 *
 * @module
 */
import { authenticate } from "./auth/authenticate.ts";
import { FailedAuthLimiter } from "./auth/failed_auth.ts";
import {
  BODY_TIMEOUT_MS,
  ClientGoneError,
  leavesLargeBody,
  MAX_BODY_BYTES,
  refuseLargeBody,
} from "./http/request_body.ts";
import {
  type AbortCause,
  type FinishedRequest,
  isoTimeNow,
  type RequestFinishedListener,
} from "./telemetry/finished_request.ts";
import { DEFAULT_EXPORT_MIN_BYTES_PER_SECOND } from "./http/body_watch.ts";
import { healthz, readyz } from "./operations/health.ts";
import { PRIVATE_HEADERS, PUBLIC_HEADERS } from "./http/hardening_headers.ts";
import { HttpError } from "./http/http_error.ts";
import { openApiDocumentFor } from "./openapi/document.ts";
import {
  bulkDownload,
  DEFAULT_EXPORT_STALL_TIMEOUT_MS,
} from "./operations/bulk_download.ts";
import { callMessages } from "./operations/call_messages.ts";
import type { Endpoint, RequestContext } from "./operations/endpoint.ts";
import { deleteIntegration } from "./operations/delete_integration.ts";
import {
  DEFAULT_MAX_CONCURRENT_EXPORTS,
  ExportSlots,
} from "./operations/export_slots.ts";
import { testTrigger } from "./operations/test_trigger.ts";
import { RequestValidationError } from "./validation/mod.ts";
import {
  bodyLengthOf,
  json,
  watchedBodyOf,
  withoutBody,
} from "./http/responses.ts";
import { pathnameOf, Router } from "./http/router.ts";
import { assertRuntimeSupport } from "./http/runtime_support.ts";
import { RequestTelemetry } from "./telemetry/request_telemetry.ts";
import type { Store } from "./store/store.ts";
import type { ZipCompression } from "./zip/zip_stream.ts";

/**
 * A Fetch API handler. A runtime's server may pass what it knows of the
 * connection beside the request (Deno's `info`, Bun's `server`,
 * @hono/node-server's `{ incoming }`), for `clientAddress`.
 */
export type Handler = (
  request: Request,
  runtimeArgument?: unknown,
) => Promise<Response>;

/** Where the handler reports failures it answered with a 500. */
export type ErrorLogger = (requestId: string, error: unknown) => void;

/** Where the handler notes what is not a failure of its own, in one line. */
export type InfoLogger = (requestId: string, message: string) => void;

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
   * after the one being sent, so that they compress meanwhile. A runtime's
   * server hands in a compressor that runs off the main thread (the servers
   * of `callflow-api serve` and `./server` do: `node:zlib` on Node and Bun,
   * Web Workers on Deno). Default: the runtime's `CompressionStream("gzip")`,
   * 64 KiB read ahead.
   */
  exportCompression?: ZipCompression;
}

/** An incoming `X-Request-Id` worth echoing: short, plain characters. */
const REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * Creates the API's handler over a store. It uses Web APIs only, so it runs
 * under Deno, Bun, Node, Deno Deploy, a Service Worker or MSW alike.
 *
 * Every response carries `X-Request-Id` (the client's, when it sent a plain
 * one) and `X-Content-Type-Options: nosniff`; those of routes that need a
 * token also `Cache-Control: no-store`. Errors are ErrorResponseSchema bodies, request validation errors
 * HTTPValidationError bodies; anything unexpected becomes a generic 500 whose
 * detail goes to `logError` only.
 *
 * @param options The store, and optionally a clock and an error logger.
 * @returns The handler.
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
  /**
   * Answers a request: routes it, authenticates it when its route needs a
   * token, runs the operation, renders what it throws. `facts`, when given,
   * collects what the access log and the telemetry need.
   */
  const answer = async (
    request: Request,
    runtimeArgument: unknown,
    pathname: string,
    requestId: string,
    facts?: RequestFacts,
  ): Promise<Response> => {
    // Built into each response rather than set on it afterwards.
    let headers: Record<string, string> = responseHeaders === undefined
      ? { ...PUBLIC_HEADERS, "x-request-id": requestId }
      : {
        ...PUBLIC_HEADERS,
        ...responseHeaders(request),
        "x-request-id": requestId,
      };
    try {
      const { target, pattern, params } = router.match(
        request.method,
        pathname,
      );
      if (facts !== undefined) facts.route = pattern;
      // What a token gives access to, refusals included, is never stored.
      if (target.authenticated) headers = { ...PRIVATE_HEADERS, ...headers };
      await refuseLargeBody(request, target.bodyLimit ?? 0, bodyTimeoutMs);
      if (!target.authenticated) {
        return await target.operation({ request, params, requestId, headers });
      }
      const address = clientAddress?.(request, runtimeArgument);
      // A limited address costs no store query.
      if (address !== undefined) failedAuth.check(address);
      const grant = await authenticate(
        request,
        store,
        address === undefined ? undefined : () => failedAuth.fail(address),
      );
      if (facts !== undefined) facts.projectId = grant.projectId;
      return await target.operation({
        request,
        params,
        requestId,
        headers,
        grant,
      });
    } catch (error) {
      if (error instanceof ClientGoneError) {
        logInfo(requestId, `client went away: ${error.detail}`);
      }
      if (facts !== undefined) facts.errorCode = errorCodeOf(error);
      // Another method on a path that needs a token: a refusal of that
      // path, never stored either.
      if (
        error instanceof HttpError && error.status === 405 &&
        router.targetsAt(pathname).some((target) => target.authenticated)
      ) {
        headers = { ...PRIVATE_HEADERS, ...headers };
      }
      // A large body left unread (a 413 or a 401 before it, a 404): the
      // connection closes after the answer rather than the server reading
      // the rest.
      if (leavesLargeBody(request)) {
        headers = { ...headers, connection: "close" };
      }
      return errorResponse(error, requestId, headers, logError);
    }
  };
  /** {@linkcode answer}, without the body for a `HEAD` request. */
  const handle = (
    request: Request,
    runtimeArgument: unknown,
    pathname: string,
    requestId: string,
    facts?: RequestFacts,
  ): Promise<Response> =>
    request.method === "HEAD"
      ? answer(request, runtimeArgument, pathname, requestId, facts).then(
        withoutBody,
      )
      : answer(request, runtimeArgument, pathname, requestId, facts);
  const telemetry = options.telemetry
    ? new RequestTelemetry(exportSlots)
    : undefined;
  if (onRequestFinished === undefined && telemetry === undefined) {
    return (request, runtimeArgument) =>
      handle(
        request,
        runtimeArgument,
        pathnameOf(request.url),
        requestIdOf(request),
      );
  }
  return async (request, runtimeArgument) => {
    const started = performance.now();
    const time = isoTimeNow();
    const pathname = pathnameOf(request.url);
    const requestId = requestIdOf(request);
    const facts: RequestFacts = {};
    const traced = telemetry?.start(request);
    const response =
      await (traced === undefined
        ? handle(request, runtimeArgument, pathname, requestId, facts)
        : traced.run(() =>
          handle(request, runtimeArgument, pathname, requestId, facts)
        ));
    const finish = (bytes: number, aborted: AbortCause | undefined) => {
      traced?.end({
        route: facts.route,
        status: response.status,
        bytes,
        aborted,
        errorCode: facts.errorCode,
      });
      if (onRequestFinished === undefined) return;
      const finished: FinishedRequest = {
        time,
        requestId,
        method: request.method,
        path: pathname,
        status: response.status,
        durationMs: Math.round((performance.now() - started) * 1000) / 1000,
        bytes,
      };
      if (facts.projectId !== undefined) finished.projectId = facts.projectId;
      if (facts.errorCode !== undefined) finished.errorCode = facts.errorCode;
      if (aborted !== undefined) finished.aborted = aborted;
      if (traced?.traceId !== undefined) finished.traceId = traced.traceId;
      onRequestFinished(finished);
    };
    // Every answer is built by responses.ts: a whole body knows its length
    // (it is over as far as the handler can tell), a streamed one is marked
    // with the watch that tells when it is over.
    const body = watchedBodyOf(response);
    if (body === undefined) finish(bodyLengthOf(response) ?? 0, undefined);
    else body.onEnd(finish);
    return response;
  };
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

/** What the access log and the telemetry learn while a request is handled. */
interface RequestFacts {
  route?: string;
  projectId?: string;
  errorCode?: string;
}

/** The request id to use: the client's when plain, a fresh UUID otherwise. */
function requestIdOf(request: Request): string {
  const incomingId = request.headers.get("x-request-id");
  return incomingId !== null && REQUEST_ID.test(incomingId)
    ? incomingId
    : crypto.randomUUID();
}

/** The `error_code` of what was thrown; `VALIDATION_ERROR` for a 422, which has none. */
function errorCodeOf(error: unknown): string {
  if (error instanceof HttpError) return error.errorCode;
  if (error instanceof RequestValidationError) return "VALIDATION_ERROR";
  return "INTERNAL_SERVER_ERROR";
}

/** The document, naming the origin it was asked at as its server. */
function serveOpenApi(
  { request, headers }: RequestContext,
): Promise<Response> {
  const { origin } = new URL(request.url);
  return Promise.resolve(json(openApiDocumentFor(origin), 200, headers));
}

function errorResponse(
  error: unknown,
  requestId: string,
  headers: Record<string, string>,
  logError: ErrorLogger,
): Response {
  if (error instanceof HttpError || error instanceof RequestValidationError) {
    return error.toResponse(headers);
  }
  logError(requestId, error);
  return new HttpError(
    500,
    "INTERNAL_SERVER_ERROR",
    `An unexpected error occurred (request id ${requestId})`,
  ).toResponse(headers);
}

function logToConsole(requestId: string, error: unknown): void {
  console.error(`[request ${requestId}] unexpected error:`, error);
}

function infoToConsole(requestId: string, message: string): void {
  console.info(`[request ${requestId}] ${message}`);
}
