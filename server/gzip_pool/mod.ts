/**
 * How the server's bulk export deflates, per runtime: off the main thread
 * everywhere. Node and Bun run `node:zlib` on their thread pools
 * ({@linkcode zlibDeflater}) and encode text with `Buffer#utf8Write`; Deno,
 * whose `CompressionStream` and `node:zlib` both deflate on the main thread,
 * a pool of Web Workers ({@linkcode workerGzip}). With entries deflating in parallel, the writer
 * reads 256 KiB of text ahead instead of 64 KiB, so that every thread has an
 * entry to work on.
 *
 * @module
 */
import type { ZipCompression } from "../../src/zip/mod.ts";
import { type RuntimeName, runtimeName } from "../runtimes/mod.ts";

/** Text the writer may read ahead when entries deflate in parallel. */
const PARALLEL_READ_AHEAD_BYTES = 256 * 1024;

/** The export's compression on this server, and how to stop it. */
export interface ServerCompression {
  /** What `createHandler` takes as `exportCompression`. */
  compression: ZipCompression;
  /** Stops the workers, if any. */
  close(): void;
}

/**
 * The export's compression for a runtime: `node:zlib` on Node and Bun, Web
 * Workers on Deno (the runtime's own `CompressionStream` where there is no
 * `Worker`). Modules are loaded on their runtime only.
 *
 * @param runtime The runtime; default the one running this.
 * @returns The compression, and `close()` for shutdown.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { exportCompression } from "./mod.ts";
 *
 * const { compression, close } = await exportCompression();
 * assert.equal(compression.readAheadBytes, 256 * 1024);
 * close();
 * ```
 */
export async function exportCompression(
  runtime: RuntimeName = runtimeName(),
): Promise<ServerCompression> {
  if (runtime !== "deno") {
    const { zlibDeflater } = await import("./zlib.ts");
    const { bufferUtf8Write } = await import("./utf8_write.ts");
    return {
      compression: {
        deflater: zlibDeflater,
        readAheadBytes: PARALLEL_READ_AHEAD_BYTES,
        utf8Write: bufferUtf8Write,
      },
      close: () => {},
    };
  }
  if (typeof Worker !== "function") return { compression: {}, close: () => {} };
  const { workerGzip } = await import("./worker_pool.ts");
  const pool = workerGzip();
  return {
    compression: {
      gzip: pool.gzip,
      readAheadBytes: PARALLEL_READ_AHEAD_BYTES,
    },
    close: pool.close,
  };
}
