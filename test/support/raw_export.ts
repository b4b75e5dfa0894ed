/**
 * A bulk export over a raw connection whose reading the test controls: it
 * stops reading after its first bytes, and can read the rest later,
 * de-chunked. Fetch clients differ (Deno's reads a body ahead of its
 * reader), a socket does not.
 *
 * The first bytes are read through a buffer no larger than they are, so
 * that the connection's buffers keep their first size and the server soon
 * feels a reader that stopped. Linux grows a receive buffer when one read
 * takes more than the window it started with (64 KiB on loopback): Bun's
 * socket reads all that has arrived, so a test process scheduled late took
 * about 100 KB at once and the kernel grew the buffer to about 4 MB, enough,
 * beside the server's send buffer, to take a whole 7.6 MB export unread.
 *
 * @module
 */
import { connect, type Socket } from "node:net";

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** The most one read takes once the first bytes came (as libuv reads). */
const READ_BYTES = 64 * 1024;

/** A bulk export request sent over its own socket. */
export class RawExport {
  readonly socket: Socket;
  /** Bytes received so far, headers included. */
  received = 0;
  readonly #chunks: Uint8Array[] = [];
  readonly closed: Promise<void>;
  #paused = false;
  /** Whether to pause again after the next chunk (see `trickle`). */
  #oneChunk = false;

  /**
   * Sends `POST /v1/call/message/bulk` for `callIds`; stops reading once
   * `pauseAfter` bytes came.
   */
  constructor(
    port: number,
    token: string,
    callIds: readonly string[],
    pauseAfter: number,
  ) {
    const body = JSON.stringify({ call_ids: callIds });
    this.socket = connect({
      port,
      host: "127.0.0.1",
      onread: {
        // Asked for before each read: until paused, no more than is wanted.
        buffer: () =>
          new Uint8Array(
            this.#paused
              ? READ_BYTES
              : Math.min(Math.max(pauseAfter - this.received, 1), READ_BYTES),
          ),
        // Returning false pauses the socket.
        callback: (bytes: number, buffer: Uint8Array) => {
          this.received += bytes;
          this.#chunks.push(buffer.slice(0, bytes));
          if (this.received >= pauseAfter && !this.#paused) {
            this.#paused = true;
            return false;
          }
          if (this.#oneChunk) {
            this.#oneChunk = false;
            return false;
          }
          return true;
        },
      },
    });
    this.socket.on("error", () => {});
    this.closed = new Promise((done) => this.socket.on("close", () => done()));
    this.socket.write(
      "POST /v1/call/message/bulk HTTP/1.1\r\nhost: x\r\n" +
        `authorization: Bearer ${token}\r\n` +
        "content-type: application/json\r\n" +
        `content-length: ${body.length}\r\n\r\n${body}`,
    );
  }

  /** Resolves once `bytes` have arrived; `false` if not within `ms`. */
  async receivedAtLeast(bytes: number, ms = 10_000): Promise<boolean> {
    for (const end = Date.now() + ms; Date.now() < end; await sleep(10)) {
      if (this.received >= bytes) return true;
    }
    return false;
  }

  /**
   * Reads at about `bytesPerSecond` from now on (one read of the socket at a
   * time, of up to 64 KiB, whenever it is behind that rate), a slow reader
   * that never quite stalls, until the returned function is called.
   */
  trickle(bytesPerSecond: number): () => void {
    const start = performance.now();
    const from = this.received;
    const timer = setInterval(() => {
      const due = (performance.now() - start) / 1000 * bytesPerSecond;
      if (this.received - from >= due) return;
      this.#oneChunk = true;
      this.socket.resume();
    }, 20);
    return () => clearInterval(timer);
  }

  /** The status line and headers received, as text. */
  get head(): string {
    const text = new TextDecoder("latin1").decode(this.#all());
    return text.slice(0, text.indexOf("\r\n\r\n"));
  }

  /**
   * Reads on to the end of the connection or of the body; resolves with
   * the body de-chunked, or `undefined` when the body's last chunk never
   * came (the server cut it).
   */
  async rest(): Promise<Uint8Array | undefined> {
    this.socket.resume();
    let closed = false;
    void this.closed.then(() => closed = true);
    for (;;) {
      if (closed || this.#endsWithLastChunk()) {
        const body = dechunk(this.#all());
        if (body !== undefined || closed) return body;
      }
      await sleep(20);
    }
  }

  #endsWithLastChunk(): boolean {
    const last = this.#chunks.at(-1);
    if (last === undefined || last.byteLength < 5) return false;
    const tail = new TextDecoder("latin1").decode(last.subarray(-5));
    return tail === "0\r\n\r\n";
  }

  #all(): Uint8Array {
    const all = new Uint8Array(this.received);
    let at = 0;
    for (const chunk of this.#chunks) {
      all.set(chunk, at);
      at += chunk.byteLength;
    }
    return all;
  }
}

/** A chunked HTTP response's body, or `undefined` until it is complete. */
function dechunk(response: Uint8Array): Uint8Array | undefined {
  const text = new TextDecoder("latin1").decode(response);
  let at = text.indexOf("\r\n\r\n") + 4;
  if (at < 4) return undefined;
  const parts: Uint8Array[] = [];
  for (;;) {
    const lineEnd = text.indexOf("\r\n", at);
    if (lineEnd < 0) return undefined;
    const size = parseInt(text.slice(at, lineEnd), 16);
    if (Number.isNaN(size)) return undefined;
    if (size === 0) break;
    const start = lineEnd + 2;
    if (start + size + 2 > response.byteLength) return undefined;
    parts.push(response.subarray(start, start + size));
    at = start + size + 2;
  }
  const body = new Uint8Array(parts.reduce((sum, p) => sum + p.byteLength, 0));
  let offset = 0;
  for (const part of parts) {
    body.set(part, offset);
    offset += part.byteLength;
  }
  return body;
}
