/**
 * What every runtime adapter gives back: a listening server that can stop.
 *
 * @module
 */
import type { Handler } from "../handler.ts";

/** Options of a runtime's `serve`. */
export interface ServeOptions {
  /** The port; `0` picks a free one. */
  port: number;
  /** The interface to listen on. */
  hostname: string;
}

/** A server listening for the handler. */
export interface RunningServer {
  /** The address it listens on, e.g. `http://127.0.0.1:8787`. */
  url: string;
  /** The port it listens on (the one picked, for port `0`). */
  port: number;
  /** Stops accepting connections and resolves once in-flight requests end. */
  close(): Promise<void>;
}

/** A runtime's way of serving a handler. */
export type ServeFunction = (
  handler: Handler,
  options: ServeOptions,
) => Promise<RunningServer>;

/**
 * The URL of a listening address.
 *
 * @example
 * ```ts
 * import { serverUrl } from "./server.ts";
 *
 * serverUrl("127.0.0.1", 8787); // "http://127.0.0.1:8787"
 * serverUrl("::1", 8787); // "http://[::1]:8787"
 * ```
 */
export function serverUrl(hostname: string, port: number): string {
  const host = hostname.includes(":") ? `[${hostname}]` : hostname;
  return `http://${host}:${port}`;
}
