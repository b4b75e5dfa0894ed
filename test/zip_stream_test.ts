/**
 * The streamed ZIP writer: what it writes is read back byte for byte by
 * independent readers (Info-ZIP's `unzip -t`, Python's `zipfile`), Zip64
 * records included; its writes wait while the archive's reader is behind;
 * it ends in an error, never a whole-looking archive, when aborted.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { describe, it } from "node:test";
import { ZipStream } from "../src/zip/zip_stream.ts";
import {
  centralDirectory,
  dataDescriptor,
  entryTime,
  localHeader,
} from "../src/zip/_records.ts";
import { readZip } from "./support/zip_reader.ts";

const lastModified = new Date("2026-01-02T03:04:06Z");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Writes `texts` as one entry, awaiting only when the writer asks to. */
async function writeEntry(zip: ZipStream, name: string, texts: string[]) {
  const entry = await zip.add(name);
  for (const text of texts) await entry.write(text);
  entry.close();
}

describe("ZipStream", () => {
  it("writes entries that unzip and Python's zipfile read back byte for byte", async () => {
    const zip = new ZipStream({ lastModified });
    const reading = new Response(zip.readable).arrayBuffer();
    // Small entries written back to back, never awaited: each one's bytes
    // must reach its compressor untouched by the next one's.
    const small = Array.from(
      { length: 20 },
      (_, i) => `[${i},"${"ab".repeat(i)}"]`,
    );
    for (const [i, text] of small.entries()) {
      const entry = await zip.add(`small-${i}.json`);
      assert.equal(entry.write(text), undefined);
      entry.close();
    }
    // Two- to four-byte UTF-8 across the 64 KiB buffers' boundaries.
    const wide = Array.from({ length: 8_000 }, (_, i) => `é€😀${i}`);
    await writeEntry(zip, "wide.json", wide);
    const long = "x".repeat(100_000) + "ü";
    await writeEntry(zip, "long.json", [long]);
    await writeEntry(zip, "empty.json", []);
    zip.close();

    const entries = readZip(new Uint8Array(await reading));
    assert.deepEqual(entries.map((e) => [e.name, e.compression]), [
      ...small.map((_, i) => [`small-${i}.json`, 8]),
      ["wide.json", 8],
      ["long.json", 8],
      ["empty.json", 8],
    ]);
    assert.deepEqual(entries.slice(0, 20).map((e) => e.text), small);
    assert.equal(entries[20]!.text, wide.join(""));
    assert.equal(entries[21]!.text, long);
    assert.equal(entries[22]!.text, "");
  });

  it("reads at most 64 KiB ahead of the entry being sent", async () => {
    const zip = new ZipStream({ lastModified });
    const reader = zip.readable.getReader();
    await writeEntry(zip, "first.json", ["y".repeat(100_000)]);
    const second = await zip.add("second.json");
    let accepted = 0;
    let waiting: Promise<void> | undefined;
    while (waiting === undefined) {
      waiting = second.write("z".repeat(1000));
      accepted += 1000;
    }
    let resolved = false;
    waiting.then(() => resolved = true);
    await sleep(50);
    assert.equal(resolved, false, "the write waited for the reader");
    assert.ok(accepted <= 66 * 1024, `${accepted} bytes accepted ahead`);
    // Once the first entry has been read, the second is the one sent.
    while (!resolved) {
      const { done } = await reader.read();
      assert.equal(done, false);
    }
    second.close();
    zip.close();
    while (!(await reader.read()).done);
  });

  it("errors the archive when aborted, never ending it", async () => {
    const zip = new ZipStream({ lastModified });
    const reading = new Response(zip.readable).arrayBuffer();
    await writeEntry(zip, "whole.json", ["[1]"]);
    await zip.add("cut.json");
    zip.abort(new Error("store failed"));
    await assert.rejects(reading, /store failed/);
    await assert.rejects(zip.add("more.json"), /store failed/);
  });

  it("errors the archive and stops its writer when a compressor fails", async () => {
    const zip = new ZipStream({
      lastModified,
      gzip: () =>
        new TransformStream({
          transform() {
            throw new Error("deflate failed");
          },
        }),
    });
    const reading = new Response(zip.readable).arrayBuffer();
    const entry = await zip.add("a.json");
    entry.write("x".repeat(70_000)); // fills and hands over a buffer
    await assert.rejects(reading, /deflate failed/);
    await assert.rejects(zip.add("b.json"), /deflate failed/);
  });

  it("turns cancelled and refuses more data once its reader cancels", async () => {
    const zip = new ZipStream({ lastModified });
    const entry = await zip.add("a.json");
    await zip.readable.cancel(new Error("client left"));
    assert.equal(zip.cancelled, true);
    assert.throws(() => entry.write("more"), /client left/);
    await assert.rejects(zip.add("b.json"), /client left/);
  });
});

