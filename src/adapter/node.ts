/**
 * Serving the handler under Node, through @hono/node-server.
 *
 * @module
 */
import { serve } from "@hono/node-server";
import type { AddressInfo } from "node:net";
import type { Handler } from "../handler.ts";
import { type RunningServer, type ServeOptions, serverUrl } from "./server.ts";

/**
 * Serves the handler with Node's HTTP server, bridged by @hono/node-server.
 *
 * @example
 * ```ts ignore
 * import { serveNode } from "./node.ts";
 *
 * const server = await serveNode(handler, { port: 0, hostname: "127.0.0.1" });
 * await server.close();
 * ```
 */
export function serveNode(
  handler: Handler,
  { port, hostname }: ServeOptions,
): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: handler, port, hostname }, (info) => {
      const address = info as AddressInfo;
      resolve({
        url: serverUrl(address.address, address.port),
        port: address.port,
        close: () =>
          new Promise<void>((done, fail) => {
            server.close((error) => (error ? fail(error) : done()));
            if ("closeIdleConnections" in server) server.closeIdleConnections();
          }),
      });
    });
    server.once("error", reject);
  });
}
