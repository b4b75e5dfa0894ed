/**
 * The ZIP writer streams: it pulls transcript chunks only as the archive is
 * read, errors (never ends cleanly) when the chunks fail, and closes the chunk
 * iterator when the reader cancels.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { TranscriptChunk } from "../src/store/store.ts";
import { transcriptArchive } from "../src/operations/transcript_archive.ts";
import { readZip } from "./support/zip_reader.ts";

const callId = (i: number) =>
  `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`;

/** A source of `calls` calls × `chunksPerCall` chunks that counts what it gave. */
function countingSource(
  calls: number,
  chunksPerCall: number,
  failAfter = Infinity,
) {
  const state = { produced: 0, closed: false };
  async function* chunks(): AsyncGenerator<TranscriptChunk> {
    try {
      for (let c = 0; c < calls; c += 1) {
        for (let k = 0; k < chunksPerCall; k += 1) {
          if (state.produced >= failAfter) throw new Error("storage failed");
          state.produced += 1;
          yield {
            callId: callId(c),
            messages: [
              JSON.stringify({ call: c, chunk: k, text: "x".repeat(1000) }),
            ],
          };
        }
      }
    } finally {
      state.closed = true;
    }
  }
  return { state, iterator: chunks() };
}

async function archiveOf(
  source: ReturnType<typeof countingSource>,
  errors: unknown[] = [],
) {
  const first = await source.iterator.next();
  assert.equal(first.done, false);
  return transcriptArchive(first.value as TranscriptChunk, source.iterator, {
    lastModified: new Date("2026-01-01T00:00:00Z"),
    onError: (error) => errors.push(error),
  });
}

describe("transcriptArchive", () => {
  it("joins each call's chunks into one JSON array entry", async () => {
    const source = countingSource(3, 4);
    const bytes = new Uint8Array(
      await new Response(await archiveOf(source)).arrayBuffer(),
    );
    const entries = readZip(bytes);
    assert.deepEqual(
      entries.map((e) => e.name),
      [0, 1, 2].map((i) => `${callId(i)}.json`),
    );
    for (const [c, entry] of entries.entries()) {
      const messages = JSON.parse(entry.text);
      assert.deepEqual(
        messages.map((m: { call: number; chunk: number }) => [m.call, m.chunk]),
        [
          [c, 0],
          [c, 1],
          [c, 2],
          [c, 3],
        ],
      );
    }
    assert.equal(source.state.closed, true);
  });

  it("pulls chunks only as fast as the archive is read", async () => {
    const source = countingSource(50, 100);
    const reader = (await archiveOf(source)).getReader();
    await reader.read();
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.ok(
      source.state.produced < 200,
      `produced ${source.state.produced} of 5000 chunks before being read`,
    );
    await reader.cancel();
  });

  it("closes the chunk iterator when the reader cancels, and reports no error", async () => {
    const source = countingSource(50, 100);
    const errors: unknown[] = [];
    const reader = (await archiveOf(source, errors)).getReader();
    await reader.read();
    await reader.cancel();
    for (let i = 0; i < 50 && !source.state.closed; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.equal(source.state.closed, true);
    assert.ok(source.state.produced < 5000);
    assert.deepEqual(errors, []);
  });

  it("errors the stream, never ending it cleanly, when the chunks fail midway", async () => {
    const errors: unknown[] = [];
    const source = countingSource(10, 10, 35);
    const archive = await archiveOf(source, errors);
    await assert.rejects(new Response(archive).arrayBuffer());
    assert.equal((errors[0] as Error).message, "storage failed");
  });
});
