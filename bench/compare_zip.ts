/**
 * Our streamed ZIP writer (`src/zip/zip_stream.ts`) against fflate's
 * streaming `Zip` (issue 26), on the export bench data (500 calls × 200
 * messages, `bench/export_data.ts`), over HTTP on Node, Deno and Bun, with
 * Info-ZIP's `zip -6` on the same 500 files as the reference.
 *
 * Each runtime serves, through our adapter, on one server:
 * - _API_: the bulk export itself (`POST /v1/call/message/bulk`), deflating
 *   as the API's servers do (`server/gzip_pool/mod.ts`);
 * - _ours_: `ZipStream` with the same compression, fed each call's whole JSON
 *   text (the export's entries, read from the store beforehand);
 * - _fflate_: fflate's `Zip` with a `ZipDeflate` (level 6, main thread) per
 *   entry, fed the same texts;
 * - _fflate async_: the same with `AsyncZipDeflate` (a worker per entry).
 *
 * fflate's `Zip` pushes its output and has no backpressure of its own; here,
 * as anyone serving it would have to, a new entry waits until the
 * `ReadableStream`'s queue (256 KiB) has room and fewer than 4 entries are
 * being deflated (ours: at most 4 entries in flight).
 *
 * Wall: curl reading the archive; CPU: the server process's CPU seconds
 * meanwhile (all its threads, from `/proc/<pid>/stat`); `zip`'s own wall and
 * CPU. `BENCH_ROUNDS` (default 5) rounds, the order of the five rotated from
 * round to round; medians. RSS growth: a fresh server for each variant, its
 * peak RSS (sampled every 10 ms) during one export over its idle RSS. Every
 * archive passes `unzip -t` and Python's `zipfile` (`testzip`), and each
 * variant's entries are compared byte for byte with the API's.
 *
 * Run: `node bench/compare_zip.ts` (needs curl, zip, unzip, python3).
 * `BENCH_RUNTIMES` (default `node,deno,bun`).
 *
 * `node bench/compare_zip.ts serve` is one server (what the script starts).
 *
 * @module
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { AsyncZipDeflate, Zip, ZipDeflate } from "fflate";
import { createHandler } from "../src/handler.ts";
import { MemoryStore } from "../src/store/memory_store.ts";
import { ZipStream } from "../src/zip/zip_stream.ts";
import { exportCompression } from "../server/gzip_pool/mod.ts";
import { serve } from "../server/runtimes/mod.ts";
import { benchData, CALLS, MESSAGES } from "./export_data.ts";
import { cpuSeconds, median, startServer } from "./hot_path.ts";
import { childrenCpuSeconds } from "./proc_cpu.ts";

const LAST_MODIFIED = new Date("2026-01-02T03:04:06Z");
/** Entries deflated at once, as `ZipStream`'s `MAX_ENTRIES_IN_FLIGHT`. */
const ENTRIES_IN_FLIGHT = 4;
/** Bytes fflate's output may queue before a new entry waits. */
const QUEUED_BYTES = 256 * 1024;

/** The archive of `texts` by our `ZipStream`. */
function oursArchive(
  texts: [string, string][],
  compression: Awaited<ReturnType<typeof exportCompression>>["compression"],
): ReadableStream<Uint8Array> {
  const zip = new ZipStream({ ...compression, lastModified: LAST_MODIFIED });
  (async () => {
    for (const [name, text] of texts) {
      const entry = await zip.add(name);
      const written = entry.write(text);
      if (written !== undefined) await written;
      entry.close();
    }
    zip.close();
  })().catch((error) => zip.abort(error));
  return zip.readable;
}

/** The archive of `texts` by fflate's `Zip`, with backpressure added. */
function fflateArchive(
  texts: [string, string][],
  async: boolean,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let wake = () => {};
  let deflating = 0;
  let failure: unknown;
  const zip = new Zip((error, data, final) => {
    if (error) {
      failure = error;
      controller.error(error);
    } else {
      controller.enqueue(data);
      if (final) controller.close();
    }
    wake();
  });
  const readable = new ReadableStream<Uint8Array>({
    start: (c) => void (controller = c),
    pull: () => wake(),
    cancel: (reason) => {
      failure = reason;
      zip.terminate();
      wake();
    },
  }, { highWaterMark: QUEUED_BYTES, size: (chunk) => chunk.byteLength });
  const room = () =>
    (controller.desiredSize ?? 0) > 0 && deflating < ENTRIES_IN_FLIGHT;
  (async () => {
    for (const [name, text] of texts) {
      while (!room() && failure === undefined) {
        await new Promise<void>((resolve) => wake = resolve);
      }
      if (failure !== undefined) return;
      const file = async
        ? new AsyncZipDeflate(name, { level: 6 })
        : new ZipDeflate(name, { level: 6 });
      file.mtime = LAST_MODIFIED;
      zip.add(file);
      // Zip's own handler, wrapped to count the entries being deflated.
      const onData = file.ondata;
      deflating += 1;
      file.ondata = (error, data, final) => {
        onData(error, data, final);
        if (final || error) {
          deflating -= 1;
          wake();
        }
      };
      file.push(encoder.encode(text), true);
    }
    zip.end();
  })();
  return readable;
}

