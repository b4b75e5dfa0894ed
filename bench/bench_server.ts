/**
 * A server for the throughput benchmarks, on the runtime running it:
 * `api` serves the handler on the API suite's fixtures, `bare` serves a
 * constant JSON body through the same adapter, whatever the request (the
 * ceiling), `reading` the same after reading the request's method, URL and
 * `Authorization` header (what any handler must pay to the runtime). Prints
 * its URL; stops on SIGTERM.
 *
 * @module
 */
import process from "node:process";
import { parseFixtures } from "../src/store/fixtures.ts";
import { createHandler } from "../src/handler.ts";
import { MemoryStore } from "../src/store/memory_store.ts";
import { serve } from "../server/_serve.ts";
import { apiFixtures } from "../test/support/api_fixtures.ts";

/** The bare server's body: the webhook trigger test's answer, constant. */
const BARE_BODY = '{"events":[{"order":{"id":7,"items":["a","b"]},"ok":true}]}';

const mode = process.argv[2] ?? "api";
const store = new MemoryStore();
await store.seed(parseFixtures(apiFixtures));
const bare = () =>
  Promise.resolve(
    new Response(BARE_BODY, {
      headers: { "content-type": "application/json" },
    }),
  );
/** The least any real handler reads: method, URL and one header. */
const reading = (request: Request) => {
  if (request.method === "" || request.url === "") throw new Error();
  if (request.headers.get("authorization") === "") throw new Error();
  return bare();
};
const handler = mode === "bare"
  ? bare
  : mode === "reading"
  ? reading
  : createHandler({ store, logError: () => {} });
const server = await serve(handler, {
  port: Number(process.env.PORT ?? 0),
  hostname: "127.0.0.1",
});
console.log(server.url);
process.on("SIGTERM", () => void server.close().then(() => process.exit(0)));
