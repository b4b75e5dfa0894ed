/**
 * The probes a load balancer or an orchestrator calls, without a token:
 * `GET /healthz` (the process answers) and `GET /readyz` (the store answers
 * too, within a short deadline).
 *
 * @module
 */
import { HttpError } from "../http/mod.ts";
import type { Context } from "../http/mod.ts";
import type { Operation } from "../http/mod.ts";
import type { Store, StoreDegraded } from "../store/mod.ts";

/**
 * `GET /healthz`: 200 `{"status": "ok"}` whenever the process can answer;
 * the store is not touched.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Context } from "../http/context.ts";
 * import { healthz } from "./health.ts";
 *
 * const context = new Context(
 *   new Request("http://x/healthz", { headers: { "x-request-id": "r1" } }),
 * );
 * const response = await healthz(context);
 * assert.deepEqual(await response.json(), { status: "ok" });
 * assert.equal(response.headers.get("x-request-id"), "r1");
 * ```
 */
export function healthz(context: Context): Promise<Response> {
  return Promise.resolve(context.json({ status: "ok" }));
}

/** Settings of {@linkcode readyz}. */
export interface ReadinessSettings {
  /** The store whose `ping()` is asked. */
  store: Store;
  /** How long the store may take to answer, in ms. */
  readinessTimeout: number;
  /** Aborted once the server shuts down; none for a server that never does. */
  shutdownSignal: AbortSignal | undefined;
}

/**
 * The operation of `GET /readyz`: 200 `{"status": "ok"}` once the store's
 * `ping()` resolves within `readinessTimeout`, 503 `SERVICE_UNAVAILABLE`
 * (ErrorResponseSchema) when it fails or takes longer. A store that serves
 * degraded (its `ping()` resolves with `{ degraded }`) is still ready: 200
 * `{"status": "degraded", "detail": "…"}`. Once `shutdownSignal` is aborted
 * it answers 503 at once, without asking the store: the server is draining.
 *
 * @param settings The store, the deadline and the shutdown signal.
 * @returns The operation.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Context } from "../http/context.ts";
 * import { readyz } from "./health.ts";
 * import { MemoryStore } from "../store/memory_store.ts";
 *
 * const shutdown = new AbortController();
 * const probe = readyz({
 *   store: new MemoryStore(),
 *   readinessTimeout: 2000,
 *   shutdownSignal: shutdown.signal,
 * });
 * const context = new Context(new Request("http://x/readyz"));
 * assert.equal((await probe(context)).status, 200);
 * shutdown.abort();
 * await assert.rejects(probe(context), { status: 503 });
 * ```
 */
export function readyz(
  { store, readinessTimeout, shutdownSignal }: ReadinessSettings,
): Operation {
  return async (context) => {
    if (shutdownSignal?.aborted) {
      throw new HttpError(
        503,
        "SERVICE_UNAVAILABLE",
        "The server is shutting down",
      );
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<"late">((resolve) => {
      timer = setTimeout(() => resolve("late"), readinessTimeout);
    });
    let outcome: "ok" | "late" | "failed" | StoreDegraded;
    try {
      outcome = await Promise.race([
        store.ping().then((answer) => answer ?? "ok" as const),
        deadline,
      ]);
    } catch {
      outcome = "failed";
    } finally {
      clearTimeout(timer);
    }
    if (outcome === "ok") return context.json({ status: "ok" });
    if (typeof outcome === "object") {
      const body = { status: "degraded", detail: outcome.degraded };
      return context.json(body);
    }
    throw new HttpError(
      503,
      "SERVICE_UNAVAILABLE",
      outcome === "late"
        ? `The store did not answer within ${readinessTimeout} ms`
        : "The store cannot be reached",
    );
  };
}
