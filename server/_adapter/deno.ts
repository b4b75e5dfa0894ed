/**
 * Serving the handler with `Deno.serve` (Deno, Deno Deploy).
 *
 * @module
 */
import type { Handler } from "../../src/handler.ts";
import { type RunningServer, type ServeOptions, serverUrl } from "./server.ts";

/** The part of Deno's API this adapter uses. */
interface DenoRuntime {
  serve(
    options: {
      port: number;
      hostname: string;
      onListen: (address: { hostname: string; port: number }) => void;
    },
    handler: Handler,
  ): { shutdown(): Promise<void> };
}

/**
 * Serves the handler with `Deno.serve`; resolves once it listens.
 * `Deno.serve` has no deadline settings, so `timeouts` are ignored here: a
 * connection whose headers never end stays open until the client leaves,
 * and only the handler's own body deadline ends a body that never ends
 * (e.g. chunked framing Deno waits on forever). Upstream:
 * https://github.com/denoland/deno/issues/3515.
 *
 * @example
 * ```ts ignore
 * import { serveDeno } from "./deno.ts";
 *
 * const server = await serveDeno(handler, { port: 0, hostname: "127.0.0.1" });
 * await server.close();
 * ```
 */
export function serveDeno(
  handler: Handler,
  { port, hostname }: ServeOptions,
): Promise<RunningServer> {
  const deno = (globalThis as unknown as { Deno: DenoRuntime }).Deno;
  return new Promise((resolve) => {
    const server = deno.serve({
      port,
      hostname,
      onListen: (address) => {
        resolve({
          url: serverUrl(address.hostname, address.port),
          port: address.port,
          close: () => server.shutdown(),
        });
      },
    }, handler);
  });
}
