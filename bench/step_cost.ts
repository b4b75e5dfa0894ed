/**
 * What each step of the server's pipeline costs a request, in process, by
 * removal: the handler as `server/app.ts` builds it (the access log, the
 * draining step, the runtime's steps, the reference page), then the same
 * with one of them left out, and the API's own steps in layers: the
 * context and the pipeline's entry (a first step answering at once), then
 * routing, authentication and the operation. CPU µs a request over a
 * constant handler, medians of alternating rounds, for the trigger test and
 * the DELETE of an unknown integration (404), owner token.
 *
 * Run: `node bench/step_cost.ts` (also `deno run -A`, `bun`);
 * `BENCH_ROUNDS` (default 7), `BENCH_REQUESTS` a round (default 20000).
 * Without a server, the runtime's own server is not in the figure: on Node
 * the runtime steps see no `{ incoming, outgoing }` (the request's end is
 * its promise), on Bun no `server` and on Deno no `info`.
 *
 * @module
 */
import process from "node:process";
import { parseFixtures } from "../src/store/fixtures.ts";
import { createHandler, type Handler } from "../src/handler.ts";
import type { Middleware } from "../src/http/mod.ts";
import { MemoryStore } from "../src/store/memory_store.ts";
import { createAccessLog } from "../src/telemetry/access_log.ts";
import { batchedLines } from "../server/observability/log_lines.ts";
import { Drain } from "../server/runtimes/drain.ts";
import { runtimeName, runtimeSteps } from "../server/runtimes/mod.ts";
import { referencePage } from "../server/files/reference_page.ts";
import { apiFixtures } from "../test/support/api_fixtures.ts";
import { constant, cpuMicros, median, requests } from "./in_process.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 20_000);

const store = new MemoryStore();
await store.seed(parseFixtures(apiFixtures));
const lines = batchedLines({ write: (_chunk, done) => done() });
const accessLog = () => createAccessLog({ write: lines.write });

/** The server's handler, optionally without some of its steps. */
function server(without: "log" | "drain" | "runtime" | "docs" | "none") {
  const drain = without === "drain" ? undefined : new Drain();
  const steps = runtimeSteps(drain);
  return createHandler({
    store,
    logError: () => {},
    middleware: [
      // runtimeSteps(drain) puts the draining step first.
      ...(without === "runtime" ? steps.slice(0, 1) : steps),
      ...(without === "docs" ? [] : [referencePage()]),
    ],
    ...(without === "log" ? {} : { onRequestFinished: accessLog() }),
  });
}
const answerAtOnce: Middleware = (context) =>
  Promise.resolve(context.json({ events: [] }));
const handlers: Record<string, Handler> = {
  server: server("none"),
  "without log": server("log"),
  "without drain": server("drain"),
  "without runtime steps": server("runtime"),
  "without reference page": server("docs"),
  "core (no server steps, no log)": createHandler({
    store,
    logError: () => {},
  }),
  "context and entry only": createHandler({
    store,
    logError: () => {},
    middleware: [answerAtOnce],
  }),
};

const samples: Record<string, number[]> = {};
for (let round = 0; round < ROUNDS; round += 1) {
  for (const [name, make] of Object.entries(requests)) {
    const order = Object.entries(handlers);
    if (round % 2 === 1) order.reverse();
    for (const [mode, handler] of order) {
      const base = await cpuMicros(constant, make, REQUESTS);
      const cost = await cpuMicros(handler, make, REQUESTS);
      (samples[`${name}\t${mode}`] ??= []).push(cost - base);
    }
  }
}
const of = (name: string, mode: string) => median(samples[`${name}\t${mode}`]!);
console.log(
  `${runtimeName()}, CPU µs a request over a constant handler, median of ${ROUNDS}:`,
);
console.log("| request | what | µs |");
console.log("| --- | --- | --- |");
for (const name of Object.keys(requests)) {
  const full = of(name, "server");
  const core = of(name, "core (no server steps, no log)");
  const entry = of(name, "context and entry only");
  const rows: [string, number][] = [
    ["the server's handler", full],
    ["access log", full - of(name, "without log")],
    ["draining step", full - of(name, "without drain")],
    ["runtime steps", full - of(name, "without runtime steps")],
    ["reference page step", full - of(name, "without reference page")],
    ["context, pipeline entry, a JSON answer", entry],
    ["routing, authentication, operation", core - entry],
  ];
  for (const [what, cost] of rows) {
    console.log(`| ${name} | ${what} | ${cost.toFixed(2)} |`);
  }
}
