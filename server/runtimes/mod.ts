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
import { bunDrainingStep, bunExportTimeouts } from "./bun.ts";
import { denoClosingConnection, denoDrainingStep } from "./deno.ts";
import { type Drain, drainingStep } from "./drain.ts";
import { nodeResponseEnd } from "./node_response_end.ts";
import { nodeBodyFraming } from "./node_body_framing.ts";
import { denoBodyFraming } from "./deno_body_framing.ts";

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

/** What each runtime's servers add to the pipeline. */
interface RuntimeSteps {
  /**
   * Its draining step, which also does the runtime's own work on each
   * answer: on Node `drainingStep` told when one of its responses is over;
   * on Deno and Bun a step of their own, which on Deno also closes the
   * connection an answer says to close, and on Bun keeps the idle timeout
   * off a streamed body.
   */
  draining: (drain: Drain) => Middleware;
  /** Its own steps without a draining step. */
  undrained: readonly Middleware[];
}

const RUNTIME_STEPS: Readonly<Record<RuntimeName, RuntimeSteps>> = {
  node: {
    draining: (drain) => drainingStep(drain, nodeResponseEnd),
    undrained: [],
  },
  deno: {
    draining: denoDrainingStep,
    undrained: [denoClosingConnection],
  },
  bun: {
    draining: bunDrainingStep,
    undrained: [bunExportTimeouts],
  },
};

/**
 * The steps the servers we start (the API's and the mock's) add to the
 * pipeline on the runtime running this: on Deno, the close of a connection
 * an answer says to close; on Bun, its idle timeout off a streamed export.
 * With a `drain`, one step that also counts requests in it for a graceful
 * shutdown.
 *
 * @param drain The server's count of requests, if it drains on shutdown.
 * @returns The steps, in order.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Drain } from "./drain.ts";
 * import { runtimeName, runtimeSteps } from "./mod.ts";
 *
 * assert.equal(runtimeSteps(new Drain()).length, 1);
 * assert.equal(runtimeSteps().length, runtimeName() === "node" ? 0 : 1);
 * ```
 */
export function runtimeSteps(drain?: Drain): readonly Middleware[] {
  const { draining, undrained } = RUNTIME_STEPS[runtimeName()];
  return drain === undefined ? undrained : [draining(drain)];
}

/**
 * The steps a layer that records request bodies (the mock's journal) adds
 * after {@linkcode runtimeSteps}: on Node `nodeBodyFraming`, on Deno
 * `denoBodyFraming`, which tell the context a request came without a body,
 * so that the journal need not touch `request.body`; none on Bun. The API
 * reads no body it was not given, and goes without them.
 *
 * @returns The steps, in order.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { bodyFramingSteps, runtimeName } from "./mod.ts";
 *
 * assert.equal(bodyFramingSteps().length, runtimeName() === "bun" ? 0 : 1);
 * ```
 */
export function bodyFramingSteps(): readonly Middleware[] {
  return BODY_FRAMING[runtimeName()];
}
const BODY_FRAMING: Readonly<Record<RuntimeName, readonly Middleware[]>> = {
  node: [nodeBodyFraming],
  deno: [denoBodyFraming],
  bun: [],
};

/**
 * Serves a handler on the current runtime; resolves once it listens. The
 * adapters only listen and stop: what the runtime needs of each request is
 * in the handler's steps, `middleware: runtimeSteps()` (and a `Drain` to
 * shut down gracefully), as our servers build it.
 *
 * @param handler The Fetch handler.
 * @param options Port (`0` for any free one) and interface.
 * @returns The running server, with its URL and `close()`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createHandler, MemoryStore } from "../../mod.ts";
 * import { runtimeSteps, serve } from "./mod.ts";
 *
 * const handler = createHandler({
 *   store: new MemoryStore(),
 *   middleware: runtimeSteps(),
 * });
 * const server = await serve(handler, { port: 0, hostname: "127.0.0.1" });
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
