/**
 * Ports for servers that cannot take port 0 (PgBouncer, PostgreSQL): picked
 * at random from a range kept for these tests, and checked free.
 *
 * @module
 */
import { createServer } from "node:net";

/** The range these tests' PgBouncer and PostgreSQL clusters listen in. */
const PORTS = { from: 44100, to: 44999 };

/**
 * A port of the range that nothing listens on now, on 127.0.0.1 (another
 * process may still take it before the caller does: retry on failure).
 *
 * @example
 * ```ts ignore
 * const port = await freePortInRange();
 * ```
 */
export async function freePortInRange(): Promise<number> {
  for (;;) {
    const port = PORTS.from +
      Math.floor(Math.random() * (PORTS.to - PORTS.from + 1));
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once("error", () => resolve(false));
      server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
}
