/**
 * The API as one standards-based handler: `(request) => Promise<Response>`.
 *
 * @module
 */
import { HttpError } from "./http_error.ts";
import { openApiDocument } from "./openapi.ts";
import { bulkDownload } from "./operations/bulk_download.ts";
import { callMessages } from "./operations/call_messages.ts";
import {
  json,
  type Operation,
  type OperationContext,
} from "./operations/context.ts";
import { deleteIntegration } from "./operations/delete_integration.ts";
import { triggerTest } from "./operations/trigger_test.ts";
import { RequestValidationError } from "./request_validation_error.ts";
import { pathnameOf, Router } from "./router.ts";
import type { Store } from "./store.ts";

/** A Fetch API handler. */
export type Handler = (request: Request) => Promise<Response>;

/** Where the handler reports failures it answered with a 500. */
export type ErrorLogger = (requestId: string, error: unknown) => void;

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
}

const router = new Router<Operation>([
  { method: "GET", pattern: "/openapi.json", target: serveOpenApi },
  { method: "POST", pattern: "/v1/call/message/bulk", target: bulkDownload },
  {
    method: "GET",
    pattern: "/v1/call/{call_id}/message",
    target: callMessages,
  },
  {
    method: "DELETE",
    pattern: "/v1/integration/{integration_id}",
    target: deleteIntegration,
  },
  {
    method: "POST",
    pattern: "/v1/workflow/{flow_id}/trigger/test",
    target: triggerTest,
  },
]);

/** An incoming `X-Request-Id` worth echoing: short, plain characters. */
const REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * Creates the API's handler over a store. It uses Web APIs only, so it runs
 * under Deno, Bun, Node, Deno Deploy, a Service Worker or MSW alike.
 *
 * Every response carries `X-Request-Id` (the client's, when it sent a plain
 * one). Errors are ErrorResponseSchema bodies, request validation errors
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
  const { store, now = () => new Date(), logError = logToConsole } = options;
  return async (request) => {
    const incomingId = request.headers.get("x-request-id");
    const requestId = incomingId !== null && REQUEST_ID.test(incomingId)
      ? incomingId
      : crypto.randomUUID();
    const reportError = (error: unknown) => logError(requestId, error);
    // Built into each response rather than set on it afterwards.
    const headers = { "x-request-id": requestId };
    try {
      const { target, params } = router.match(
        request.method,
        pathnameOf(request.url),
      );
      return await target({
        request,
        params,
        store,
        now,
        reportError,
        headers,
      });
    } catch (error) {
      return errorResponse(error, requestId, headers, reportError);
    }
  };
}

function serveOpenApi({ headers }: OperationContext): Promise<Response> {
  return Promise.resolve(json(openApiDocument, 200, headers));
}

function errorResponse(
  error: unknown,
  requestId: string,
  headers: Record<string, string>,
  reportError: (error: unknown) => void,
): Response {
  if (error instanceof HttpError || error instanceof RequestValidationError) {
    return error.toResponse(headers);
  }
  reportError(error);
  return new HttpError(
    500,
    "INTERNAL_SERVER_ERROR",
    `An unexpected error occurred (request id ${requestId})`,
  ).toResponse(headers);
}

function logToConsole(requestId: string, error: unknown): void {
  console.error(`[request ${requestId}] unexpected error:`, error);
}
