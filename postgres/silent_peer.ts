/**
 * Noticing a database that fell silent. When the primary's host vanishes (a
 * failover, a dead VM, a dropped route), its connections see no FIN and no
 * RST: packets go nowhere, and a statement waits for an answer that never
 * comes. TCP keepalive notices only after minutes (the kernel's probe
 * interval and count, which Node, Deno and Bun cannot set per socket), and a
 * relay or pooler in the path keeps answering at the TCP level anyway.
 *
 * So the pool's sockets are watched at the protocol level: a connection that
 * awaits an answer (a statement sent, its `ReadyForQuery` not yet received)
 * and receives no byte at all for the bound is destroyed, failing what it
 * carried, and postgres.js opens a fresh one for what comes next. A long
 * answer that keeps arriving (an export's batch) is progress and is never
 * cut; an idle connection awaits nothing and is never cut either.
 *
 * @module
 */
import { connect, type Socket } from "node:net";
import { setImmediate } from "node:timers";
import { markStuck } from "./stuck_pools.ts";

/** What postgres.js hands its `socket` option: the pool's parsed options. */
export interface SocketTarget {
  /** The hosts of the URL (several for `host1,host2`). */
  host: readonly string[];
  /** Their ports. */
  port: readonly number[];
  /** A Unix socket's path, when the host is a directory. */
  path?: string | false | undefined;
  /** The TLS setting; a TLS connection is not watched (see below). */
  ssl?: unknown;
}

/** A socket factory for postgres.js's `socket` option. */
export type SocketFactory = (target: SocketTarget) => Socket;

/**
 * Milliseconds after which a socket postgres.js asked for and never wrote to
 * is taken as stuck (checked once the event loop's pending immediates ran).
 */
const STUCK_AFTER_MS = 100;

/** The type bytes of the frames that count: Sync, Query, ReadyForQuery. */
const SYNC = 0x53;
const QUERY = 0x51;
const READY_FOR_QUERY = 0x5a;

/**
 * Counts the frames of given types in a stream of protocol messages (a type
 * byte, then a 4-byte length that counts itself), whatever the chunking.
 * The first message of the client's stream (startup, SSL or cancel request)
 * has no type byte: `untypedFirst` skips it.
 */
class FrameCounter {
  readonly #types: ReadonlySet<number>;
  #untyped: boolean;
  /** Bytes of the current frame's header read so far (type + length). */
  #header: number[] = [];
  /** Bytes of the current frame's body still to skip. */
  #skip = 0;

  constructor(types: readonly number[], untypedFirst: boolean) {
    this.#types = new Set(types);
    this.#untyped = untypedFirst;
  }

