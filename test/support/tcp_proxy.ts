/**
 * A tiny TCP proxy for fault tests: sits between a client and a server and can
 * cut every open connection and play the failures a database can show, so a
 * test can make "the database" vanish and come back without touching the real
 * server. Built on `node:net`, which Node, Deno and Bun all provide.
 *
 * @module
 */
import {
  createConnection,
  createServer,
  type Server,
  type Socket,
} from "node:net";

/** How the proxy treats connections. */
export type ProxyMode =
  /** Forward bytes both ways (the default). */
  | "forward"
  /** Not listening at all: connections are refused, as by a stopped server. */
  | "down"
  /** Accept, then close at once without a word, as some proxies do. */
  | "hangup"
  /** Accept and never answer, as a host behind a firewall that drops. */
  | "stall";

/** A running proxy. */
export interface TcpProxy {
  /** The port it listens on, on 127.0.0.1 (kept while it is down). */
  readonly port: number;
  /** The current mode. */
  readonly mode: ProxyMode;
  /** Changes the mode; going down cuts every open connection. */
  setMode(mode: ProxyMode): Promise<void>;
  /** Destroys every open connection (both sides), whatever the mode. */
  cut(): void;
  /** Cuts everything and stops listening. */
  close(): Promise<void>;
}

/**
 * Starts a proxy on 127.0.0.1 and a free port, forwarding to `target`.
 *
 * @param target Where to forward: host and port.
 * @returns The running proxy.
 *
 * @example Stopping a database and starting it again
 * ```ts ignore
 * import { startTcpProxy } from "./tcp_proxy.ts";
 *
 * const proxy = await startTcpProxy({ host: "127.0.0.1", port: 5432 });
 * await proxy.setMode("down");
 * await proxy.setMode("forward");
 * await proxy.close();
 * ```
 */
export async function startTcpProxy(
  target: { host: string; port: number },
): Promise<TcpProxy> {
  const open = new Set<Socket>();
  let mode: ProxyMode = "forward";
  const track = (socket: Socket) => {
    open.add(socket);
    socket.on("close", () => open.delete(socket));
    socket.on("error", () => socket.destroy());
  };
  const onConnection = (client: Socket) => {
    track(client);
    if (mode === "hangup") {
      client.end();
      return;
    }
    if (mode === "stall") return;
    const upstream = createConnection(target.port, target.host);
    track(upstream);
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
  };
  let server = createServer(onConnection);
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => {
        const address = server.address();
        resolve(typeof address === "object" && address ? address.port : port);
      });
    });
  const stop = (stopped: Server) =>
    new Promise<void>((resolve) => stopped.close(() => resolve()));
  const cut = () => {
    for (const socket of open) socket.destroy();
    open.clear();
  };
  const port = await listen(0);
  return {
    port,
    get mode() {
      return mode;
    },
    async setMode(next) {
      const wasDown = mode === "down";
      mode = next;
      if (next === "down" && !wasDown) {
        cut();
        await stop(server);
      } else if (next !== "down" && wasDown) {
        server = createServer(onConnection);
        await listen(port);
      }
    },
    cut,
    async close() {
      cut();
      if (mode !== "down") await stop(server);
    },
  };
}
