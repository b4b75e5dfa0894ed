/**
 * A server for the throughput benchmarks, on the runtime running it:
 * `api` serves the handler on the API suite's fixtures, `bare` serves a
 * constant JSON body through the same adapter, whatever the request (the
 * ceiling). Prints its URL; stops on SIGTERM.
 *
 * @module
 */
import process from "node:process";
import { parseFixtures } from "../src/fixtures.ts";
import { createHandler } from "../src/handler.ts";
import { MemoryStore } from "../src/memory_store.ts";
import { serve } from "../src/serve.ts";
import { apiFixtures } from "../test/support/api_fixtures.ts";

/** The bare server's body: the webhook trigger test's answer, constant. */
const BARE_BODY = '{"events":[{"order":{"id":7,"items":["a","b"]},"ok":true}]}';

const mode = process.argv[2] ?? "api";
const store = new MemoryStore();
await store.seed(parseFixtures(apiFixtures));
const handler = mode === "bare"
  ? () =>
    Promise.resolve(
      new Response(BARE_BODY, {
        headers: { "content-type": "application/json" },
      }),
    )
  : createHandler({ store, logError: () => {} });
const server = await serve(handler, { port: 0, hostname: "127.0.0.1" });
console.log(server.url);
process.on("SIGTERM", () => void server.close().then(() => process.exit(0)));