  /** Feeds `bytes`; returns how many counted frames began in them. */
  feed(bytes: Uint8Array): number {
    let counted = 0;
    let at = 0;
    while (at < bytes.length) {
      if (this.#skip > 0) {
        const skipped = Math.min(this.#skip, bytes.length - at);
        this.#skip -= skipped;
        at += skipped;
        continue;
      }
      this.#header.push(bytes[at++]!);
      const headerLength = this.#untyped ? 4 : 5;
      if (this.#header.length < headerLength) continue;
      const [a, b, c, d] = this.#header.slice(headerLength - 4);
      const length = ((a! << 24) | (b! << 16) | (c! << 8) | d!) >>> 0;
      if (!this.#untyped && this.#types.has(this.#header[0]!)) counted += 1;
      // The length counts itself; an untyped message counts it too.
      this.#skip = Math.max(0, length - 4);
      this.#header = [];
      this.#untyped = false;
    }
    return counted;
  }
}

/**
 * A postgres.js `socket` option that watches each connection it opens:
 * one that awaits an answer and receives nothing for `ms` milliseconds is
 * destroyed with an error, so that what it carried fails and postgres.js
 * replaces it. The error's `code` says what is safe to do next:
 * `CONNECT_TIMEOUT` when the server never said a word (no statement can have
 * reached it), `ETIMEDOUT` when it fell silent mid-session (a statement may
 * have run). TLS connections are opened unwatched (postgres.js wraps the
 * socket itself, out of reach): they rely on the store's deadline.
 *
 * @param ms The silence bound, in milliseconds; keep it well above the time
 *   the slowest statement takes to send its first row.
 * @returns The factory, for `connectPostgres(url, { socket })` (postgres.js's
 *   `socket` option).
 *
 * @example Silence fails the statement and closes the connection
 * ```ts
 * import assert from "node:assert/strict";
 * import { createServer } from "node:net";
 * import { connectPostgres } from "./connect.ts";
 * import { watchedSockets } from "./silent_peer.ts";
 *
 * // A "server" that accepts connections and never answers, as a vanished
 * // host behind a relay does.
 * const silent = createServer(() => {});
 * await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
 * const { port } = silent.address() as { port: number };
 * const sql = connectPostgres(`postgres://u@127.0.0.1:${port}/db`, {
 *   socket: watchedSockets(200),
 *   connectTimeout: 30,
 * });
 * const started = performance.now();
 * await assert.rejects(sql`SELECT 1`, { code: "CONNECT_TIMEOUT" });
 * assert.ok(performance.now() - started < 5000);
 * await sql.end({ timeout: 0 });
 * silent.close();
 * ```
 */
export function watchedSockets(ms: number): SocketFactory {
  let next = 0;
  return (target) => {
    const index = next++ % target.host.length;
    const host = target.host[index]!;
    const port = target.port[index] ?? target.port[0]!;
    const socket = target.path ? connect(target.path) : connect({ host, port });
    // postgres.js names TLS's servername and its errors after these.
    Object.assign(socket, { host, port });
    const where = target.path || `${host}:${port}`;
    failIfNeverWritten(socket, target, where);
    if (!target.ssl) watch(socket, ms, where);
    return socket;
  };
}

/**
 * Destroys `socket` with a stuck connection's error when postgres.js has not
 * written to it by the time the timers and immediates queued after its
 * creation ran (postgres.js writes the startup message in an immediate it
 * queues as it receives the socket).
 */
function failIfNeverWritten(
  socket: Socket,
  target: SocketTarget,
  where: string,
): void {
  let written = false;
  const write = socket.write;
  socket.write = function (this: Socket, ...args: unknown[]) {
    written = true;
    return Reflect.apply(write, this, args);
  } as Socket["write"];
  const check = () => {
    if (written || socket.destroyed) return;
    const error = Object.assign(
      new Error(
        `Cannot connect to Postgres: the driver never wrote to its connection to ${where} (porsager/postgres#1215); the pool is replaced`,
      ),
      { code: "CONNECT_TIMEOUT" },
    );
    markStuck(error, target);
    socket.destroy(error);
  };
  setTimeout(() => setImmediate(check), STUCK_AFTER_MS);
}

/** Destroys `socket` once it awaits an answer and is silent for `ms`. */
function watch(socket: Socket, ms: number, where: string): void {
  const sent = new FrameCounter([SYNC, QUERY], true);
  const received = new FrameCounter([READY_FOR_QUERY], false);
  /** Answers still due: the startup's, then one per Sync or Query. */
  let due = 0;
  /** Something was written since the last byte arrived (a Flush's wait). */
  let unanswered = false;
  let heard = false;
  let first = true;
  let since = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const awaiting = () => due > 0 || unanswered;
  const check = () => {
    timer = undefined;
    if (!awaiting() || socket.destroyed) return;
    const silentFor = performance.now() - since;
    if (silentFor < ms) {
      timer = setTimeout(check, ms - silentFor);
      return;
    }
    socket.destroy(silenceError(heard, ms, where));
  };
  const write = socket.write;
  socket.write = function (this: Socket, chunk: unknown, ...rest: unknown[]) {
    if (chunk instanceof Uint8Array) {
      const wasAwaiting = awaiting();
      due += sent.feed(chunk) + (first ? 1 : 0);
      first = false;
      unanswered = true;
      if (!wasAwaiting) since = performance.now();
      timer ??= setTimeout(check, ms);
    }
    return Reflect.apply(write, this, [chunk, ...rest]);
  } as Socket["write"];
  socket.on("data", (chunk: Uint8Array) => {
    heard = true;
    unanswered = false;
    since = performance.now();
    due = Math.max(0, due - received.feed(chunk));
  });
  socket.once("close", () => clearTimeout(timer));
}

/** The error a silent connection is destroyed with. */
function silenceError(heard: boolean, ms: number, where: string): Error {
  return Object.assign(
    new Error(
      heard
        ? `Postgres fell silent: no answer within ${ms} ms on a connection to ${where}; it is closed`
        : `Cannot connect to Postgres: no answer within ${ms} ms from ${where}`,
    ),
    { code: heard ? "ETIMEDOUT" : "CONNECT_TIMEOUT" },
  );
}
