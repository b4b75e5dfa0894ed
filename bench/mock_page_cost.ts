/**
 * What the request journal and the live page cost the standalone mock, in
 * process (no HTTP, so the figures are not drowned by the network's noise):
 *
 * - CPU µs per request of `createMockServer().fetch` for the trigger test,
 *   this checkout's mock against `BENCH_BEFORE`'s (a checkout of an earlier
 *   commit, e.g. a `git worktree`), rounds alternated, medians;
 * - CPU µs per request of serving what the live page polls while open: each
 *   request's row once (`GET /__mock/rows?after=`), and, for comparison, each
 *   as a HAR entry (`GET /__mock/journal.har?after=`), 1000 requests a poll.
 *
 * Run: `node bench/mock_page_cost.ts` (`BENCH_ROUNDS`, default 15, of
 * `BENCH_REQUESTS`, default 20000).
 *
 * @module
 */
import { join } from "node:path";
import process from "node:process";
import { demoFixtures } from "../mod.ts";
import { createMockServer, type MockServer } from "../mock/mod.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 20_000);
const BEFORE = process.env.BENCH_BEFORE;
const FLOW = "a0b1c2d3-e4f5-4a6b-9c7d-8e9f0a1b2c3d";
const BASE = "http://127.0.0.1:4010";

const trigger = () =>
  new Request(`${BASE}/v1/workflow/${FLOW}/trigger/test`, {
    method: "POST",
    headers: { authorization: "Bearer demo-owner", "content-length": "0" },
  });

/** CPU microseconds that `work` takes. */
async function cpu(work: () => Promise<void>): Promise<number> {
  const start = process.cpuUsage();
  await work();
  const used = process.cpuUsage(start);
  return used.user + used.system;
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[values.length >> 1]!;

const mocks: Record<string, MockServer> = {
  mock: createMockServer({ fixtures: demoFixtures }),
};
if (BEFORE !== undefined) {
  const before = await import(join(BEFORE, "mock", "mod.ts"));
  mocks["mock before"] = before.createMockServer({ fixtures: demoFixtures });
}
const names = Object.keys(mocks);
const perRequest: Record<string, number[]> = {};
for (const name of names) perRequest[name] = [];
for (let round = 0; round < ROUNDS; round += 1) {
  for (let i = 0; i < names.length; i += 1) {
    const name = names[(i + round) % names.length]!;
    const mock = mocks[name]!;
    const used = await cpu(async () => {
      for (let n = 0; n < REQUESTS; n += 1) {
        await (await mock.fetch(trigger())).text();
      }
    });
    perRequest[name]!.push(used / REQUESTS);
  }
}
console.log(
  `CPU µs per trigger test request, in process (${runtime()}), medians of ${ROUNDS} rounds of ${REQUESTS}:`,
);
for (const name of names) {
  console.log(`- ${name}: ${median(perRequest[name]!).toFixed(2)}`);
}

const { mock } = mocks as { mock: MockServer };
for (const route of ["rows", "journal.har"]) {
  const polls: number[] = [];
  for (let poll = 0; poll < 7; poll += 1) {
    const seq = (await mock.har(Number.MAX_SAFE_INTEGER)).log._seq;
    for (let n = 0; n < 1000; n += 1) {
      await (await mock.fetch(trigger())).text();
    }
    let text = "";
    const used = await cpu(async () => {
      const url = `${BASE}/__mock/${route}?after=${seq}`;
      text = await (await mock.fetch(new Request(url))).text();
    });
    if (!text.includes(`${seq + 1000}`)) throw new Error(`${route}: short`);
    polls.push(used / 1000);
  }
  console.log(
    `- serving each request once from GET /__mock/${route}?after=: ${
      median(polls).toFixed(2)
    } µs per request (median of 7 polls of 1000)`,
  );
}

function runtime(): string {
  const versions = process.versions as Record<string, string | undefined>;
  if (versions.bun !== undefined) return `bun ${versions.bun}`;
  if (versions.deno !== undefined) return `deno ${versions.deno}`;
  return `node ${process.version}`;
}
