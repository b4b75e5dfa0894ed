/**
 * Serving the handler under Node, through @hono/node-server.
 *
 * @module
 */
import type { AddressInfo } from "node:net";
import {
  type RunningServer,
  type ServedHandler,
  type ServeOptions,
  serverUrl,
  serveTimeouts,
} from "./server.ts";

/**
 * Serves the handler with Node's HTTP server, bridged by @hono/node-server.
 * Node closes a connection whose headers take longer than `headersMs` and
 * answers 408 to a request not received whole within `requestMs` (both
 * checked every second); idle keep-alive connections close after
 * `keepAliveMs`. A response, however slowly read, has no deadline (the bulk
 * export has its own stall deadline).
 *
 * @example
 * ```ts ignore
 * import { serveNode } from "./node.ts";
 *
 * const server = await serveNode(handler, { port: 0, hostname: "127.0.0.1" });
 * await server.close();
 * ```
 */
export async function serveNode(
  handler: ServedHandler,
  { port, hostname, timeouts }: ServeOptions,
): Promise<RunningServer> {
  const { headersMs, requestMs, keepAliveMs } = serveTimeouts(timeouts);
  const serverOptions = {
    headersTimeout: headersMs,
    requestTimeout: Math.max(requestMs, headersMs),
    keepAliveTimeout: keepAliveMs,
    // Node checks the two deadlines above every 30 s by default, so they
    // would fire up to 30 s late.
    connectionsCheckingInterval: 1000,
  };
  // Imported here: a bundle for Bun (the mock executable) may leave it out.
  const { serve } = await import("@hono/node-server");
  return await new Promise((resolve, reject) => {
    const options = { fetch: handler, port, hostname, serverOptions };
    const server = serve(options, (info) => {
      const address = info as AddressInfo;
      resolve({
        url: serverUrl(address.address, address.port),
        port: address.port,
        close: () =>
          new Promise<void>((done, fail) => {
            server.close((error) => (error ? fail(error) : done()));
            if ("closeIdleConnections" in server) server.closeIdleConnections();
          }),
        cut: () => {
          if ("closeAllConnections" in server) server.closeAllConnections();
        },
      });
    });
    server.once("error", reject);
  });
}
