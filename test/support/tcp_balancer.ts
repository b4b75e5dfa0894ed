/**
 * A small TCP load balancer, as a test puts one in front of several
 * instances: it polls each backend's `/readyz` and sends each new client
 * connection to the next ready backend, round robin; a backend that refuses
 * the connection is skipped for the next one (as nginx's stream module and
 * HAProxy's `redispatch` do). It never retries what it has forwarded.
 *
 * @module
 */
import { connect, createServer, type Server, type Socket } from "node:net";

/** One backend and what the balancer knows of it. */
export interface Backend {
  port: number;
  /** Whether its last `/readyz` answered 200. */
  ready: boolean;
  /** Client connections sent to it. */
  connections: number;
}

/** A running balancer. */
export class TcpBalancer {
  readonly backends: Backend[];
  readonly pollMs: number;
  /** Client connections no backend would take. */
  dropped = 0;
  readonly #server: Server;
  readonly #clients = new Set<Socket>();
  #next = 0;
  #polling: ReturnType<typeof setInterval> | undefined;

  /**
   * Starts balancing over backends on 127.0.0.1 at `ports`, polling their
   * `/readyz` every `pollMs`.
   */
  constructor(ports: number[], pollMs = 100) {
    this.pollMs = pollMs;
    this.backends = ports.map((port) => ({
      port,
      ready: false,
      connections: 0,
    }));
    this.#server = createServer((client) => this.#route(client));
  }

  /** Listens on a free port; resolves with it. */
  async listen(): Promise<number> {
    await new Promise<void>((resolve) =>
      this.#server.listen(0, "127.0.0.1", resolve)
    );
    this.#polling = setInterval(() => void this.#poll(), this.pollMs);
    await this.#poll();
    return (this.#server.address() as { port: number }).port;
  }

  /** Resolves once the backend on `port` is seen ready (within `ms`). */
  async ready(port: number, ms = 30_000): Promise<void> {
    const backend = this.backends.find((each) => each.port === port)!;
    for (const end = Date.now() + ms; Date.now() < end;) {
      if (backend.ready) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`Backend ${port} not ready within ${ms} ms`);
  }

  /** Stops polling and listening, and closes every connection. */
  async close(): Promise<void> {
    clearInterval(this.#polling);
    for (const client of this.#clients) client.destroy();
    await new Promise((resolve) => this.#server.close(resolve));
  }

  async #poll(): Promise<void> {
    await Promise.all(this.backends.map(async (backend) => {
      try {
        const response = await fetch(
          `http://127.0.0.1:${backend.port}/readyz`,
          { signal: AbortSignal.timeout(1000) },
        );
        await response.arrayBuffer();
        backend.ready = response.status === 200;
      } catch {
        backend.ready = false;
      }
    }));
  }

  #route(client: Socket): void {
    this.#clients.add(client);
    client.on("close", () => this.#clients.delete(client));
    client.on("error", () => {});
    client.pause();
    const ready = this.backends.filter((backend) => backend.ready);
    const start = this.#next++;
    const order = ready.map((_, i) => ready[(start + i) % ready.length]!);
    const attempt = (index: number) => {
      const backend = order[index];
      if (backend === undefined || client.destroyed) {
        this.dropped += 1;
        client.destroy();
        return;
      }
      const upstream = connect(backend.port, "127.0.0.1");
      let connected = false;
      upstream.on("error", () => {
        // Refused: the next backend. Once forwarding: the client's loss.
        if (connected) client.destroy();
        else attempt(index + 1);
      });
      upstream.once("connect", () => {
        connected = true;
        backend.connections += 1;
        client.on("close", () => upstream.destroy());
        upstream.pipe(client);
        client.pipe(upstream);
        client.resume();
      });
    };
    attempt(0);
  }
}
