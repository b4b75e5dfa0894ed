/**
 * The server's access log lines go out in batches: one write a tick, whole
 * lines in order, and a flush that waits for stdout on shutdown.
 *
 * @module
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setImmediate } from "node:timers";
import {
  batchedLines,
  type LineSink,
} from "../server/observability/log_lines.ts";

/** A sink that records its writes and completes them when told. */
function recordingSink(): LineSink & {
  writes: string[];
  complete: () => void;
} {
  const writes: string[] = [];
  const pending: (() => void)[] = [];
  return {
    writes,
    write(chunk, done) {
      writes.push(chunk);
      pending.push(() => done());
    },
    complete: () => {
      for (const done of pending.splice(0)) done();
    },
  };
}

/** Resolves after the immediates queued so far (the writer's flush). */
const nextTick = () => new Promise((resolve) => setImmediate(resolve));

describe("batched log lines", () => {
  it("writes the lines of one tick in one write, each whole, in order", async () => {
    const sink = recordingSink();
    const log = batchedLines(sink);
    for (let i = 0; i < 100; i += 1) log.write(`{"line":${i}}`);
    const { writes } = sink;
    assert.equal(writes.join(""), "", "nothing is written before the tick");
    await nextTick();
    assert.equal(writes.length, 1);
    const lines = String(writes[0]).split("\n");
    assert.equal(lines.pop(), "", "the batch ends with a newline");
    assert.deepEqual(
      lines.map((line) => JSON.parse(line).line),
      Array.from({ length: 100 }, (_, i) => i),
    );
  });

  it("writes later ticks' lines in later writes, in order", async () => {
    const sink = recordingSink();
    const log = batchedLines(sink);
    log.write("a");
    await nextTick();
    log.write("b");
    log.write("c");
    await nextTick();
    assert.deepEqual(sink.writes, ["a\n", "b\nc\n"]);
  });

  it("flush writes at once and resolves only when the sink took the batch", async () => {
    const sink = recordingSink();
    const log = batchedLines(sink);
    log.write("last");
    let flushed = false;
    const flushing = log.flush().then(() => flushed = true);
    assert.deepEqual(sink.writes, ["last\n"]);
    await nextTick();
    assert.equal(flushed, false, "the sink has not completed the write");
    sink.complete();
    await flushing;
    assert.equal(flushed, true);
    await nextTick();
    assert.deepEqual(sink.writes, ["last\n"], "nothing is written twice");
  });

  it("flush with nothing queued resolves without writing", async () => {
    const sink = recordingSink();
    await batchedLines(sink).flush();
    assert.deepEqual(sink.writes, []);
  });
});
