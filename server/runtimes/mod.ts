/**
 * Serving the handler on whichever runtime runs this: `Deno.serve` under
 * Deno, `Bun.serve` under Bun, @hono/node-server under Node. Each adapter is
 * loaded only on its own runtime.
 *
 * @module
 */
import type { RunningServer, ServeOptions } from "./server.ts";
import type { Handler } from "../../src/handler.ts";
import type { Middleware } from "../../src/http/mod.ts";
import { bunExportTimeouts } from "./bun.ts";
import { nodeBodyFraming } from "./node_body_framing.ts";

export type { RunningServer, ServeOptions } from "./server.ts";

/** The runtime this code runs on. */
export type RuntimeName = "deno" | "bun" | "node";

/**
 * Which runtime runs this code.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runtimeName } from "./mod.ts";
 *
 * assert.ok(["deno", "bun", "node"].includes(runtimeName()));
 * ```
 */
export function runtimeName(): RuntimeName {
  if ("Deno" in globalThis) return "deno";
  if ("Bun" in globalThis) return "bun";
  return "node";
}

/** The steps each runtime's server adds to the pipeline. */
const RUNTIME_STEPS: Readonly<Record<RuntimeName, readonly Middleware[]>> = {
  node: [nodeBodyFraming],
  deno: [],
  bun: [bunExportTimeouts],
};

/**
 * The steps the servers we start (the API's and the mock's) add to the
 * pipeline on the runtime running this: on Node, what its HTTP/1.1 parser
 * knows of a bodiless request; on Bun, its idle timeout off a streamed
 * export.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runtimeSteps } from "./mod.ts";
 *
 * assert.ok(Array.isArray(runtimeSteps()));
 * ```
 */
export function runtimeSteps(): readonly Middleware[] {
  return RUNTIME_STEPS[runtimeName()];
}

/**
 * Serves a handler on the current runtime; resolves once it listens.
 *
 * @param handler The Fetch handler.
 * @param options Port (`0` for any free one) and interface.
 * @returns The running server, with its URL and `close()`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createHandler, MemoryStore } from "../../mod.ts";
 * import { serve } from "./mod.ts";
 *
 * const server = await serve(createHandler({ store: new MemoryStore() }), {
 *   port: 0,
 *   hostname: "127.0.0.1",
 * });
 * const response = await fetch(new URL("/healthz", server.url));
 * assert.deepEqual(await response.json(), { status: "ok" });
 * await server.close();
 * ```
 */
export async function serve(
  handler: Handler,
  options: ServeOptions,
): Promise<RunningServer> {
  switch (runtimeName()) {
    case "deno":
      return (await import("./deno.ts")).serveDeno(handler, options);
    case "bun":
      return (await import("./bun.ts")).serveBun(handler, options);
    case "node":
      return (await import("./node.ts")).serveNode(handler, options);
  }
}
