/**
 * postgres.js's `Queue` (`src/queue.js`): the one published in 3.4.9, and the
 * fix proposed upstream in docs/postgres-js.md, taken from the page's text.
 *
 * @module
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { codeBlockWith } from "./docs.ts";

/** What `Queue()` returns. */
export interface Queue<T> {
  readonly length: number;
  push(x: T): T;
  shift(): T | undefined;
  remove(x: T): T | null;
}

/** `Queue` itself: `Queue(initial)`. */
export type QueueFactory = <T>(initial?: T[]) => Queue<T>;

/** The published `src/queue.js` of the installed postgres.js. */
export const PUBLISHED_QUEUE = fileURLToPath(
  new URL("../../node_modules/postgres/src/queue.js", import.meta.url),
);

/**
 * The two sides of docs/postgres-js.md's patch to `src/queue.js` (a unified
 * diff with the whole file as context): the file it applies to and the file
 * it makes.
 */
export function queuePatch(): { before: string; after: string } {
  const diff = codeBlockWith(
    "docs/postgres-js.md",
    "diff",
    "+++ b/src/queue.js",
  );
  const lines = diff.split("\n").slice(3, -1);
  const side = (keep: string) =>
    lines.filter((line) => line[0] === " " || line[0] === keep || line === "")
      .map((line) => line.slice(1)).join("\n") + "\n";
  return { before: side("-"), after: side("+") };
}

/**
 * The path of a file holding the `src/queue.js` that docs/postgres-js.md's
 * patch makes (written to a temporary directory).
 */
export function proposedQueueFile(): string {
  const file = join(mkdtempSync(join(tmpdir(), "queue-")), "queue.mjs");
  writeFileSync(file, queuePatch().after);
  return file;
}

/** Imports the `Queue` of a `queue.js` file. */
export async function loadQueue(file: string): Promise<QueueFactory> {
  return (await import(pathToFileURL(file).href)).default as QueueFactory;
}
