/**
 * Dropping a connection from a Fetch handler served over HTTP, as portably
 * as the runtimes allow.
 *
 * @module
 */

/**
 * The response that makes the runtime's server drop the connection: a body
 * that fails at once. Under Node (@hono/node-server, which passes
 * `{ incoming, outgoing }` as the handler's second argument) the socket is
 * destroyed first, so not even a status line goes out; Bun resets the
 * connection before its status line; Deno sends the status line (502) and
 * then closes the connection without ending the body.
 *
 * @param env The server's second handler argument, if any.
 * @returns The response to return to the server.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { droppedConnection } from "./drop_connection.ts";
 *
 * await assert.rejects(droppedConnection(undefined).arrayBuffer());
 * ```
 */
export function droppedConnection(env: unknown): Response {
  const response = dropResponse();
  dropped.add(response);
  const socket = (env as { incoming?: { socket?: { destroy(): void } } })
    ?.incoming?.socket;
  socket?.destroy();
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
 * assert.ok(isDroppedConnection(droppedConnection(undefined)));
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

function dropResponse(): Response {
  return new Response(
    new ReadableStream({
      start(controller) {
        controller.error(
          new Error("Connection dropped by an injected fault"),
        );
      },
    }),
    { status: 502 },
  );
}
