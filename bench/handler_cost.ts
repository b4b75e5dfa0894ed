/**
 * The handler's own cost per request, without HTTP: microseconds over a
 * handler answering a constant body, for the trigger test (webhook flow) and
 * the DELETE of an unknown integration (404). Runs on the runtime running it:
 * `node bench/handler_cost.ts`, `deno run -A bench/handler_cost.ts`,
 * `bun bench/handler_cost.ts`. Rounds alternate; medians are printed. The
 * handler runs twice: bare (`api`) and with the server's access log at `info`
 * (`api+log`: the same listener and batched writer as `server/app.ts`,
 * writing to a sink that drops the text).
 *
 * @module
 */
import process from "node:process";
import { parseFixtures } from "../src/store/fixtures.ts";
import { createHandler, type Handler } from "../src/handler.ts";
import { MemoryStore } from "../src/store/memory_store.ts";
import { createAccessLog } from "../src/telemetry/access_log.ts";
import { batchedLines } from "../server/observability/log_lines.ts";
import { apiFixtures } from "../test/support/api_fixtures.ts";
import { constant, cpuMicros, median, requests } from "./in_process.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 20_000);

const store = new MemoryStore();
await store.seed(parseFixtures(apiFixtures));
const lines = batchedLines({ write: (_chunk, done) => done() });
const handlers: Record<string, Handler> = {
  api: createHandler({ store, logError: () => {} }),
  "api+noop": createHandler({
    store,
    logError: () => {},
    onRequestFinished: () => {},
  }),
  "api+log": createHandler({
    store,
    logError: () => {},
    onRequestFinished: createAccessLog({ write: lines.write }),
  }),
};

const samples: Record<string, number[]> = {};
for (let round = 0; round < ROUNDS; round += 1) {
  const order = Object.entries(requests);
  if (round % 2 === 1) order.reverse();
  for (const [name, make] of order) {
    const base = await cpuMicros(constant, make, REQUESTS);
    for (const [mode, handler] of Object.entries(handlers)) {
      const cost = await cpuMicros(handler, make, REQUESTS);
      (samples[`${name} ${mode}`] ??= []).push(cost - base);
    }
  }
}
const runtime = "Deno" in globalThis
  ? "deno"
  : "Bun" in globalThis
  ? "bun"
  : "node";
console.log(
  `${runtime}: extra µs per request over a constant handler (median of ${ROUNDS}): ` +
    Object.entries(samples).map(([name, values]) =>
      `${name} +${median(values).toFixed(2)}`
    ).join(", "),
);
