/**
 * The bulk export benchmarks' data: 500 calls of `BENCH_MESSAGES` (default
 * 200) messages of about 250 bytes, text that deflates as speech does.
 *
 * @module
 */
import process from "node:process";
import { type ManyCalls, manyCalls } from "../test/support/many_calls.ts";

/** How many calls are exported. */
export const CALLS = 500;
/** How many messages each call has. */
export const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 200);

const WORDS = ("order refund invoice delivery account password address " +
  "payment card subscription cancel upgrade support agent thanks please " +
  "today tomorrow week number email phone help issue resolved pending")
  .split(" ");

/** About 30 words picked by a seeded generator: text that deflates as speech. */
function sentence(seed: number): string {
  let state = seed + 1;
  return Array.from({ length: 30 }, () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return WORDS[state % WORDS.length];
  }).join(" ");
}

/**
 * 500 calls × 200 messages of about 250 bytes each (25 MB of JSON); with
 * `messages: 0`, only the ids and the token, for a process that holds none.
 *
 * @example
 * ```ts ignore
 * const { token, callIds, fixtures } = benchData(200);
 * ```
 */
export const benchData = (messages: number = MESSAGES): ManyCalls =>
  manyCalls({
    prefix: "be",
    calls: CALLS,
    messages,
    message: (call, m) => ({
      speaker: m % 2 === 0 ? "agent" : "customer",
      at: m * 2.5,
      text: sentence(call * 1000 + m),
      meta: { sentiment: m % 3, confidence: 0.93, tags: ["bench", "zip"] },
    }),
  });
