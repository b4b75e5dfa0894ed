/**
 * A server for the throughput benchmarks, on the runtime running it. Modes:
 *
 * - `bare`: the runtime's own server (`Deno.serve`, `Bun.serve`,
 *   `@hono/node-server` on Node) answering a constant JSON body whatever the
 *   request: the ceiling the issue measures against.
 * - `reading`: the same after reading the request's method, URL and
 *   `Authorization` header (what any handler must pay to the runtime).
 * - `minimal`: the least the API's work can cost, written by hand with none
 *   of its generality: the path split on `/`, the bearer token and the
 *   request id read, the token looked up in a `Map`, a JSON body with
 *   `Content-Type` and `X-Request-Id`, and one JSON access-log line batched
 *   to stdout each turn of the event loop (stdout goes to a file in
 *   `hot_path.ts`). No validation, no error format, no routing table.
 * - `api`: the handler on the API suite's fixtures, through the server's
 *   adapter (`server/runtimes/mod.ts`), without the access log.
 *
 * Prints its URL; stops on SIGTERM.
 *
 * @module
 */
import process from "node:process";
import { setImmediate } from "node:timers";
import { parseFixtures } from "../src/store/fixtures.ts";
import { createHandler } from "../src/handler.ts";
import { MemoryStore } from "../src/store/memory_store.ts";
import { serve } from "../server/runtimes/mod.ts";
import { apiFixtures, TOKENS } from "../test/support/api_fixtures.ts";
import { type FetchHandler, serveOnRuntime } from "./runtime_server.ts";

/** The bare server's body: the webhook trigger test's answer, constant. */
const BARE_BODY = '{"events":[{"order":{"id":7,"items":["a","b"]},"ok":true}]}';

const bare: FetchHandler = () =>
  new Response(BARE_BODY, { headers: { "content-type": "application/json" } });

/** The least any real handler reads: method, URL and one header. */
const reading: FetchHandler = (request) => {
  if (request.method === "" || request.url === "") throw new Error();
  if (request.headers.get("authorization") === "") throw new Error();
  return bare(request);
};

/**
 * The API's irreducible work for one request, by hand (see the module doc).
 * `BENCH_MINIMAL_WITHOUT` (comma-separated `log`, `id`, `json`) leaves out
 * the access-log line, the `X-Request-Id` (read and sent) or the
 * `JSON.stringify` of the body, to price each (`bench/minimal_parts.ts`).
 */
function minimal(): FetchHandler {
  const without = new Set(
    (process.env.BENCH_MINIMAL_WITHOUT ?? "").split(",").filter(Boolean),
  );
  const grants = new Map<string, string>([[TOKENS.owner, "proj-acme"]]);
  let queued = "";
  const flush = () => {
    const chunk = queued;
    queued = "";
    process.stdout.write(chunk);
  };
  return (request) => {
    const url = request.url;
    const segments = url.slice(url.indexOf("/", 8)).split("/");
    const authorization = request.headers.get("authorization") ?? "";
    const requestId = without.has("id")
      ? "-"
      : request.headers.get("x-request-id") ?? crypto.randomUUID();
    const projectId = grants.get(authorization.slice(7));
    const status = projectId === undefined ? 401 : 200;
    const body = without.has("json")
      ? BARE_BODY
      : JSON.stringify({ events: [{ flow: segments[3], ok: true }] });
    const headers: Record<string, string> = without.has("id")
      ? { "content-type": "application/json" }
      : { "content-type": "application/json", "x-request-id": requestId };
    if (without.has("log")) return new Response(body, { status, headers });
    if (queued === "") setImmediate(flush);
    queued += `{"time":"${
      new Date().toISOString()
    }","level":"info","request_id":"${requestId}","method":"${request.method}","path":"${
      segments.join("/")
    }","status":${status},"bytes":${body.length},"project_id":"${projectId}"}\n`;
    return new Response(body, { status, headers });
  };
}

const mode = process.argv[2] ?? "api";
const port = Number(process.env.PORT ?? 0);
if (mode === "api") {
  const store = new MemoryStore();
  await store.seed(parseFixtures(apiFixtures));
  const server = await serve(createHandler({ store, logError: () => {} }), {
    port,
    hostname: "127.0.0.1",
  });
  console.log(server.url);
  process.on(
    "SIGTERM",
    () => void server.close().then(() => process.exit(0)),
  );
} else {
  const handlers: Record<string, FetchHandler> = {
    bare,
    reading,
    minimal: minimal(),
  };
  const handler = handlers[mode];
  if (handler === undefined) throw new Error(`unknown mode ${mode}`);
  console.log(await serveOnRuntime(handler, port));
  process.on("SIGTERM", () => process.exit(0));
}