/** The bench server: the API, and the three archives at `/archive/*`. */
async function serveArchives(): Promise<void> {
  const data = benchData();
  const store = new MemoryStore();
  await store.seed(data.fixtures);
  const texts: [string, string][] = [];
  for await (const chunk of store.transcripts(data.project, data.callIds)) {
    const last = texts.at(-1);
    const messages = chunk.messages.join(",");
    if (last?.[0] === `${chunk.callId}.json`) last[1] += `,${messages}`;
    else texts.push([`${chunk.callId}.json`, messages]);
  }
  const encoder = new TextEncoder();
  for (const entry of texts) {
    entry[1] = `[${entry[1]}]`;
    // Flattened now, not during an export: its RSS is the export's own.
    encoder.encode(entry[1]);
  }
  const { compression } = await exportCompression();
  const api = createHandler({
    store,
    logError: console.error,
    exportCompression: compression,
  });
  const archives: Record<string, () => ReadableStream<Uint8Array>> = {
    "/archive/ours": () => oursArchive(texts, compression),
    "/archive/fflate": () => fflateArchive(texts, false),
    "/archive/fflate-async": () => fflateArchive(texts, true),
  };
  const server = await serve((request) => {
    const archive = archives[new URL(request.url).pathname];
    if (archive === undefined) return api(request);
    return Promise.resolve(
      new Response(archive(), {
        headers: { "content-type": "application/zip" },
      }),
    );
  }, { port: 0, hostname: "127.0.0.1" });
  (globalThis as { gc?: () => void }).gc?.();
  (globalThis as { Bun?: { gc(force: boolean): void } }).Bun?.gc(true);
  console.log(server.url);
  process.on("SIGTERM", () => process.exit(0));
}

/** What one run took: wall seconds, and CPU seconds (whose, see above). */
interface Timing {
  wall: number;
  cpu: number;
}

/** Runs a command to its end: its wall time and its own CPU seconds. */
function run(command: string, args: string[], cwd?: string): Promise<Timing> {
  const cpu = childrenCpuSeconds();
  const started = performance.now();
  const child = spawn(command, args, { stdio: "inherit", cwd });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => {
      if (code !== 0) reject(new Error(`${command} ${args} exited ${code}`));
      else {
        resolve({
          wall: (performance.now() - started) / 1000,
          cpu: childrenCpuSeconds() - cpu,
        });
      }
    });
  });
}

const VARIANTS = ["API", "ours", "fflate", "fflate async"] as const;
type Variant = typeof VARIANTS[number];
const PATHS: Record<Variant, string> = {
  API: "/v1/call/message/bulk",
  ours: "/archive/ours",
  fflate: "/archive/fflate",
  "fflate async": "/archive/fflate-async",
};

