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
  | "stall"
  /**
   * A host that vanished: open connections stop forwarding in both
   * directions and are never closed (no FIN, no RST, whatever the server
   * does), and new ones are accepted and never answered, as "stall".
   * Connections frozen so stay frozen when the mode changes again.
   */
  | "blackhole";

/** A running proxy. */
export interface TcpProxy {
  /** The port it listens on, on 127.0.0.1 (kept while it is down). */
  readonly port: number;
  /** The current mode. */
  readonly mode: ProxyMode;
  /** Changes the mode; going down cuts every open connection. */
  setMode(mode: ProxyMode): Promise<void>;
  /**
   * Forwards new connections to `target` from now on (open ones keep
   * theirs): the address moved to another server, as after a failover.
   */
  retarget(target: { host: string; port: number }): void;
  /** Destroys every open connection (both sides), whatever the mode. */
  cut(): void;
  /** Cuts everything and stops listening. */
  close(): Promise<void>;
}

/**
 * Starts a proxy on 127.0.0.1 and a free port, forwarding to `target`.
 *
 * @param initialTarget Where to forward: host and port (see `retarget`).
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
  initialTarget: { host: string; port: number },
): Promise<TcpProxy> {
  let target = initialTarget;
  const open = new Set<Socket>();
  /** Each forwarding pair's way to stop forwarding for good. */
  const freezers = new Set<() => void>();
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
    if (mode === "stall" || mode === "blackhole") return;
    const upstream = createConnection(target.port, target.host);
    track(upstream);
    const closeClient = () => client.destroy();
    const closeUpstream = () => upstream.destroy();
    client.on("close", closeUpstream);
    upstream.on("close", closeClient);
    client.pipe(upstream);
    upstream.pipe(client);
    const freeze = () => {
      client.off("close", closeUpstream);
      upstream.off("close", closeClient);
      client.unpipe(upstream);
      upstream.unpipe(client);
      client.pause();
      // What the server still sends (or its close) goes nowhere.
      upstream.on("data", () => {});
    };
    freezers.add(freeze);
    client.on("close", () => freezers.delete(freeze));
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
  const freeze = () => {
    for (const freeze of freezers) freeze();
    freezers.clear();
  };
  return {
    port,
    get mode() {
      return mode;
    },
    async setMode(next) {
      const wasDown = mode === "down";
      mode = next;
      if (next === "blackhole") freeze();
      if (next === "down" && !wasDown) {
        cut();
        await stop(server);
      } else if (next !== "down" && wasDown) {
        server = createServer(onConnection);
        await listen(port);
      }
    },
    retarget(next) {
      target = next;
    },
    cut,
    async close() {
      cut();
      if (mode !== "down") await stop(server);
    },
  };
}
