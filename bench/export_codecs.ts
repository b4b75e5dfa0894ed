/**
 * The export's deflate codecs side by side, in process, without HTTP: the
 * seconds (wall, the process's CPU and its main thread's) taken to write the
 * 500 entries of the bench data with
 *
 * - `zipstream`: the export's own writer (src/zip/), on the runtime's
 *   `CompressionStream("gzip")` at its default level, 6;
 * - `zipstream-server`: the same writer as the API's servers run it
 *   (`server/gzip_pool/mod.ts`): `node:zlib` on Node and Bun, Web
 *   Workers on Deno, 256 KiB read ahead;
 * - `zipstream-zlib`, `zipstream-workers`: the writer on `node:zlib`, or on
 *   the pool of Web Workers (Deno and Bun), 256 KiB read ahead;
 * - `gzip`: `CompressionStream("gzip")` alone over each entry's text, one
 *   entry after another, no ZIP: the native deflate's own cost;
 * - `zlibjs`: zip.js's `zip-core-native` entry, its pure-JavaScript zlib port
 *   (what the export used before: it never fetches), as the export wrote
 *   entries with it (no workers, entries streamed in 64 K pieces);
 * - `native`: the same entry with the runtime's `CompressionStream` (at the
 *   runtime's own level: zip.js uses its own codec for any level but 6);
 * - `wasm`: zip.js's default entry, its WebAssembly zlib, which instantiates
 *   its module by `fetch()`ing a `data:` URL (no entry of the package loads it
 *   otherwise, so the export cannot use it; measured for reference).
 *
 * Each codec runs in a process of its own (the entries share zip.js's global
 * configuration), in alternating order from round to round; each process
 * writes the archive once to warm up, then `BENCH_REPEATS` (default 3) times,
 * and reports its median. Every archive is checked by `unzip -t`. A codec
 * name may end in `@level` (`zlibjs@3`). Once a round, Info-ZIP's
 * `zip -q -6 -r` compresses the same entries written as files, its CPU
 * seconds read from `/proc/self/stat` (its parent's children's time).
 *
 * Run: `node bench/export_codecs.ts`. `BENCH_MESSAGES` (default 200),
 * `BENCH_ROUNDS` (default 2), `BENCH_RUNTIMES` (default `node,deno,bun`),
 * `BENCH_CODECS` (default `zipstream,gzip,zlibjs@6,zlibjs@3`), `BENCH_LEVEL`
 * (default 5).
 *
 * @module
 */
import { execFileSync } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { benchData, CALLS, MESSAGES } from "./export_data.ts";
import { median } from "./hot_path.ts";
import { childrenCpuSeconds, threadCpuSeconds } from "./proc_cpu.ts";
import { type ZipCompression, ZipStream } from "../src/zip/zip_stream.ts";
import type { FixturesInput } from "../src/store/fixtures.ts";

const LEVEL = Number(process.env.BENCH_LEVEL ?? 5);
const REPEATS = Number(process.env.BENCH_REPEATS ?? 3);
/** The servers' read-ahead where entries deflate in parallel. */
const AHEAD = { readAheadBytes: 256 * 1024 };

interface Writer {
  add(name: string, reader: ReadableStream<Uint8Array>): Promise<unknown>;
  close(): Promise<unknown>;
}
type WriterClass = new (
  writable: WritableStream<Uint8Array>,
  options: Record<string, unknown>,
) => Writer;

async function writerFor(codec: string): Promise<[WriterClass, boolean]> {
  codec = codec.split("@")[0]!;
  if (codec === "wasm") {
    const zip = await import("@zip.js/zip.js");
    zip.configure({ maxWorkers: Number.MAX_SAFE_INTEGER });
    return [zip.ZipWriter as unknown as WriterClass, false];
  }
  const zip = await import("@zip.js/zip.js/lib/zip-core-native.js");
  zip.configure({ maxWorkers: Number.MAX_SAFE_INTEGER });
  return [zip.ZipWriter as unknown as WriterClass, codec === "native"];
}

