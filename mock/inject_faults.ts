/**
 * The fault step: answers `Prefer: code=` and the fault rules in force in
 * place of the API (or cuts the API's answer short).
 *
 * @module
 */
import { HttpError } from "../src/http/mod.ts";
import {
  cutResponse,
  defaultErrorCode,
  type Fault,
  type FaultSet,
} from "./faults.ts";
import type { MockContext, MockStep } from "./mock_context.ts";
import { findOperation } from "./operations.ts";
import { preferredCode, preferredError } from "./prefer.ts";

/**
 * Notes the request's operation, then applies `Prefer: code=` or the first
 * fault rule that matches it: a delay, an error status, a dropped
 * connection (answered `Response.error()`, which MSW turns into a failed
 * `fetch` and the standalone server into a closed socket), or a body cut
 * short. Without either, the request goes on to the API.
 *
 * @param faults The fault rules in force.
 * @returns The step.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Context } from "../src/http/context.ts";
 * import { FaultSet } from "./faults.ts";
 * import { injectFaults } from "./inject_faults.ts";
 * import type { MockVars } from "./mock_context.ts";
 *
 * const faults = new FaultSet();
 * faults.add({ operation: "testTrigger", status: 503, times: 1 });
 * const step = injectFaults(faults);
 * const url = "http://mock/v1/workflow/7/trigger/test";
 * const context = new Context<MockVars>(new Request(url, { method: "POST" }));
 * await assert.rejects(
 *   step(context, () => Promise.resolve(context.empty(204))),
 *   { status: 503 },
 * );
 * assert.equal(context.vars.operation, "testTrigger");
 * ```
 */
export function injectFaults(faults: FaultSet): MockStep {
  return async (context, next) => {
    const { request, pathname, vars } = context;
    const operation = findOperation(request.method, pathname);
    if (operation !== undefined) {
      vars.operation = operation.operationId;
      const code = preferredCode(request.headers.get("prefer"));
      const preferred = code === undefined
        ? undefined
        : preferredError(operation, code);
      if (preferred !== undefined) {
        vars.fault = "prefer";
        throw preferred;
      }
    }
    const rule = faults.take(request.method, pathname, operation?.operationId);
    if (rule === undefined) return next();
    vars.fault = rule.id;
    return await apply(rule, context, next);
  };
}

async function apply(
  rule: Fault,
  context: MockContext,
  next: () => Promise<Response>,
): Promise<Response> {
  if (rule.delay_ms !== undefined) {
    await delay(rule.delay_ms, context.request.signal);
  }
  if (rule.status !== undefined) {
    throw new HttpError(
      rule.status,
      rule.error_code ?? defaultErrorCode(rule.status),
      rule.message ?? `Injected fault ${rule.id}: status ${rule.status}`,
      rule.headers === undefined ? {} : { headers: rule.headers },
    );
  }
  if (rule.drop_connection) return Response.error();
  const response = await next();
  if (rule.cut_after_bytes === undefined) return response;
  context.vars.cut = true;
  return cutResponse(response, rule.cut_after_bytes);
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
