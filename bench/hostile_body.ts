/**
 * What deciding a hostile 1 MiB bulk body costs, against `JSON.parse` of a
 * plain 1 MiB JSON body: each body below is built to push one step of the
 * decision (decoding, the Python-limits check, the error scanner, the
 * Python-shaped rebuild, UUID parsing, rendering the 422) as far as it goes.
 * Every step is linear, so no ratio should grow with the body's size.
 *
 * Run: `npm run bench:body` (or `node bench/hostile_body.ts`; also
 * `deno run bench/hostile_body.ts`, `bun bench/hostile_body.ts`). It prints
 * one line per body: median milliseconds over a few runs, and the ratio to
 * the `JSON.parse` baseline. `BENCH_QUADRATIC=1` also times the regex the
 * limits check used to run, on 128 KiB only (it took seconds).
 *
 * @module
 */
import { parseBulkRequest } from "../src/validation/mod.ts";

const env = (globalThis as { process?: { env: Record<string, string> } })
  .process?.env ?? {};
/** The body size: the 1 MiB limit, or `BENCH_BYTES` to see how costs scale. */
const MIB = Number(env.BENCH_BYTES ?? 1024 * 1024);
const RUNS = 7;
const encoder = new TextEncoder();
const uuid = "0b6f1c2e-8d3a-4c55-9a57-3e3c2d1f0a11";

/** Repeats `unit` to fill `size` UTF-8 bytes between `head` and `tail`. */
function fill(head: string, unit: string, tail: string, size = MIB): string {
  const bytes = (value: string) => encoder.encode(value).length;
  const count = Math.floor((size - bytes(head) - bytes(tail)) / bytes(unit));
  return head + unit.repeat(count) + tail;
}

/** Bodies of at most 1 MiB (the limit), each aimed at one step. */
function bodies(): [string, Uint8Array][] {
  const text = (value: string): Uint8Array => encoder.encode(value);
  const run = "1".repeat(4300);
  const utf8Surrogates = (() => {
    const head = text('{"call_ids": ["');
    const tail = text('"]}');
    const count = Math.floor((MIB - head.length - tail.length) / 3);
    const bytes = new Uint8Array(head.length + count * 3 + tail.length);
    bytes.set(head);
    for (let i = 0; i < count; i += 1) {
      bytes.set([0xed, 0xa0, 0x80], head.length + i * 3);
    }
    bytes.set(tail, head.length + count * 3);
    return bytes;
  })();
  const utf16 = (() => {
    const source = fill('{"call_ids": [', `"${uuid}",`, `"${uuid}"]}`, MIB / 2);
    const bytes = new Uint8Array(2 + source.length * 2);
    bytes.set([0xff, 0xfe]);
    for (let i = 0; i < source.length; i += 1) {
      bytes[2 + 2 * i] = source.charCodeAt(i);
    }
    return bytes;
  })();
  return [
    // Runs of 4300 digits, just under Python's limit: what made the old
    // regex quadratic, now one counting pass (valid, accepted).
    [
      "digit runs of 4300 in strings",
      text(fill('{"call_ids": ["' + uuid + '"], "x": [', `"${run}",`, '"1"]}')),
    ],
    [
      "integers of 4300 digits",
      text(fill('{"call_ids": ["' + uuid + '"], "x": [', `${run},`, "1]}")),
    ],
    // More openers than Python's nesting limit: the second scan runs whole.
    [
      "350,000 empty arrays",
      text(fill('{"call_ids": ["' + uuid + '"], "x": [', "[],", "[]]}")),
    ],
    // Invalid at the very end: the error scanner walks all of it, then
    // counts code points up to the error.
    [
      "astral text, error at the end",
      text(fill('{"call_ids": ["', "😀", '"], "x": 1,]}')),
    ],
    // An invalid item in a large valid body: rebuilt as Python holds it,
    // every key through the order-keeping proxy, echoed in the 422.
    ["integer-like keys, echoed", text(integerKeys())],
    [
      "500 ids of 2 KiB each, echoed",
      text(fill('{"call_ids": [', `"${"a".repeat(2090)}",`, '"x"]}')),
    ],
    ["lone surrogates in UTF-8", utf8Surrogates],
    ["UTF-16 body", utf16],
    [
      "nesting 959 deep, echoed, repeated",
      text(
        fill(
          '{"call_ids": [',
          "[".repeat(959) + "]".repeat(959) + ",",
          "1]}",
        ),
      ),
    ],
  ];
}

/** `{"call_ids": {"0": 1.0, "1": 1.0, ...}}`: a list_type error echoing it. */
function integerKeys(): string {
  const parts = ['{"call_ids": {'];
  let size = parts[0]!.length + 2;
  for (let key = 0; size < MIB - 20; key += 1) {
    const entry = `"${key}":1.0,`;
    parts.push(entry);
    size += entry.length;
  }
  parts.push('"x":1e400}}');
  return parts.join("");
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function time(work: () => void): number {
  const times: number[] = [];
  for (let run = 0; run < RUNS; run += 1) {
    const start = performance.now();
    work();
    times.push(performance.now() - start);
  }
  return median(times);
}

/** Decides the body as the handler does, whatever the outcome. */
function decide(body: Uint8Array): string {
  try {
    return `accepted ${parseBulkRequest(body, "application/json").length}`;
  } catch (error) {
    const rendered = error as { toResponse?: () => Response };
    return rendered.toResponse?.().status.toString() ?? `threw ${error}`;
  }
}

const plain = fill('{"call_ids": [', `"${uuid}",`, `"${uuid}"]}`);
const baseline = time(() => JSON.parse(plain));
console.log(
  `JSON.parse of ${plain.length} bytes (baseline): ${baseline.toFixed(2)} ms`,
);
let worst = { name: "", ratio: 0 };
for (const [name, body] of bodies()) {
  const outcome = decide(body);
  const ms = time(() => decide(body));
  const ratio = ms / baseline;
  // The same text through JSON.parse alone, where it is valid JSON.
  const same = new TextDecoder().decode(body);
  const own = time(() => {
    try {
      JSON.parse(same);
    } catch { /* not valid JSON: no comparison */ }
  });
  if (ratio > worst.ratio) worst = { name, ratio };
  console.log(
    `${name.padEnd(36)} ${String(body.length).padStart(8)} B  ` +
      `${outcome.padEnd(10)} ${ms.toFixed(1).padStart(7)} ms  ` +
      `x${ratio.toFixed(0).padEnd(5)} (JSON.parse of this body: ` +
      `${own.toFixed(1)} ms)`,
  );
}
console.log(
  `worst: ${worst.name}, x${worst.ratio.toFixed(0)} JSON.parse of a plain body`,
);

if (env.BENCH_QUADRATIC === "1") {
  const before = fill("[", `"${"1".repeat(4300)}",`, '"1"]', 128 * 1024);
  const start = performance.now();
  new RegExp("[0-9]{4301}").test(before);
  console.log(
    `old LONG_DIGIT_RUN regex on ${before.length} bytes: ` +
      `${(performance.now() - start).toFixed(0)} ms`,
  );
}