/** One archive of the entries, written into memory; its bytes. */
async function archive(
  ZipWriter: WriterClass,
  useCompressionStream: boolean,
  level: number | undefined,
  entries: string[][],
): Promise<Uint8Array> {
  const parts: Uint8Array<ArrayBuffer>[] = [];
  const zip = new ZipWriter(
    new WritableStream<Uint8Array<ArrayBuffer>>({
      write: (part) => void parts.push(part),
    }),
    { useWebWorkers: false, useCompressionStream, level },
  );
  const encoder = new TextEncoder();
  for (const [index, messages] of entries.entries()) {
    let i = 0;
    await zip.add(
      `${index}.json`,
      new ReadableStream<Uint8Array>({
        pull(controller) {
          if (i > messages.length) return controller.close();
          // 64 K characters at a time, as the export's pieces.
          let text = i === 0 ? "[" : ",";
          const start = i;
          while (i < messages.length && text.length < 65536) {
            text += (i > start ? "," : "") + messages[i];
            i += 1;
          }
          if (i === messages.length) {
            text += "]";
            i += 1;
          }
          controller.enqueue(encoder.encode(text));
        },
      }),
    );
  }
  await zip.close();
  return new Uint8Array(await new Blob(parts).arrayBuffer());
}

/** One archive of the entries written by the export's own writer. */
async function zipStreamArchive(
  entries: string[][],
  compression: ZipCompression = {},
): Promise<Uint8Array> {
  const zip = new ZipStream({ ...compression, lastModified: new Date() });
  const reading = new Response(zip.readable).arrayBuffer();
  for (const [index, messages] of entries.entries()) {
    const entry = await zip.add(`${index}.json`);
    let separator = "[";
    for (const message of messages) {
      await entry.write(separator);
      await entry.write(message);
      separator = ",";
    }
    await entry.write("]");
    entry.close();
  }
  zip.close();
  return new Uint8Array(await reading);
}

/**
 * The entries deflated one after another by `CompressionStream("gzip")`,
 * their text encoded beforehand and no ZIP written: the native deflate's own
 * cost, the floor of the export's. Returns the gzip members' total length
 * as that many zero bytes (nothing to check with unzip).
 */
async function gzipOnly(texts: Uint8Array<ArrayBuffer>[]): Promise<Uint8Array> {
  let length = 0;
  for (const text of texts) {
    const gzip = new Blob([text]).stream().pipeThrough(
      new CompressionStream("gzip"),
    );
    length += (await new Response(gzip).arrayBuffer()).byteLength;
  }
  return new Uint8Array(length);
}

/** Each call's messages as JSON texts. */
function entriesOf(fixtures: FixturesInput): string[][] {
  return (fixtures.calls ?? []).map((call) =>
    (call.messages ?? []).map((message) => JSON.stringify(message))
  );
}

async function child(codec: string): Promise<void> {
  const entries = entriesOf(benchData().fixtures);
  let write: () => Promise<Uint8Array>;
  let closeAfter = () => {};
  if (codec === "zipstream") write = () => zipStreamArchive(entries);
  else if (codec === "zipstream-zlib") {
    const { zlibDeflater } = await import("../server/gzip_pool/zlib.ts");
    write = () =>
      zipStreamArchive(entries, { deflater: zlibDeflater, ...AHEAD });
  } else if (codec === "zipstream-workers") {
    const { workerGzip } = await import("../server/gzip_pool/worker_pool.ts");
    const pool = workerGzip();
    closeAfter = () => pool.close();
    write = () => zipStreamArchive(entries, { gzip: pool.gzip, ...AHEAD });
  } else if (codec === "zipstream-server") {
    const { exportCompression } = await import(
      "../server/gzip_pool/mod.ts"
    );
    const server = await exportCompression();
    closeAfter = server.close;
    write = () => zipStreamArchive(entries, server.compression);
  } else if (codec === "gzip") {
    const encoder = new TextEncoder();
    const texts = entries.map((messages) =>
      encoder.encode(`[${messages.join(",")}]`)
    );
    write = () => gzipOnly(texts);
  } else {
    const [ZipWriter, native] = await writerFor(codec);
    // zip.js passes a level other than 6 to its own codec only: the native
    // stream has no level (each runtime's default).
    const level = native ? undefined : Number(codec.split("@")[1] ?? LEVEL);
    write = () => archive(ZipWriter, native, level, entries);
  }
  const bytes = await write();
  const times: number[] = [];
  const cpu: number[] = [];
  const mainThread: number[] = [];
  for (let i = 0; i < REPEATS; i += 1) {
    const started = performance.now();
    const usage = process.cpuUsage();
    const mainBefore = threadCpuSeconds(process.pid, process.pid);
    await write();
    times.push((performance.now() - started) / 1000);
    const { user, system } = process.cpuUsage(usage);
    cpu.push((user + system) / 1e6);
    mainThread.push(threadCpuSeconds(process.pid, process.pid) - mainBefore);
  }
  closeAfter();
  writeFileSync(process.env.BENCH_OUTPUT!, bytes);
  console.log(JSON.stringify({
    seconds: median(times),
    cpu: median(cpu),
    mainThread: median(mainThread),
    bytes: bytes.length,
  }));
}

