/**
 * What the mock's live page asks while it is open, without a browser: the
 * rows of the new requests (`GET /__mock/rows?after=<seq>`) every half
 * second, the state and the faults every two seconds, as
 * `mock/page_script.ts` does. For `bench/mock_request_shapes.ts`
 * (`BENCH_PAGE=1`): a process of its own, since wrk blocks the bench's.
 *
 * Run: `node bench/page_poller.ts http://127.0.0.1:4010`; stops on SIGTERM.
 *
 * @module
 */
import process from "node:process";

const base = process.argv[2];
if (base === undefined) throw new Error("Usage: page_poller.ts <mock URL>");
let seq = 0;

async function poll(): Promise<void> {
  const response = await fetch(`${base}/__mock/rows?after=${seq}`);
  seq = (await response.json()).seq;
}

async function refresh(): Promise<void> {
  await Promise.all(
    ["state", "faults"].map((path) =>
      fetch(`${base}/__mock/${path}`).then((response) => response.json())
    ),
  );
}

let polling = false;
setInterval(async () => {
  if (polling) return;
  polling = true;
  await poll().finally(() => polling = false);
}, 500);
setInterval(refresh, 2000);
process.on("SIGTERM", () => process.exit(0));
