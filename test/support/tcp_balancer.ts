/**
 * A small TCP load balancer, as a test puts one in front of several
 * instances: it polls each backend's `/readyz` and sends each new client
 * connection to the next ready backend, round robin; a backend that refuses
 * the connection is skipped for the next one (as nginx's stream module and
 * HAProxy's `redispatch` do). It never retries what it has forwarded.
 *
 * Each backend is probed one probe at a time (an answer that comes late
 * never overrides a newer one). A backend answering anything but 200 is
 * taken out at once; one whose probes fail (refused, or no answer within
 * `probeTimeoutMs`) is taken out after {@linkcode FALL} failures in a row,
 * as HAProxy's `fall 3` does: on a loaded machine a ready backend may be
 * slow to answer, and taking out the only one left would drop connections.
 *
 * @module
 */
import { connect, createServer, type Server, type Socket } from "node:net";

/** Failed probes in a row that take a backend out (HAProxy's default). */
const FALL = 3;

/** One backend and what the balancer knows of it. */
export interface Backend {
  port: number;
  /** Whether its last `/readyz` answered 200. */
  ready: boolean;
  /** Client connections sent to it. */
  connections: number;
  /** Probes failed in a row (refused or unanswered). */
  failures: number;
  /** When the last probe answered 200 was sent (`performance.now()`). */
  readySince: number;
}

/** A running balancer. */
export class TcpBalancer {
  readonly backends: Backend[];
  readonly pollMs: number;
  readonly probeTimeoutMs: number;
  /** Client connections no backend would take. */
  dropped = 0;
  readonly #servers: Server[] = [];
  readonly #clients = new Set<Socket>();
  #next = 0;
  #closed = false;

  /**
   * Starts balancing over backends on 127.0.0.1 at `ports`, probing their
   * `/readyz` `pollMs` after each probe's answer, each probe given
   * `probeTimeoutMs`.
   */
  constructor(ports: number[], pollMs = 100, probeTimeoutMs = 2000) {
    this.pollMs = pollMs;
    this.probeTimeoutMs = probeTimeoutMs;
    this.backends = ports.map((port) => ({
      port,
      ready: false,
      connections: 0,
      failures: 0,
      readySince: -Infinity,
    }));
  }

  /**
   * Listens on a free port; resolves with it. Called again, listens on one
   * more port (a client of its own there has a connection pool of its own);
   * the backends are probed from the first call on.
   */
  async listen(): Promise<number> {
    const server = createServer((client) => this.#route(client));
    this.#servers.push(server);
    await new Promise<void>((resolve) =>
      server.listen(0, "127.0.0.1", resolve)
    );
    if (this.#servers.length === 1) {
      await Promise.all(this.backends.map((backend) => this.#probe(backend)));
      for (const backend of this.backends) void this.#poll(backend);
    }
    return (server.address() as { port: number }).port;
  }

  /**
   * Resolves once a probe sent after this call finds the backend on `port`
   * ready (an earlier answer may be of an instance since stopped). `ms`
   * bounds a backend that never gets ready: a loaded machine may take many
   * times a quiet one's start.
   */
  async ready(port: number, ms = 120_000): Promise<void> {
    const backend = this.backends.find((each) => each.port === port)!;
    const asked = performance.now();
    for (const end = Date.now() + ms; Date.now() < end;) {
      if (backend.ready && backend.readySince >= asked) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`Backend ${port} not ready within ${ms} ms`);
  }

  /** Stops polling and listening, and closes every connection. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const client of this.#clients) client.destroy();
    await Promise.all(
      this.#servers.map((server) =>
        new Promise((resolve) => server.close(resolve))
      ),
    );
  }

  /** Probes `backend` until closed, `pollMs` after each answer. */
  async #poll(backend: Backend): Promise<void> {
    while (!this.#closed) {
      await new Promise((resolve) => setTimeout(resolve, this.pollMs));
      if (!this.#closed) await this.#probe(backend);
    }
  }

  async #probe(backend: Backend): Promise<void> {
    const sent = performance.now();
    try {
      const response = await fetch(
        `http://127.0.0.1:${backend.port}/readyz`,
        { signal: AbortSignal.timeout(this.probeTimeoutMs) },
      );
      await response.arrayBuffer();
      backend.ready = response.status === 200;
      if (backend.ready) backend.readySince = sent;
      backend.failures = 0;
    } catch {
      backend.failures += 1;
      if (backend.failures >= FALL) backend.ready = false;
    }
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
