/**
 * The export's gzip compressor on a small pool of Web Workers, for Deno,
 * whose `CompressionStream` (and `node:zlib`) deflate on the main thread:
 * each entry goes to the least busy worker, which deflates it with its own
 * `CompressionStream("gzip")`, so several entries deflate at once, on other
 * cores, while the main thread encodes text and serves requests.
 *
 * @module
 */
import { clearTimeout, setTimeout } from "node:timers";
import type { GzipCompressor, GzipPair } from "../../src/zip/mod.ts";
import type {
  GzipWorkerReady,
  GzipWorkerReply,
  GzipWorkerRequest,
} from "./deflate_worker.ts";

/**
 * Chunks of an entry that may wait in its worker before a write waits: a
 * write resolves at once below it (its bytes copied), so an entry's last
 * chunk and its end go together, with no round trip between.
 */
const CHUNKS_IN_WORKER = 2;

/**
 * Deflated bytes an entry's readable side may hold before its writes wait:
 * a reader that stops stops the entry's writer, as zlib's own does.
 */
const OUTPUT_BYTES = 256 * 1024;

/** One entry's side of its worker's replies. */
interface Pending {
  reply(reply: GzipWorkerReply): void;
  fail(error: Error): void;
}

interface PooledWorker {
  worker: Worker;
  entries: Map<number, Pending>;
  /** Whether it loaded: false when it failed first. */
  ready: Promise<boolean>;
  /** It failed or retired: entries go to the others. */
  dead: boolean;
  /** Called when its last entry is over. */
  idle(): void;
  /** Retires it unless an entry comes first. */
  retirement?: ReturnType<typeof setTimeout>;
}

/** A gzip compressor on workers, and how to stop them. */
export interface WorkerGzip {
  /** Makes an entry's compressor: as `HandlerOptions.exportCompression` takes it. */
  gzip: GzipCompressor;
  /** Terminates the workers; entries in flight error. */
  close(): void;
  /** How many workers are running now. */
  readonly running: number;
}

/** How long a worker with no entry stays, in ms: an isolate is ~50 MiB. */
export const WORKER_IDLE_MS = 10_000;

const WORKER_URL = new URL(
  import.meta.url.endsWith(".ts")
    ? "./deflate_worker.ts"
    : "./deflate_worker.js",
  import.meta.url,
);

function startWorker(url: URL): PooledWorker {
  const worker = new Worker(url, { type: "module" });
  let settle!: (loaded: boolean) => void;
  const pooled: PooledWorker = {
    worker,
    entries: new Map(),
    ready: new Promise((resolve) => settle = resolve),
    dead: false,
    idle: () => {},
  };
  worker.onmessage = (
    { data }: MessageEvent<GzipWorkerReply | GzipWorkerReady>,
  ) => {
    if ("ready" in data) settle(true);
    else pooled.entries.get(data.id)?.reply(data);
  };
  worker.onerror = (event) => {
    event.preventDefault();
    settle(false);
    pooled.dead = true;
    worker.terminate();
    for (const pending of pooled.entries.values()) {
      pending.fail(new Error(`Cannot deflate: ${event.message}`));
    }
    pooled.entries.clear();
  };
  return pooled;
}

