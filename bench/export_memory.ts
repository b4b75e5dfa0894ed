/**
 * Where the export's memory goes, in process, without HTTP or a store: the
 * 500 calls of the bench data are written by `transcriptArchive` (the
 * export's own code) and read to the end, twice, while the process's memory
 * is sampled at every chunk read. Prints the peak growth over the idle
 * process of the RSS, the JavaScript heap and the ArrayBuffers.
 *
 * With `BENCH_GC_EVERY=n` (Node and Deno with `--expose-gc`, Bun through
 * `Bun.gc`), a full collection runs every n chunks read: the growth left is
 * what the export holds live, the rest was garbage awaiting collection.
 *
 * Run: `node --expose-gc bench/export_memory.ts`,
 * `deno run -A --v8-flags=--expose-gc bench/export_memory.ts`,
 * `bun bench/export_memory.ts`. `BENCH_MESSAGES` (default 200) sets the
 * messages per call.
 *
 * @module
 */
import process from "node:process";
import { transcriptArchive } from "../src/operations/transcript_archive.ts";
import type { TranscriptChunk } from "../src/store/store.ts";
import { benchData, MESSAGES } from "./export_data.ts";

const GC_EVERY = Number(process.env.BENCH_GC_EVERY ?? 0);
const MiB = 1024 * 1024;

function collect(): void {
  (globalThis as { gc?: () => void }).gc?.();
  (globalThis as { Bun?: { gc(force: boolean): void } }).Bun?.gc(true);
}

const chunks: TranscriptChunk[] = (benchData().fixtures.calls ?? []).map((
  call,
) => ({
  callId: call.call_id,
  messages: (call.messages ?? []).map((message) => JSON.stringify(message)),
}));
collect();
const idle = process.memoryUsage();
const peak = { rss: 0, heapUsed: 0, arrayBuffers: 0 };
let bytes = 0;
for (let run = 0; run < 2; run += 1) {
  const reader = transcriptArchive(chunks[0]!, after(chunks[0]!), {
    lastModified: new Date(),
    onError: console.error,
  }).getReader();
  bytes = 0;
  for (let reads = 1;; reads += 1) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.length;
    if (GC_EVERY > 0 && reads % GC_EVERY === 0) collect();
    const now = process.memoryUsage();
    peak.rss = Math.max(peak.rss, now.rss - idle.rss);
    peak.heapUsed = Math.max(peak.heapUsed, now.heapUsed - idle.heapUsed);
    peak.arrayBuffers = Math.max(
      peak.arrayBuffers,
      now.arrayBuffers - idle.arrayBuffers,
    );
  }
}
const runtime = "Bun" in globalThis
  ? "bun"
  : "Deno" in globalThis
  ? "deno"
  : "node";
console.log(
  `| ${runtime} | ${MESSAGES} | ${GC_EVERY || "–"} | ${
    (bytes / MiB).toFixed(1)
  } | ${(peak.rss / MiB).toFixed(0)} | ${(peak.heapUsed / MiB).toFixed(0)} | ${
    (peak.arrayBuffers / MiB).toFixed(0)
  } |`,
);

/** The chunks after `first`, as the store would yield them. */
async function* after(first: TranscriptChunk): AsyncGenerator<TranscriptChunk> {
  yield* chunks.slice(chunks.indexOf(first) + 1);
}
