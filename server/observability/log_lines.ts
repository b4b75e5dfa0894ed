/**
 * Log lines written to stdout in batches: the lines of one turn of the event
 * loop go out in one write, whole and in the order they were logged, instead
 * of one console call (and one system call) per line. Neither the writer nor
 * {@link stdoutIsTerminal} touches `process.stdout` before the first line:
 * on Bun, that stream loads Node's stream modules, a quarter of a start's
 * CPU; on Deno, 4 ms of CPU.
 *
 * @module
 */
import process from "node:process";

/** Where batches go: a writable stream such as `process.stdout`. */
export interface LineSink {
  /** Writes a chunk; calls `done` once the chunk was handed to the system. */
  write(chunk: string, done: (error?: Error | null) => void): unknown;
}

/** A batching line writer. */
export interface LineWriter {
  /** Queues one line (without its newline); it is written within the tick. */
  write(line: string): void;
  /**
   * Writes what is queued now; resolves once the sink took it (on shutdown:
   * stdout may be a pipe whose reader is behind, and exiting before the
   * write completes would lose the last lines).
   */
  flush(): Promise<void>;
}

/** Bun's `process.binding`, which Node's types no longer declare. */
interface BunProcess {
  binding(name: "tty_wrap"): { isTTY?: (fd: number) => boolean };
}

/** The part of Deno's global this module reads. */
interface DenoStdout {
  Deno?: { stdout?: { isTerminal?: () => boolean } };
}

/**
 * Whether stdout is a terminal, read without creating `process.stdout`: on
 * Bun from its `tty_wrap` binding (what its own `isTTY` reads), on Deno from
 * `Deno.stdout`, on Node from `process.stdout`, which Node creates cheaply.
 *
 * @returns `true` on a terminal.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import process from "node:process";
 * import { stdoutIsTerminal } from "./log_lines.ts";
 *
 * assert.equal(stdoutIsTerminal(), process.stdout.isTTY === true);
 * ```
 */
export function stdoutIsTerminal(): boolean {
  const { Deno } = globalThis as DenoStdout;
  if (typeof Deno?.stdout?.isTerminal === "function") {
    return Deno.stdout.isTerminal();
  }
  if ("Bun" in globalThis) {
    try {
      const { binding } = process as unknown as BunProcess;
      const isTTY = binding("tty_wrap").isTTY;
      if (typeof isTTY === "function") return isTTY(1);
    } catch {
      // A Bun without the binding: its process.stdout answers.
    }
  }
  return process.stdout.isTTY === true;
}

/**
 * Batches lines into one write a tick. Each write holds whole lines, each
 * ended by a newline, in the order they were queued.
 *
 * @param sink Where each batch goes. Default: stdout, taken at the first
 * write.
 * @returns The writer.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { batchedLines } from "./log_lines.ts";
 *
 * const writes: string[] = [];
 * const log = batchedLines({
 *   write: (chunk, done) => {
 *     writes.push(chunk);
 *     done();
 *   },
 * });
 * log.write("one");
 * log.write("two");
 * assert.deepEqual(writes, []);
 * await log.flush();
 * assert.deepEqual(writes, ["one\ntwo\n"]);
 * ```
 */
export function batchedLines(sink?: LineSink): LineWriter {
  let queued = "";
  let scheduled = false;
  const flush = () =>
    new Promise<void>((resolve) => {
      scheduled = false;
      if (queued === "") return resolve();
      const chunk = queued;
      queued = "";
      // A failed write (stdout closed) has nowhere to be reported.
      (sink ??= process.stdout).write(chunk, () => resolve());
    });
  return {
    write(line) {
      queued += line + "\n";
      if (!scheduled) {
        scheduled = true;
        // The global: Bun's node:timers costs 0.5 ms of a start to load.
        globalThis.setImmediate(flush);
      }
    },
    flush,
  };
}

/** The part of Bun's `FileSink` {@linkcode stdoutSink} uses. */
interface BunWriter {
  write(chunk: string): number;
  flush(): number | Promise<number>;
}

/**
 * The process's stdout as a {@linkcode LineSink}: on Bun its own writer
 * (`Bun.stdout.writer()`), which writes a batch for a fraction of what
 * `process.stdout.write` costs there through Bun's Node streams (with the
 * access log on, the log was 15 % of a request's CPU over HTTP); on Deno
 * `Deno.stdout.writeSync` of the batch's UTF-8, what Deno's
 * `process.stdout.write` ends in, at half its cost without its stream and
 * `Buffer` (which took 2 µs of a trigger test's 25 over HTTP); on Node
 * `process.stdout`.
 *
 * @returns The sink.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { stdoutSink } from "./log_lines.ts";
 *
 * const written = await new Promise<unknown>((resolve) =>
 *   stdoutSink().write("", resolve)
 * );
 * assert.ok(written === undefined || written === null);
 * ```
 */
export function stdoutSink(): LineSink {
  const deno = (globalThis as { Deno?: { stdout: DenoWriter } }).Deno;
  if (deno !== undefined) return denoSink(deno.stdout);
  const bun = (globalThis as { Bun?: { stdout: { writer(): BunWriter } } })
    .Bun;
  if (bun === undefined) return process.stdout;
  const writer = bun.stdout.writer();
  return {
    write(chunk, done) {
      try {
        writer.write(chunk);
        const flushed = writer.flush();
        if (typeof flushed === "number") done();
        else flushed.then(() => done(), done);
      } catch (error) {
        done(error as Error);
      }
    },
  };
}

/** The part of `Deno.stdout` {@linkcode stdoutSink} uses. */
interface DenoWriter {
  writeSync(bytes: Uint8Array): number;
}

const encoder = new TextEncoder();

/**
 * A sink writing each batch whole with `writeSync`, as Deno's stdout does;
 * encoded into one buffer kept between batches (`encode` would allocate one
 * a batch, at twice the cost), grown when a batch outgrows it.
 */
function denoSink(stdout: DenoWriter): LineSink {
  let buffer = new Uint8Array(64 * 1024);
  return {
    write(chunk, done) {
      try {
        // UTF-8 takes at most 3 bytes for each UTF-16 unit.
        if (chunk.length * 3 > buffer.length) {
          buffer = new Uint8Array(chunk.length * 3);
        }
        const { written: length } = encoder.encodeInto(chunk, buffer);
        for (let written = 0; written < length;) {
          written += stdout.writeSync(buffer.subarray(written, length));
        }
        done();
      } catch (error) {
        done(error as Error);
      }
    },
  };
}
