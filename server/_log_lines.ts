/**
 * Log lines written to stdout in batches: the lines of one turn of the event
 * loop go out in one write, whole and in the order they were logged, instead
 * of one console call (and one system call) per line.
 *
 * @module
 */
import process from "node:process";
import { setImmediate } from "node:timers";

/** A batching line writer. */
export interface LineWriter {
  /** Queues one line (without its newline); it is written within the tick. */
  write(line: string): void;
  /** Writes what is queued now (before the process exits). */
  flush(): void;
}

/**
 * Batches lines into one `write` a tick. Each write holds whole lines, each
 * ended by a newline, in the order they were queued.
 *
 * @param write Where each batch goes. Default: stdout, whose writes Node,
 * Deno and Bun make synchronously for files and pipes, so a flush on exit
 * loses nothing.
 * @returns The writer.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { batchedLines } from "./_log_lines.ts";
 *
 * const writes: string[] = [];
 * const log = batchedLines((chunk) => writes.push(chunk));
 * log.write("one");
 * log.write("two");
 * assert.deepEqual(writes, []);
 * await new Promise((resolve) => setTimeout(resolve, 10));
 * assert.deepEqual(writes, ["one\ntwo\n"]);
 * ```
 */
export function batchedLines(
  write: (chunk: string) => void = (chunk) => process.stdout.write(chunk),
): LineWriter {
  let queued = "";
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (queued === "") return;
    const chunk = queued;
    queued = "";
    write(chunk);
  };
  return {
    write(line) {
      queued += line + "\n";
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    flush,
  };
}
