/**
 * Ending a connection from a Fetch handler served over HTTP, for the mock's
 * injected faults (`drop_connection`, `cut_after_bytes`): as portably and as
 * quietly as the runtimes allow. A runtime logs a response body that fails
 * with a stack trace; an injected fault is no failure, so it is noted in one
 * info line instead.
 *
 * @module
 */
import type { MockStep } from "./mock_context.ts";

/** Where a fault served over HTTP is noted: one line. */
export type FaultNote = (line: string) => void;

/**
 * The response that makes the runtime's server drop the connection, after
 * noting `line`. Under Node (@hono/node-server, which passes
 * `{ incoming, outgoing }` as the handler's second argument) the socket is
 * destroyed first, so not even a status line goes out; Bun resets the
 * connection before its status line; Deno sends the status line (502) and
 * then closes the connection without ending the body.
 *
 * @param env The server's second handler argument, if any.
 * @param line What to note, e.g. `DELETE /v1/integration/…: connection dropped`.
 * @param note Where the line goes. Default `console.info`.
 * @returns The response to return to the server.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { droppedConnection } from "./drop_connection.ts";
 *
 * const notes: string[] = [];
 * const response = droppedConnection(undefined, "dropped", (l) => notes.push(l));
 * await assert.rejects(response.arrayBuffer());
 * ```
 */
export function droppedConnection(
  env: unknown,
  line: string,
  note: FaultNote = console.info,
): Response {
  const response = new Response(
    new ReadableStream({
      start(controller) {
        endConnection(controller, env, line, note);
      },
    }),
    { status: 502 },
  );
  dropped.add(response);
  return response;
}

const dropped = new WeakSet<Response>();

/**
 * Whether a response is one {@linkcode droppedConnection} made.
 *
 * @param response The response.
 * @returns Whether it drops the connection.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { droppedConnection, isDroppedConnection } from "./drop_connection.ts";
 *
 * assert.ok(isDroppedConnection(droppedConnection(undefined, "", () => {})));
 * ```
 */
export function isDroppedConnection(response: Response): boolean {
  return dropped.has(response);
}

/**
 * Whether a response is `Response.error()`, the fault that drops the
 * connection, told by its status (0, which no other response can have):
 * reading `type` instead would make @hono/node-server build a full web
 * Response for every answer, off its fast path.
 *
 * @param response Any response.
 * @returns `true` for `Response.error()`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isNetworkError } from "./drop_connection.ts";
 *
 * assert.equal(isNetworkError(Response.error()), true);
 * assert.equal(isNetworkError(new Response("ok")), false);
 * ```
 */
export function isNetworkError(response: Response): boolean {
  return response.status === 0;
}

/**
 * A response whose body, when it fails (a `cut_after_bytes` fault), ends the
 * connection as {@linkcode droppedConnection} does, noting one line: `line`
 * and the failure's message.
 *
 * @param response A response whose body is cut by a fault.
 * @param env The server's second handler argument, if any.
 * @param line Says which request, e.g. `POST /v1/call/message/bulk`.
 * @param note Where the line goes. Default `console.info`.
 * @returns The response to return to the server.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { cutResponse } from "./faults.ts";
 * import { quietlyCut } from "./drop_connection.ts";
 *
 * const notes: string[] = [];
 * const cut = quietlyCut(
 *   cutResponse(new Response("hello world"), 5),
 *   undefined,
 *   "GET /",
 *   (line) => notes.push(line),
 * );
 * await assert.rejects(cut.text());
 * if (!("Deno" in globalThis)) { // Deno prints the line itself
 *   assert.deepEqual(notes, ["GET /: Response cut after 5 bytes by an injected fault"]);
 * }
 * ```
 */
export function quietlyCut(
  response: Response,
  env: unknown,
  line: string,
  note: FaultNote = console.info,
): Response {
  const reader = response.body!.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (error) {
        endConnection(
          controller,
          env,
          `${line}: ${(error as Error).message}`,
          note,
        );
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  }, { highWaterMark: 0 });
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

/**
 * Ends the connection a body is sent on, noting `line` once. Node: the
 * socket is destroyed and the body closed (@hono/node-server then writes
 * nothing and logs nothing). Bun: the body fails with `undefined`, which
 * Bun does not log. Deno logs any failed body (its `Deno.serve` `onError`):
 * the body fails with the line itself, which Deno prints as it is, one line.
 */
function endConnection(
  controller: ReadableStreamDefaultController<Uint8Array>,
  env: unknown,
  line: string,
  note: FaultNote,
): void {
  const socket = (env as { incoming?: { socket?: { destroy(): void } } })
    ?.incoming?.socket;
  if (socket !== undefined) {
    note(line);
    socket.destroy();
    controller.close();
  } else if ("Deno" in globalThis) {
    controller.error(line);
  } else {
    note(line);
    controller.error(undefined);
  }
}

/**
 * The standalone server's first step: carries a fault's dropped connection
 * or cut body onto the wire (see {@linkcode droppedConnection} and
 * {@linkcode quietlyCut}), noted in one info line, never with a stack
 * trace. Any other answer passes through.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Context } from "../src/http/context.ts";
 * import { faultsOnTheWire } from "./drop_connection.ts";
 * import type { MockVars } from "./mock_context.ts";
 *
 * const context = new Context<MockVars>(new Request("http://mock/healthz"));
 * const response = await faultsOnTheWire(
 *   context,
 *   () => Promise.resolve(context.empty(204)),
 * );
 * assert.equal(response.status, 204);
 * ```
 */
export const faultsOnTheWire: MockStep = async (context, next) => {
  const response = await next();
  const dropped = isNetworkError(response);
  if (!dropped && context.vars.cut !== true) return response;
  const { request, runtimeArgument } = context;
  const line = `Injected fault: ${request.method} ${context.pathname}`;
  return dropped
    ? droppedConnection(runtimeArgument, `${line}: connection dropped`)
    : quietlyCut(response, runtimeArgument, line);
};
