/**
 * The export's gzip compressor on `node:zlib`, for the runtimes whose zlib
 * runs on a thread pool (Node's libuv pool, Bun's "Bun Pool"): a
 * `zlib.createGzip()` behind two small web streams of our own, instead of
 * Node's `CompressionStream`, whose stream adapter
 * (`newReadableWritablePairFromDuplex`) costs the main thread most of its
 * time in the export. Several entries still deflate at once, on the pool.
 * `node:zlib` is loaded at the first export, not at start: on Bun loading it
 * costs a sixth of a start's CPU.
 *
 * @module
 */
import { createRequire } from "node:module";
import type { GzipPair } from "../../src/zip/mod.ts";

/** Loads a built-in module when first needed (`process.getBuiltinModule` is Node 22.3+). */
const load = createRequire(import.meta.url);

/** zlib's default level, as every `CompressionStream` uses. */
const LEVEL = 6;

/**
 * A gzip compressor on `node:zlib`, level 6: what a server hands the core as
 * `HandlerOptions.gzip`. A write resolves once zlib has taken the chunk in
 * whole; deflated data waits in zlib (it pauses) until the readable side is
 * read.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { gunzipSync } from "node:zlib";
 * import { zlibGzip } from "./zlib.ts";
 *
 * const member = new Blob(["hello, hello"]).stream().pipeThrough(zlibGzip());
 * const bytes = new Uint8Array(await new Response(member).arrayBuffer());
 * assert.equal(gunzipSync(bytes).toString(), "hello, hello");
 * ```
 */
export const zlibGzip = (): GzipPair => {
  const zlib: typeof import("node:zlib") = load("node:zlib");
  const gzip = zlib.createGzip({ level: LEVEL });
  const readable = new ReadableStream<Uint8Array>({
    start(controller) {
      gzip.on("data", (chunk: Uint8Array) => {
        controller.enqueue(chunk);
        if ((controller.desiredSize ?? 0) <= 0) gzip.pause();
      });
      gzip.once("end", () => controller.close());
      gzip.once("error", (error) => controller.error(error));
    },
    pull() {
      gzip.resume();
    },
    cancel(reason) {
      gzip.destroy(reason instanceof Error ? reason : undefined);
    },
  });
  const writable = new WritableStream<Uint8Array<ArrayBuffer>>({
    write: (chunk) =>
      new Promise<void>((resolve, reject) => {
        gzip.write(chunk, (error) => error ? reject(error) : resolve());
      }),
    close: () =>
      new Promise<void>((resolve, reject) => {
        gzip.once("error", reject);
        gzip.end(resolve);
      }),
    abort(reason) {
      gzip.destroy(reason instanceof Error ? reason : undefined);
    },
  });
  return { readable, writable };
};
