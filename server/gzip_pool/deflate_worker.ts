/**
 * The Web Worker behind `workerGzip` (`worker_pool.ts`): deflates the
 * entries it is sent with its own `CompressionStream("gzip")`, several at
 * once, and posts their gzip members back in pieces, as few messages as it
 * can: one each time a chunk is taken in, none for an entry already ending,
 * whose last message carries all that is left.
 *
 * @module
 */

/** What the worker is sent: an entry's next chunk, its end, or its abort. */
export type GzipWorkerRequest =
  | { id: number; chunk: Uint8Array<ArrayBuffer> }
  | { id: number; end: true }
  | { id: number; abort: true };

/** What the worker posts back of an entry. */
export interface GzipWorkerReply {
  /** The entry's id, as the request gave it. */
  id: number;
  /** How many more of its chunks were taken in. */
  taken: number;
  /** Pieces of its gzip member, in order. */
  data: Uint8Array<ArrayBuffer>[];
  /** Set on the last message: the member is whole. */
  done?: true;
  /** Set on the last message: it failed. */
  error?: string;
}

/** Posted once the worker has loaded: it can take entries. */
export interface GzipWorkerReady {
  /** Always true: the worker is up. */
  ready: true;
}

interface WorkerScope {
  onmessage: ((event: MessageEvent<GzipWorkerRequest>) => void) | null;
  postMessage(
    message: GzipWorkerReply | GzipWorkerReady,
    transfer: Transferable[],
  ): void;
}

/** One entry being deflated. */
interface Job {
  writer: WritableStreamDefaultWriter<Uint8Array<ArrayBuffer>>;
  data: Uint8Array<ArrayBuffer>[];
  transfer: ArrayBuffer[];
  taken: number;
  ending: boolean;
}

const scope = globalThis as unknown as WorkerScope;
const jobs = new Map<number, Job>();

function post(id: number, job: Job, last?: { error: string }): void {
  const reply: GzipWorkerReply = { id, taken: job.taken, data: job.data };
  if (last !== undefined) reply.error = last.error;
  scope.postMessage(reply, job.transfer);
  job.data = [];
  job.transfer = [];
  job.taken = 0;
}

/** Starts an entry's compressor; its output is posted with the replies. */
function start(id: number): Job {
  const gzip = new CompressionStream("gzip");
  const job: Job = {
    writer: gzip.writable.getWriter(),
    data: [],
    transfer: [],
    taken: 0,
    ending: false,
  };
  jobs.set(id, job);
  const reader = gzip.readable.getReader();
  (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const data = value as Uint8Array<ArrayBuffer>;
      if (data.byteOffset === 0 && data.byteLength === data.buffer.byteLength) {
        job.data.push(data);
        job.transfer.push(data.buffer);
      } else job.data.push(data.slice());
    }
    jobs.delete(id);
    scope.postMessage(
      { id, taken: job.taken, data: job.data, done: true },
      job.transfer,
    );
  })().catch((error: unknown) => {
    jobs.delete(id);
    post(id, job, { error: String(error) });
  });
  return job;
}

scope.onmessage = ({ data: message }) => {
  const { id } = message;
  if ("abort" in message) {
    jobs.get(id)?.writer.abort().catch(() => {});
    jobs.delete(id);
    return;
  }
  const job = jobs.get(id) ?? start(id);
  if ("end" in message) {
    job.ending = true;
    job.writer.close().catch(() => {});
    return;
  }
  job.writer.write(message.chunk).then(() => {
    job.taken += 1;
    // An ending entry's last message says it all.
    if (!job.ending) post(id, job);
  }, () => {});
};

// Loaded as a worker (not by a documentation test on the main thread).
if (typeof scope.postMessage === "function") {
  scope.postMessage({ ready: true }, []);
}