/** An entry's compressor on `pooled`, under the id `id`. */
function pooledGzip(pooled: PooledWorker, id: number): GzipPair {
  const post = (message: GzipWorkerRequest, transfer: Transferable[] = []) =>
    pooled.worker.postMessage(message, transfer);
  /** Writes waiting for their chunks to be taken in, oldest first. */
  const waiting: Array<() => void> = [];
  let inWorker = 0;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let failed = false;
  /** Lets writes go on while the worker and the reader keep up. */
  const release = () => {
    while (
      waiting.length > 0 &&
      (failed ||
        inWorker <= CHUNKS_IN_WORKER && (controller.desiredSize ?? 0) > 0)
    ) waiting.shift()!();
  };
  /** Forgets the entry; false when it was over already. */
  const forget = () => {
    if (!pooled.entries.delete(id)) return false;
    if (pooled.entries.size === 0) pooled.idle();
    return true;
  };
  const fail = (error: Error) => {
    forget();
    failed = true;
    controller.error(error);
    release();
  };
  pooled.entries.set(id, {
    reply({ taken, data, done, error }) {
      for (const bytes of data) controller.enqueue(bytes);
      inWorker -= taken;
      release();
      if (error !== undefined) fail(new Error(`Cannot deflate: ${error}`));
      else if (done) {
        forget();
        controller.close();
      }
    },
    fail,
  });
  const abort = () => {
    if (!forget()) return;
    post({ id, abort: true });
  };
  const readable = new ReadableStream<Uint8Array>({
    start: (c) => void (controller = c),
    pull: release,
    cancel: abort,
  }, { highWaterMark: OUTPUT_BYTES, size: (chunk) => chunk.byteLength });
  const writable = new WritableStream<Uint8Array<ArrayBuffer>>({
    write(chunk) {
      // A copy: the ZIP writer reuses its buffers.
      const copy = chunk.slice();
      post({ id, chunk: copy }, [copy.buffer]);
      inWorker += 1;
      if (
        inWorker <= CHUNKS_IN_WORKER && (controller.desiredSize ?? 0) > 0
      ) return;
      return new Promise<void>((resolve) => waiting.push(resolve));
    },
    close() {
      post({ id, end: true });
    },
    abort,
  });
  return { readable, writable };
}

/**
 * A pool of `size` workers (default: one a core, at most 4), started as
 * entries come. Where workers cannot start or load (no `Worker`, no
 * permission to read the worker's module), entries deflate with the main
 * thread's `CompressionStream("gzip")`; a worker that fails later fails its
 * entries in flight and is replaced.
 *
 * A worker left with no entry for `idleMs` is terminated (the next export
 * starts it again), so that a server that exported once does not keep a
 * second isolate's memory for good.
 *
 * @param size How many workers.
 * @param workerUrl The worker's module: `deflate_worker.ts` (or `.js`, built).
 * @param idleMs How long a worker with no entry stays.
 * @returns The compressor factory and `close()`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { workerGzip } from "./worker_pool.ts";
 *
 * if (typeof Worker === "function") {
 *   const pool = workerGzip(1);
 *   const member = new Blob(["hello"]).stream().pipeThrough(await pool.gzip());
 *   const text = (await new Response(member).blob()).stream()
 *     .pipeThrough(new DecompressionStream("gzip"));
 *   assert.equal(await new Response(text).text(), "hello");
 *   pool.close();
 * }
 * ```
 */
export function workerGzip(
  size: number = Math.min(4, navigator.hardwareConcurrency || 1),
  workerUrl: URL = WORKER_URL,
  idleMs: number = WORKER_IDLE_MS,
): WorkerGzip {
  let pool: PooledWorker[] = [];
  let unavailable = false;
  let nextId = 0;
  const retireWhenIdle = (pooled: PooledWorker) => {
    clearTimeout(pooled.retirement);
    pooled.retirement = setTimeout(() => {
      pooled.dead = true;
      pooled.worker.terminate();
      pool = pool.filter((other) => other !== pooled);
    }, idleMs);
    // An idle worker's deadline must not keep the process alive.
    pooled.retirement.unref();
  };
  return {
    async gzip() {
      pool = pool.filter(({ dead }) => !dead);
      if (pool.length < size && !unavailable) {
        try {
          const started = startWorker(workerUrl);
          started.idle = () => retireWhenIdle(started);
          pool.push(started);
        } catch {
          // No workers here (Deno Deploy): the entries deflate in place.
          unavailable = true;
        }
      }
      const pooled = pool.reduce<PooledWorker | undefined>(
        (a, b) => a === undefined || b.entries.size < a.entries.size ? b : a,
        undefined,
      );
      if (pooled === undefined) return new CompressionStream("gzip");
      clearTimeout(pooled.retirement);
      if (!(await pooled.ready)) {
        // It never loaded: the next ones would not either.
        unavailable = true;
        pool = pool.filter((other) => other !== pooled);
        return new CompressionStream("gzip");
      }
      return pooledGzip(pooled, nextId++);
    },
    close() {
      for (const { worker, entries, retirement } of pool.splice(0)) {
        clearTimeout(retirement);
        worker.terminate();
        for (const pending of entries.values()) {
          pending.fail(new Error("Cannot deflate: the workers were closed"));
        }
      }
    },
    get running() {
      return pool.filter(({ dead }) => !dead).length;
    },
  };
}