const COMMANDS: Record<string, string[]> = {
  node: ["node"],
  deno: ["deno", "run", "-A"],
  bun: ["bun"],
};

function main(): void {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
  const runtimes = (process.env.BENCH_RUNTIMES ?? "node,deno,bun").split(",");
  const codecs =
    (process.env.BENCH_CODECS ?? "zipstream,gzip,zlibjs@6,zlibjs@3")
      .split(",");
  const work = mkdtempSync(join(tmpdir(), "export-codecs-"));
  const output = join(work, "out.zip");
  const seconds = new Map<string, number[]>();
  const cpu = new Map<string, number[]>();
  const mainThread = new Map<string, number[]>();
  const sizes = new Map<string, number>();
  const files = join(work, "files");
  mkdirSync(files);
  for (const [index, messages] of entriesOf(benchData().fixtures).entries()) {
    writeFileSync(join(files, `${index}.json`), `[${messages.join(",")}]`);
  }
  const infoZip = { wall: [] as number[], cpu: [] as number[], bytes: 0 };
  try {
    for (let round = 0; round < rounds; round += 1) {
      const zipped = join(work, "info.zip");
      rmSync(zipped, { force: true });
      const cpuBefore = childrenCpuSeconds();
      const started = performance.now();
      execFileSync("zip", ["-q", "-6", "-r", zipped, "."], { cwd: files });
      infoZip.wall.push((performance.now() - started) / 1000);
      infoZip.cpu.push(childrenCpuSeconds() - cpuBefore);
      infoZip.bytes = statSync(zipped).size;
      for (const runtime of runtimes) {
        const order = round % 2 === 0 ? codecs : [...codecs].reverse();
        for (const codec of order) {
          const [command, ...args] = COMMANDS[runtime]!;
          const result = JSON.parse(
            execFileSync(
              join("node_modules", ".bin", command!),
              [...args, "bench/export_codecs.ts", codec],
              {
                encoding: "utf8",
                env: { ...process.env, BENCH_OUTPUT: output },
                stdio: ["ignore", "pipe", "inherit"],
              },
            ),
          );
          if (codec !== "gzip") {
            execFileSync("unzip", ["-tq", output], { stdio: "pipe" });
          }
          const key = `${runtime} ${codec}`;
          seconds.set(key, [...(seconds.get(key) ?? []), result.seconds]);
          cpu.set(key, [...(cpu.get(key) ?? []), result.cpu]);
          mainThread.set(key, [
            ...(mainThread.get(key) ?? []),
            result.mainThread,
          ]);
          sizes.set(key, result.bytes);
          console.error(key, result);
        }
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  console.log(
    `${CALLS} entries of ${MESSAGES} messages; wall / CPU / main thread's CPU seconds per archive (medians), MiB\n`,
  );
  console.log(`| codec | ${runtimes.join(" | ")} |`);
  console.log(`| --- | ${runtimes.map(() => "---").join(" | ")} |`);
  for (const codec of codecs) {
    const cells = runtimes.map((runtime) => {
      const key = `${runtime} ${codec}`;
      return `${median(seconds.get(key)!).toFixed(2)} / ${
        median(cpu.get(key)!).toFixed(2)
      } / ${median(mainThread.get(key)!).toFixed(2)} s, ${
        (sizes.get(key)! / 1024 / 1024).toFixed(2)
      }`;
    });
    console.log(`| ${codec} | ${cells.join(" | ")} |`);
  }
  console.log(
    `\nInfo-ZIP \`zip -q -6 -r\` on the same entries as files, once a round: ` +
      `${median(infoZip.wall).toFixed(2)} / ${
        median(infoZip.cpu).toFixed(2)
      } s, ${(infoZip.bytes / 1024 / 1024).toFixed(2)} MiB`,
  );
}

if (process.argv[2] === undefined) main();
else await child(process.argv[2]);
