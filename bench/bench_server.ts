/**
 * A server for the throughput benchmark, on the runtime running it:
 * `api` serves the handler on the API suite's fixtures, `bare` serves a
 * constant response through the same adapter (the ceiling). Prints its URL.
 *
 * @module
 */
import process from "node:process";
import { parseFixtures } from "../src/fixtures.ts";
import { createHandler } from "../src/handler.ts";
import { MemoryStore } from "../src/memory_store.ts";
import { serve } from "../src/serve.ts";
import { apiFixtures } from "../test/support/api_fixtures.ts";

const mode = process.argv[2] ?? "api";
const store = new MemoryStore();
await store.seed(parseFixtures(apiFixtures));
const handler = mode === "bare"
  ? () =>
    Promise.resolve(
      new Response("[]", { headers: { "content-type": "application/json" } }),
    )
  : createHandler({ store, logError: () => {} });
const server = await serve(handler, { port: 0, hostname: "127.0.0.1" });
console.log(server.url);
process.on("SIGTERM", () => void server.close().then(() => process.exit(0)));
