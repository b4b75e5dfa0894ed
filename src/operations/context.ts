/**
 * What every operation is handed.
 *
 * @module
 */
import type { Store } from "../store/store.ts";
import type { ExportSlots } from "./export_slots.ts";

/** The request and the handler's services, as an operation sees them. */
export interface OperationContext {
  request: Request;
  /** Path params, percent-decoded, not yet validated. */
  params: Record<string, string>;
  store: Store;
  /** The clock. */
  now: () => Date;
  /** Logs a failure that happens after the response has started. */
  reportError: (error: unknown) => void;
  /** How long `GET /readyz` waits for the store, in ms. Default 2000. */
  readinessTimeout?: number;
  /** How long a request body may take to arrive. Default 30 s. */
  bodyTimeoutMs?: number;
  /** The bound on concurrent bulk exports; none when left out. */
  exportSlots?: ExportSlots;
  /** How long an export's client may read nothing before it is cut, in ms. */
  exportStallTimeoutMs?: number;
  /** Aborted once the server shuts down: `GET /readyz` then answers 503. */
  shutdownSignal?: AbortSignal | undefined;
  /**
   * Headers every response carries (the handler's `X-Request-Id`): set when
   * the response is built, never added to it afterwards, which would cost
   * each runtime's server its fast path for plain header records.
   */
  headers?: Readonly<Record<string, string>>;
}

/**
 * An operation: one endpoint's work.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { Operation } from "./context.ts";
 * import { json } from "../responses.ts";
 * import { MemoryStore } from "../store/memory_store.ts";
 *
 * const hello: Operation = ({ params, headers }) =>
 *   Promise.resolve(json({ hello: params.name }, 200, headers));
 * const response = await hello({
 *   request: new Request("http://x/hello/Ada"),
 *   params: { name: "Ada" },
 *   store: new MemoryStore(),
 *   now: () => new Date(),
 *   reportError: console.error,
 *   headers: { "x-request-id": "r1" },
 * });
 * assert.deepEqual(await response.json(), { hello: "Ada" });
 * assert.equal(response.headers.get("x-request-id"), "r1");
 * ```
 */
export type Operation = (context: OperationContext) => Promise<Response>;