async function main(): Promise<void> {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
  const runtimes = (process.env.BENCH_RUNTIMES ?? "node,deno,bun").split(",");
  const bin = (name: string) =>
    join(process.cwd(), "node_modules", ".bin", name);
  const commands: Record<string, string[]> = {
    node: [bin("node"), "--expose-gc"],
    deno: [bin("deno"), "run", "-A", "--v8-flags=--expose-gc"],
    bun: [bin("bun")],
  };
  const work = mkdtempSync(join(tmpdir(), "compare-zip-"));
  const { token, callIds } = benchData(0);
  const body = JSON.stringify({ call_ids: callIds });
  const fetchArchive = (url: string, variant: Variant, output: string) =>
    run("curl", [
      "-sS",
      "--fail",
      "-o",
      output,
      ...(variant === "API"
        ? [
          "-X",
          "POST",
          "-H",
          `Authorization: Bearer ${token}`,
          "-H",
          "Content-Type: application/json",
          "--data-binary",
          body,
        ]
        : []),
      url + PATHS[variant],
    ]);
  const check = (archive: string, reference: string) => {
    execFileSync("unzip", ["-tq", archive], { stdio: "pipe" });
    execFileSync("python3", [
      "-c",
      `import sys, zipfile
a, b = zipfile.ZipFile(sys.argv[1]), zipfile.ZipFile(sys.argv[2])
assert a.testzip() is None
assert a.namelist() == b.namelist() and len(a.namelist()) == ${CALLS}
assert all(a.read(n) == b.read(n) for n in a.namelist())`,
      archive,
      reference,
    ]);
  };
  const rssMiB = (pid: number) =>
    Number(
      /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1],
    ) / 1024;
  const files = join(work, "files");
  const infoZip = join(work, "info.zip");
  const reference = join(work, "reference.zip");
  const lines: string[] = [];
  try {
    for (const runtime of runtimes) {
      const command = [...commands[runtime]!, "bench/compare_zip.ts", "serve"];
      const rss: Partial<Record<Variant, number>> = {};
      // RSS: a fresh server per variant, one export.
      for (const variant of VARIANTS) {
        const server = await startServer(command);
        try {
          const idle = rssMiB(server.pid);
          let peak = idle;
          const sampler = setInterval(() => {
            peak = Math.max(peak, rssMiB(server.pid));
          }, 10);
          const output = join(work, "rss.zip");
          await fetchArchive(server.url, variant, output);
          clearInterval(sampler);
          rss[variant] = peak - idle;
          if (variant === "API") {
            execFileSync("cp", [output, reference]);
            rmSync(files, { recursive: true, force: true });
            execFileSync("unzip", ["-q", "-d", files, reference]);
          }
          check(output, reference);
        } finally {
          server.stop();
        }
      }
      const server = await startServer(command);
      const samples = new Map<string, Timing[]>();
      const bytes = new Map<string, number>();
      try {
        const order = ["zip -6", ...VARIANTS];
        for (const name of order) samples.set(name, []);
        for (const variant of VARIANTS) {
          await fetchArchive(server.url, variant, join(work, "warm.zip"));
        }
        for (let round = 0; round < rounds; round += 1) {
          const turn = order.map((_, i) => order[(i + round) % order.length]!);
          if (round % 2 === 1) turn.reverse();
          for (const name of turn) {
            if (name === "zip -6") {
              rmSync(infoZip, { force: true });
              samples.get(name)!.push(
                await run("zip", ["-q", "-6", "-r", infoZip, "."], files),
              );
              bytes.set(name, statSync(infoZip).size);
              continue;
            }
            const output = join(work, `${name.replace(" ", "-")}.zip`);
            const cpu = cpuSeconds(server.pid);
            const timing = await fetchArchive(
              server.url,
              name as Variant,
              output,
            );
            samples.get(name)!.push({
              wall: timing.wall,
              cpu: cpuSeconds(server.pid) - cpu,
            });
            bytes.set(name, statSync(output).size);
            check(output, reference);
          }
        }
      } finally {
        server.stop();
      }
      const zip = samples.get("zip -6")!;
      const zipWall = median(zip.map((t) => t.wall));
      const zipCpu = median(zip.map((t) => t.cpu));
      for (const [name, timings] of samples) {
        const wall = median(timings.map((t) => t.wall));
        const cpu = median(timings.map((t) => t.cpu));
        const growth = rss[name as Variant];
        lines.push(
          `| ${runtime} | ${name} | ${wall.toFixed(2)} | ${cpu.toFixed(2)} | ${
            (wall / zipWall).toFixed(2)
          }x | ${(cpu / zipCpu).toFixed(2)}x | ${bytes.get(name)} | ${
            growth === undefined ? "–" : growth.toFixed(0)
          } |`,
        );
        console.error(lines.at(-1));
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  console.log(
    `${new Date().toISOString()}, load average at the end ${
      loadavg().map((l) => l.toFixed(2)).join(" ")
    }; ${CALLS} calls × ${MESSAGES} messages, ${rounds} rotated rounds, medians; every archive passed unzip -t and zipfile, entries equal to the API's\n`,
  );
  console.log(
    "| runtime | writer | wall s | CPU s | wall / zip -6 | CPU / zip -6 | bytes | RSS growth MiB, 1 export |",
  );
  console.log("| --- | --- | --- | --- | --- | --- | --- | --- |");
  for (const line of lines) console.log(line);
}

if (process.argv[2] === "serve") await serveArchives();
else await main();