describe("the ZIP records past 4 GiB", () => {
  it("carry Zip64 sizes and offsets that unzip and zipfile read", () => {
    // A sparse file: one entry whose local header starts at 5 GiB, read back
    // through the central directory's Zip64 offset and end records.
    const text = new TextEncoder().encode('{"far":true}');
    const deflated = execFileSync("python3", [
      "-c",
      "import sys,zlib;c=zlib.compressobj(6,8,-15);" +
      "sys.stdout.buffer.write(c.compress(sys.stdin.buffer.read())+c.flush())",
    ], { input: text });
    const crc32 = Number(
      execFileSync("python3", [
        "-c",
        "import sys,zlib;print(zlib.crc32(sys.stdin.buffer.read()))",
      ], { input: text, encoding: "utf8" }),
    );
    const name = new TextEncoder().encode("far.json");
    const time = entryTime(lastModified);
    const offset = 5 * 2 ** 30;
    const pieces = [
      localHeader(name, time),
      deflated,
      dataDescriptor({
        crc32,
        compressedSize: deflated.length,
        size: text.length,
      }),
    ];
    const directoryOffset = pieces.reduce((at, p) => at + p.length, offset);
    pieces.push(centralDirectory(
      [{
        name,
        crc32,
        compressedSize: deflated.length,
        size: text.length,
        offset,
      }],
      directoryOffset,
      time,
    ));
    const directory = mkdtempSync(join(tmpdir(), "zip64-"));
    const path = join(directory, "far.zip");
    try {
      const file = openSync(path, "w");
      let at = offset;
      for (const piece of pieces) {
        writeSync(file, piece, 0, piece.length, at);
        at += piece.length;
      }
      closeSync(file);
      const listing = execFileSync("python3", [
        "-c",
        "import sys,zipfile;z=zipfile.ZipFile(sys.argv[1]);i=z.infolist()[0];" +
        "assert z.testzip() is None;" +
        "print(i.filename,i.header_offset,z.read(i).decode())",
        path,
      ], { encoding: "utf8" });
      assert.equal(listing.trim(), `far.json ${offset} {"far":true}`);
      const unzip = execFileSync("unzip", ["-p", path, "far.json"], {
        encoding: "utf8",
      });
      assert.equal(unzip, '{"far":true}');
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it(
    "stream an entry of more than 4 GiB (ZIP64_LARGE=1: a minute or more)",
    { skip: process.env.ZIP64_LARGE !== "1" },
    async () => {
      const directory = mkdtempSync(join(tmpdir(), "zip64-large-"));
      const path = join(directory, "large.zip");
      try {
        const zip = new ZipStream({ lastModified });
        const file = openSync(path, "w");
        const writing = (async () => {
          for await (const bytes of zip.readable) writeSync(file, bytes);
          closeSync(file);
        })();
        const piece = '{"text":"' + "order refund invoice ".repeat(50) + '"},';
        const size = 2 ** 32 + 2 ** 20;
        await writeEntry(
          zip,
          "large.json",
          Array.from({ length: Math.ceil(size / piece.length) }, () => piece),
        );
        await writeEntry(zip, "after.json", ["[]"]);
        zip.close();
        await writing;
        execFileSync("unzip", ["-tq", path], { stdio: "pipe" });
        const sizes = execFileSync("python3", [
          "-c",
          "import sys,zipfile;z=zipfile.ZipFile(sys.argv[1]);" +
          "print([(i.filename,i.file_size) for i in z.infolist()]);" +
          "print(z.read('after.json').decode())",
          path,
        ], { encoding: "utf8" });
        const count = Math.ceil(size / piece.length);
        assert.equal(
          sizes,
          `[('large.json', ${count * piece.length}), ('after.json', 2)]\n[]\n`,
        );
      } finally {
        rmSync(directory, { recursive: true, force: true });
      }
    },
  );
});
