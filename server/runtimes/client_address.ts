/**
 * A request's client address, from what each runtime's server passes beside
 * the request, or from `X-Forwarded-For` when the server is told how many
 * proxies of its own stand in front.
 *
 * @module
 */

/**
 * The address of the peer that sent a request: @hono/node-server's
 * `{ incoming }` (Node), Deno's `info.remoteAddr`, Bun's
 * `server.requestIP(request)`.
 *
 * @param request The request.
 * @param runtimeArgument What the runtime's server passed beside it.
 * @returns The peer's address, or `undefined` when the runtime said none.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { peerAddress } from "./client_address.ts";
 *
 * const request = new Request("http://x/");
 * const deno = { remoteAddr: { hostname: "192.0.2.1", port: 50000 } };
 * assert.equal(peerAddress(request, deno), "192.0.2.1");
 * const node = { incoming: { socket: { remoteAddress: "192.0.2.2" } } };
 * assert.equal(peerAddress(request, node), "192.0.2.2");
 * assert.equal(peerAddress(request, undefined), undefined);
 * ```
 */
export function peerAddress(
  request: Request,
  runtimeArgument: unknown,
): string | undefined {
  const argument = runtimeArgument as {
    incoming?: { socket?: { remoteAddress?: string } };
    remoteAddr?: { hostname?: string };
    requestIP?: (request: Request) => { address: string } | null;
  } | undefined;
  return argument?.incoming?.socket?.remoteAddress ??
    argument?.remoteAddr?.hostname ??
    (typeof argument?.requestIP === "function"
      ? argument.requestIP(request)?.address
      : undefined);
}

/**
 * How a server finds a request's client: the peer's address, or, behind
 * `trustedProxies` proxies of its own, the address the outermost of them
 * saw, read from the right of `X-Forwarded-For` (each proxy appends the
 * address it was reached from). Entries further left were written by the
 * client and are never trusted.
 *
 * @param trustedProxies How many proxies stand in front (0: none, the
 * header is ignored).
 * @returns The function to give `createHandler` as `clientAddress`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { clientAddressOf } from "./client_address.ts";
 *
 * const peer = { remoteAddr: { hostname: "10.0.0.5" } };
 * const request = new Request("http://x/", {
 *   headers: { "x-forwarded-for": "6.6.6.6, 198.51.100.7" },
 * });
 * assert.equal(clientAddressOf(0)(request, peer), "10.0.0.5");
 * assert.equal(clientAddressOf(1)(request, peer), "198.51.100.7");
 * assert.equal(clientAddressOf(2)(request, peer), "6.6.6.6");
 * ```
 */
export function clientAddressOf(
  trustedProxies: number,
): (request: Request, runtimeArgument?: unknown) => string | undefined {
  return (request, runtimeArgument) => {
    const peer = peerAddress(request, runtimeArgument);
    if (trustedProxies === 0 || peer === undefined) return peer;
    const forwarded = (request.headers.get("x-forwarded-for") ?? "")
      .split(",").map((entry) => entry.trim()).filter((entry) => entry !== "");
    const chain = [...forwarded, peer];
    return chain[Math.max(0, chain.length - 1 - trustedProxies)];
  };
}
