/**
 * What the mock does around the real handler: records each request in the
 * journal, and answers `Prefer: code=` and the fault rules in force.
 *
 * @module
 */
import type { Handler } from "../src/handler.ts";
import { errorAnswer } from "./answer_errors.ts";
import { HttpError } from "../src/http/http_error.ts";
import { pathnameOf } from "../src/http/router.ts";
import {
  cutResponse,
  defaultErrorCode,
  type Fault,
  type FaultSet,
} from "./faults.ts";
import type { RequestJournal } from "./journal.ts";
import { findOperation } from "./operations.ts";
import { preferredCode, preferredError } from "./prefer.ts";

/**
 * Wraps the API handler with the journal, `Prefer: code=` and fault
 * injection. A dropped connection is answered `Response.error()`, which MSW
 * turns into a failed `fetch` and the standalone server into a closed socket.
 *
 * @param handler The real API handler.
 * @param journal Where requests are recorded.
 * @param faults The fault rules in force.
 * @param responseHeaders Headers for the answers it makes itself (an
 * injected or preferred error), as the handler's `responseHeaders` option.
 * @returns The wrapped handler.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FaultSet } from "./faults.ts";
 * import { instrument } from "./instrument.ts";
 * import { RequestJournal } from "./journal.ts";
 *
 * const journal = new RequestJournal();
 * const faults = new FaultSet();
 * faults.add({ operation: "testTrigger", status: 503, times: 1 });
 * const handler = instrument(() => Promise.resolve(new Response("ok")), journal, faults);
 * const url = "http://mock/v1/workflow/7/trigger/test";
 * assert.equal((await handler(new Request(url, { method: "POST" }))).status, 503);
 * assert.equal((await handler(new Request(url, { method: "POST" }))).status, 200);
 * assert.deepEqual(journal.entries().map((entry) => entry.status), [503, 200]);
 * ```
 */
export function instrument(
  handler: Handler,
  journal: RequestJournal,
  faults: FaultSet,
  responseHeaders?: (request: Request) => Readonly<Record<string, string>>,
): Handler {
  return async (request) => {
    const startedAt = performance.now();
    const pathname = pathnameOf(request.url);
    const operation = findOperation(request.method, pathname);
    const entry = await journal.start(request);
    let fault: string | undefined;
    let response: Response;
    try {
      const code = operation === undefined
        ? undefined
        : preferredCode(request.headers.get("prefer"));
      const preferred = code === undefined
        ? undefined
        : preferredError(operation!, code);
      if (preferred !== undefined) {
        fault = "prefer";
        throw preferred;
      }
      const rule = faults.take(
        request.method,
        pathname,
        operation?.operationId,
      );
      fault = rule?.id;
      response = await apply(rule, handler, request);
    } catch (error) {
      response = errorAnswer(error, responseHeaders?.(request));
    }
    journal.finish(entry, response, {
      startedAt,
      ...(operation === undefined ? {} : { operation: operation.operationId }),
      ...(fault === undefined ? {} : { fault }),
    });
    return response;
  };
}

async function apply(
  rule: Fault | undefined,
  handler: Handler,
  request: Request,
): Promise<Response> {
  if (rule === undefined) return handler(request);
  if (rule.delay_ms !== undefined) await delay(rule.delay_ms, request.signal);
  if (rule.status !== undefined) {
    throw new HttpError(
      rule.status,
      rule.error_code ?? defaultErrorCode(rule.status),
      rule.message ?? `Injected fault ${rule.id}: status ${rule.status}`,
      rule.headers === undefined ? {} : { headers: rule.headers },
    );
  }
  if (rule.drop_connection) return Response.error();
  const response = await handler(request);
  return rule.cut_after_bytes === undefined
    ? response
    : cutResponse(response, rule.cut_after_bytes);
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}
