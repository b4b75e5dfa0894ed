/**
 * The benches' servers on each runtime's own server, not our adapters:
 * the ceiling and the peers are measured as users would serve them.
 *
 * @module
 */

/** A Fetch handler as the runtimes' own servers call it. */
export type FetchHandler = (request: Request) => Response | Promise<Response>;

/**
 * Serves a handler with the runtime's own server, as each runtime's guide
 * shows (`Deno.serve`, `Bun.serve`, @hono/node-server's `serve` on Node),
 * on 127.0.0.1; resolves with its URL.
 *
 * @param handler The Fetch handler.
 * @param port The port; `0` picks a free one.
 * @returns The server's URL.
 *
 * @example
 * ```ts ignore
 * import { serveOnRuntime } from "./runtime_server.ts";
 *
 * console.log(await serveOnRuntime(() => new Response("ok"), 0));
 * ```
 */
export function serveOnRuntime(
  handler: FetchHandler,
  port: number,
): Promise<string> {
  const runtime = globalThis as unknown as {
    Deno?: {
      serve(
        options: {
          port: number;
          hostname: string;
          onListen(address: { port: number }): void;
        },
        handler: FetchHandler,
      ): unknown;
    };
    Bun?: {
      serve(options: {
        port: number;
        hostname: string;
        fetch: FetchHandler;
      }): { port: number };
    };
  };
  if (runtime.Deno !== undefined) {
    return new Promise((resolve) =>
      runtime.Deno!.serve({
        port,
        hostname: "127.0.0.1",
        onListen: (address) => resolve(`http://127.0.0.1:${address.port}`),
      }, handler)
    );
  }
  if (runtime.Bun !== undefined) {
    const server = runtime.Bun.serve({
      port,
      hostname: "127.0.0.1",
      fetch: handler,
    });
    return Promise.resolve(`http://127.0.0.1:${server.port}`);
  }
  return import("@hono/node-server").then(({ serve }) =>
    new Promise((resolve) =>
      serve(
        { fetch: handler, port, hostname: "127.0.0.1" },
        (address) => resolve(`http://127.0.0.1:${address.port}`),
      )
    )
  );
}
