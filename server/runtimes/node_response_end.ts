/**
 * When a response is over under @hono/node-server, for the draining step.
 *
 * @module
 */
import type { EventEmitter } from "node:events";
import type { ResponseEnd } from "./drain.ts";

/**
 * A response under @hono/node-server is over when Node closes its
 * `outgoing` message: the body sent, or the client gone.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { EventEmitter } from "node:events";
 * import { Context } from "../../src/http/mod.ts";
 * import { nodeResponseEnd } from "./node_response_end.ts";
 *
 * const outgoing = new EventEmitter();
 * let over = false;
 * const context = new Context(new Request("http://x/"), { outgoing });
 * const answered = nodeResponseEnd(context, () => over = true);
 * assert.equal(answered, undefined); // the answer tells nothing here
 * await Promise.resolve();
 * assert.equal(over, false); // its body not yet sent
 * outgoing.emit("close");
 * assert.equal(over, true);
 * ```
 */
export const nodeResponseEnd: ResponseEnd = (context, done) => {
  const outgoing = (context.runtimeArgument as
    | { outgoing?: EventEmitter }
    | undefined)?.outgoing;
  if (outgoing === undefined) return done;
  outgoing.once("close", done);
  return undefined;
};
