/**
 * The compressors the servers hand the export (`node:zlib` on Node and Bun,
 * with `Buffer#utf8Write` as encoder, a pool of Web Workers on Deno, and the
 * pool wherever there are workers):
 * archives written with them read back byte for byte with Python's zipfile
 * and `unzip -t`, several entries in flight at once; a reader that stops
 * reading stops the writes, one that cancels frees the compressor; closing
 * the workers' pool errors what is in flight.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import {
  type Deflater,
  type GzipPair,
  type ZipCompression,
  ZipStream,
} from "../src/zip/zip_stream.ts";
import { exportCompression } from "../server/gzip_pool/mod.ts";
import { runtimeName } from "../server/runtimes/mod.ts";
import { workerGzip } from "../server/gzip_pool/worker_pool.ts";
import { zlibDeflater } from "../server/gzip_pool/zlib.ts";
import { bufferUtf8Write } from "../server/gzip_pool/utf8_write.ts";
import { readZip } from "./support/zip_reader.ts";

const lastModified = new Date("2026-01-02T03:04:06Z");

/** Entries of every shape: small ones unawaited, wide UTF-8, long, empty. */
function entries(): Array<[string, string[]]> {
  return [
    ...Array.from(
      { length: 12 },
      (
        _,
        i,
      ): [string, string[]] => [`small-${i}.json`, [
        `[${i},"${"ab".repeat(i)}"]`,
      ]],
    ),
    ["wide.json", Array.from({ length: 8_000 }, (_, i) => `é€😀${i}`)],
    // Past the read-ahead and several 64 KiB buffers: many chunks.
    [
      "long.json",
      Array.from({ length: 400 }, (_, i) => `${i}:${"x".repeat(2_000)}`),
    ],
    ["empty.json", []],
    ["after.json", ['{"after":true}']],
  ];
}

async function archiveWith(
  compression: ZipCompression,
  readAheadBytes?: number,
): Promise<Uint8Array> {
  const zip = new ZipStream({
    lastModified,
    ...compression,
    ...(readAheadBytes === undefined ? {} : { readAheadBytes }),
  });
  const reading = new Response(zip.readable).arrayBuffer();
  for (const [name, texts] of entries()) {
    const entry = await zip.add(name);
    for (const text of texts) {
      const waiting = entry.write(text);
      if (waiting !== undefined) await waiting;
    }
    entry.close();
  }
  zip.close();
  return new Uint8Array(await reading);
}

function assertEntries(bytes: Uint8Array): void {
  const read = readZip(bytes);
  assert.deepEqual(
    read.map((entry) => [entry.name, entry.compression, entry.text]),
    entries().map(([name, texts]) => [name, 8, texts.join("")]),
  );
}

/**
 * Writes random bytes, never read: the writes must soon wait. Returns the
 * write left waiting.
 */
async function assertWritesWait(
  write: (chunk: Uint8Array<ArrayBuffer>) => Promise<void>,
): Promise<void> {
  // Random bytes do not deflate: what is written comes out whole.
  let written = 0;
  for (;;) {
    const chunk = crypto.getRandomValues(new Uint8Array(64 * 1024));
    const accepted = await Promise.race([
      write(chunk).then(() => true),
      new Promise((resolve) => setTimeout(resolve, 500, false)),
    ]);
    if (!accepted) break;
    written += chunk.length;
    assert.ok(written <= 1024 * 1024, `${written} bytes taken unread`);
  }
}

async function assertStopsUnread(pair: GzipPair): Promise<void> {
  const writer = pair.writable.getWriter();
  await assertWritesWait((chunk) => writer.write(chunk));
  await pair.readable.cancel();
}

async function assertDeflaterStopsUnread(deflater: Deflater): Promise<void> {
  await assertWritesWait((chunk) => deflater.write(chunk));
  deflater.abort(new Error("reader gone"));
}

