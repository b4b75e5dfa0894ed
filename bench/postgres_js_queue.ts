/**
 * What postgres.js's `Queue` (`src/queue.js`) costs as a saturated pool uses
 * it, the published 3.4.9 against the fix proposed in docs/postgres-js.md:
 * ten connections in a queue that never empties, each statement taking one
 * (`shift`), looking for it again (`remove`, which misses: it was shifted)
 * and putting it back (`push`), as `handler`, `go` and `move` of
 * `src/index.js` do with the `busy` queue when statements outnumber
 * connections. Printed: ns a cycle over each block of `BENCH_CYCLES`
 * (default 20000) cycles, `BENCH_BLOCKS` (default 8) blocks in a row, and the
 * last block's as a ratio to the first's. The published one grows with every
 * cycle since the queue was last empty; the proposed one stays flat.
 *
 * Run: `node bench/postgres_js_queue.ts [other/queue.js ...]` (each path
 * given, e.g. a patched checkout's `src/queue.js`, is measured too).
 *
 * @module
 */
import process from "node:process";
import {
  loadQueue,
  proposedQueueFile,
  PUBLISHED_QUEUE,
} from "../test/support/postgres_js_queue.ts";

const CYCLES = Number(process.env.BENCH_CYCLES ?? 20_000);
const BLOCKS = Number(process.env.BENCH_BLOCKS ?? 8);
const files: Record<string, string> = {
  published: PUBLISHED_QUEUE,
  proposed: proposedQueueFile(),
  ...Object.fromEntries(process.argv.slice(2).map((file) => [file, file])),
};

console.log(`${BLOCKS} blocks of ${CYCLES} cycles, ns a cycle`);
console.log("| queue.js | each block | last / first |");
console.log("| --- | --- | --- |");
for (const [name, file] of Object.entries(files)) {
  const Queue = await loadQueue(file);
  const busy = Queue(Array.from({ length: 10 }, (_, id) => ({ id })));
  const blocks: number[] = [];
  for (let block = 0; block < BLOCKS; block += 1) {
    const started = performance.now();
    for (let cycle = 0; cycle < CYCLES; cycle += 1) {
      const connection = busy.shift()!;
      busy.remove(connection);
      busy.push(connection);
    }
    blocks.push((performance.now() - started) * 1e6 / CYCLES);
  }
  console.log(
    `| ${name} | ${blocks.map((ns) => ns.toFixed(0)).join(", ")} | ${
      (blocks.at(-1)! / blocks[0]!).toFixed(1)
    }x |`,
  );
}
