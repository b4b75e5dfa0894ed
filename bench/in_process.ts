/**
 * What the in-process benches share (`handler_cost.ts`, `step_cost.ts`): the
 * two requests they time, a constant handler to time them over, and the
 * timing itself.
 *
 * @module
 */
import process from "node:process";
import { setTimeout } from "node:timers";
import type { Handler } from "../src/handler.ts";
import { FLOWS, TOKENS } from "../test/support/api_fixtures.ts";

const UNKNOWN = "99999999-9999-4999-8999-999999999999";

/**
 * The trigger test (webhook flow) and the DELETE of an unknown integration
 * (404), owner token: a fresh request each call.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { requests } from "./in_process.ts";
 *
 * assert.equal(requests.delete404().method, "DELETE");
 * ```
 */
export const requests: Record<"trigger" | "delete404", () => Request> = {
  trigger: () =>
    new Request(`http://127.0.0.1/v1/workflow/${FLOWS.webhook}/trigger/test`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKENS.owner}` },
    }),
  delete404: () =>
    new Request(`http://127.0.0.1/v1/integration/${UNKNOWN}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${TOKENS.owner}` },
    }),
};

/**
 * A handler answering a constant JSON body: what the others are timed over.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { constant, requests } from "./in_process.ts";
 *
 * const response = await constant(requests.trigger());
 * assert.deepEqual(await response.json(), { events: [] });
 * ```
 */
export const constant: Handler = () =>
  Promise.resolve(
    new Response('{"events":[]}', {
      headers: { "content-type": "application/json" },
    }),
  );

/**
 * CPU microseconds a request, body read, over `count` requests: the
 * process's CPU time, which other load on the machine disturbs less than the
 * clock. A turn of the event loop every 50 requests, as a server under wrk's
 * 50 connections takes them: the access log writes its batch there.
 *
 * @param handler The handler.
 * @param make Makes each request.
 * @param count How many requests.
 * @returns CPU µs a request.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { constant, cpuMicros, requests } from "./in_process.ts";
 *
 * assert.ok(await cpuMicros(constant, requests.trigger, 100) >= 0);
 * ```
 */
export async function cpuMicros(
  handler: Handler,
  make: () => Request,
  count: number,
): Promise<number> {
  const started = process.cpuUsage();
  for (let i = 0; i < count; i += 1) {
    const response = await handler(make());
    await response.arrayBuffer();
    if (i % 50 === 49) await new Promise((resolve) => setTimeout(resolve));
  }
  const { user, system } = process.cpuUsage(started);
  return (user + system) / count;
}

/**
 * The median of some numbers (the upper one of an even count).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { median } from "./in_process.ts";
 *
 * assert.equal(median([3, 1, 2]), 2);
 * ```
 */
export const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