describe("the export's compressors on the servers", () => {
  const server = exportCompression();
  after(async () => (await server).close());

  it(`writes archives zipfile and unzip read back (${runtimeName()}'s compressor, 256 KiB read ahead)`, async () => {
    const { compression } = await server;
    assert.equal(compression.readAheadBytes, 256 * 1024);
    assertEntries(await archiveWith(compression, compression.readAheadBytes));
  });

  it("node:zlib: archives read back, and an aborted entry stops its zlib", async () => {
    assertEntries(await archiveWith({ deflater: zlibDeflater }, 256 * 1024));
    assertEntries(
      await archiveWith(
        { deflater: zlibDeflater, utf8Write: bufferUtf8Write },
        256 * 1024,
      ),
    );
    const deflater = zlibDeflater(256 * 1024);
    await deflater.write(new TextEncoder().encode("x".repeat(100_000)));
    const reading = deflater.read();
    deflater.abort(new Error("reader gone"));
    await assert.rejects(reading, /reader gone/);
    await assert.rejects(deflater.write(new TextEncoder().encode("more")));
    await assert.rejects(deflater.read(), /reader gone/);
  });

  it("Web Workers: archives read back, several entries on each worker", {
    skip: typeof Worker !== "function" && "no Web Workers on this runtime",
  }, async () => {
    const pool = workerGzip(2);
    try {
      assertEntries(await archiveWith({ gzip: pool.gzip }, 256 * 1024));
      assertEntries(await archiveWith({ gzip: pool.gzip }, 64 * 1024));
    } finally {
      pool.close();
    }
  });

  it("node:zlib: an entry's zlib stream serves the next entries, whole", async () => {
    const zlib = await import("node:zlib");
    // Random bytes do not deflate: their 48 KiB come out whole, in pieces of
    // 16 KiB, zlib paused at each one held (past 1 KiB), also when the
    // entry's end is flushed.
    const random = crypto.getRandomValues(new Uint8Array(48 * 1024));
    const texts = ["first entry ".repeat(1_000), "second entry ".repeat(900)];
    const readAll = async (deflater: Deflater) => {
      const parts: Uint8Array<ArrayBuffer>[] = [];
      for (let part; (part = await deflater.read()) !== undefined;) {
        parts.push(part.slice());
      }
      return zlib.inflateRawSync(await new Blob(parts).arrayBuffer());
    };
    const paused = zlibDeflater(1024);
    const writing = paused.write(random);
    const closing = paused.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const inflated = await readAll(paused);
    await Promise.all([writing, closing]);
    assert.deepEqual(new Uint8Array(inflated), random);
    assert.equal(paused.crc32(), zlib.crc32(random));
    for (const text of texts) {
      const deflater = zlibDeflater(64 * 1024);
      const bytes = new TextEncoder().encode(text);
      await deflater.write(bytes);
      await deflater.close();
      assert.equal((await readAll(deflater)).toString(), text);
      assert.equal(deflater.crc32(), zlib.crc32(bytes));
      // Aborted once sent (as the writer aborts the entries it still
      // holds): the stream it gave back serves the next entry undisturbed.
      deflater.abort(new Error("archive failed later"));
    }
  });

  it("node:zlib: a reader that stops reading stops the entry's writes", async () => {
    await assertDeflaterStopsUnread(zlibDeflater(256 * 1024));
  });

  it("Web Workers: a reader that stops reading stops the entry's writes", {
    skip: typeof Worker !== "function" && "no Web Workers on this runtime",
  }, async () => {
    const pool = workerGzip(1);
    try {
      await assertStopsUnread(await pool.gzip());
    } finally {
      pool.close();
    }
  });

  it("Web Workers: entries deflate in place when the workers cannot load", {
    skip: typeof Worker !== "function" && "no Web Workers on this runtime",
  }, async () => {
    const pool = workerGzip(
      2,
      new URL("./no_such_gzip_worker.ts", import.meta.url),
    );
    try {
      assertEntries(await archiveWith({ gzip: pool.gzip }, 256 * 1024));
    } finally {
      pool.close();
    }
  });

  it("Web Workers: an idle worker is retired, and started again when needed", {
    skip: typeof Worker !== "function" && "no Web Workers on this runtime",
  }, async () => {
    const pool = workerGzip(1, undefined, 100);
    try {
      assertEntries(await archiveWith({ gzip: pool.gzip }, 256 * 1024));
      assert.equal(pool.running, 1);
      await new Promise((resolve) => setTimeout(resolve, 400));
      assert.equal(pool.running, 0);
      assertEntries(await archiveWith({ gzip: pool.gzip }, 256 * 1024));
      assert.equal(pool.running, 1);
    } finally {
      pool.close();
    }
  });

  it("Web Workers: closing the pool errors the entries in flight", {
    skip: typeof Worker !== "function" && "no Web Workers on this runtime",
  }, async () => {
    const pool = workerGzip(1);
    const { readable, writable } = await pool.gzip();
    const writer = writable.getWriter();
    await writer.write(new TextEncoder().encode("hello"));
    pool.close();
    await assert.rejects(
      new Response(readable).arrayBuffer(),
      /the workers were closed/,
    );
  });
});
