/**
 * The mock's CORS (`mock/cors.ts`) against Hono's `cors` middleware
 * (`hono/cors`, with Hono's app around it), in-process on the runtime
 * running it (issue 26). Two parts:
 *
 * 1. Behaviour: the same requests to the mock's pipeline with each CORS,
 *    one line per property the mock's tests ask for, `yes`/`no` per
 *    implementation.
 * 2. Cost: µs per request of each pipeline over the same pipeline with no
 *    CORS at all, for an API answer (`GET /v1/call/{id}/message`, owner
 *    token, `Origin`), a cheap answer (`GET /healthz`, `Origin`) and a
 *    preflight (`OPTIONS /v1/call/message/bulk`). A bounded loop of
 *    `BENCH_REQUESTS` (default 10000) requests per sample, bodies read,
 *    timed by the process's CPU time (`process.cpuUsage()`);
 *    `BENCH_ROUNDS` (default 9) rounds, the order of the pipelines rotated
 *    from round to round; medians.
 *
 * Pipelines (the mock's guard outermost, the control API and the API
 * inside, as `mock/mock_server.ts` builds them):
 * - _none_: no CORS;
 * - _ours_: `createMockServer().fetch` as shipped: the `allowCors` step,
 *   whose headers every answer is built with;
 * - _hono_: `new Hono()` with `cors()` configured as close to ours as it
 *   allows (origin echoed, or `*`; the route's methods from the same route
 *   table; the same exposed headers; max age 86400), `app.all("*")` handing
 *   the request to the same inner handler.
 *
 * Run: `node bench/compare_cors.ts` (also `deno run -A`, `bun`).
 *
 * @module
 */
import process from "node:process";
import { Hono } from "hono";
import { cors } from "hono/cors";
import { controlApi } from "../mock/control_api.ts";
import { allowCors, routeMethods } from "../mock/cors.ts";
import { controlOpenApiDocument } from "../mock/control_openapi.ts";
import { guardHosts } from "../mock/guard.ts";
import { createMockServer } from "../mock/mock_server.ts";
import { createMockState } from "../mock/mock_state.ts";
import { openApiDocument } from "../src/openapi/document.ts";
import { Context, pathnameOf } from "../src/http/context.ts";
import { compose } from "../src/http/pipeline.ts";
import {
  apiFixtures,
  CALLS,
  INTEGRATIONS,
  TOKENS,
} from "../test/support/api_fixtures.ts";
import { median } from "./hot_path.ts";
import { cpuMicros } from "./in_process.ts";

type Handler = (request: Request) => Promise<Response>;

const ORIGIN = "http://localhost:5173";
const BASE = "http://127.0.0.1:4010";
const EXPOSED = ["Content-Disposition", "X-Request-Id", "WWW-Authenticate"];
const methodsAt = routeMethods([
  openApiDocument,
  controlOpenApiDocument,
  { paths: { "/openapi.json": { get: {} } } },
]);

/** Hono's app with `cors()` as close to the mock's as its options allow. */
function withHonoCors(inner: Handler): Handler {
  const app = new Hono();
  app.use(
    "*",
    cors({
      origin: (origin) => origin || "*",
      allowMethods: (_origin, c) => methodsAt(pathnameOf(c.req.url)),
      exposeHeaders: [...EXPOSED, "Allow"],
      maxAge: 86400,
    }),
  );
  app.all("*", (c) => inner(c.req.raw));
  // Rethrown rather than logged and turned into a 500 (Hono's default).
  app.onError((error) => {
    throw error;
  });
  return async (request) => await app.fetch(request);
}

/** The mock's pipelines, each on its own state from the API's fixtures. */
function pipelines(): Record<string, Handler> {
  const bare = () =>
    createMockState(
      { fixtures: apiFixtures, logError() {} },
      (state) => [guardHosts(), controlApi(state)],
    ).handler;
  return {
    none: bare(),
    ours: createMockServer({ fixtures: apiFixtures, logError() {} }).fetch,
    hono: withHonoCors(bare()),
  };
}

/** Our CORS step in front of a handler, as the mock's pipeline runs it. */
function withOurCors(inner: Handler): Handler {
  const run = compose(
    [allowCors(), (context) => inner(context.request)],
    () => {
      throw new Error("unexpected");
    },
  );
  return (request) => run(new Context(request));
}

const get = (path: string, headers: Record<string, string> = {}) =>
  new Request(BASE + path, { headers: { origin: ORIGIN, ...headers } });
const preflight = (path: string, method: string, headers = "") =>
  new Request(BASE + path, {
    method: "OPTIONS",
    headers: {
      origin: ORIGIN,
      "access-control-request-method": method,
      ...(headers === "" ? {} : { "access-control-request-headers": headers }),
    },
  });
const owner = { authorization: `Bearer ${TOKENS.owner}` };

/** What the mock's tests and clients ask of CORS, each a yes/no check. */
const CHECKS: [string, (handler: Handler) => Promise<boolean>][] = [
  ["preflight to a route: 204 with that route's methods", async (h) => {
    const r = await h(preflight(`/v1/integration/${INTEGRATIONS.mcp}`, "GET"));
    return r.status === 204 &&
      r.headers.get("access-control-allow-methods") === "DELETE";
  }],
  ["preflight to no route: the handler's 404, no Allow-Methods", async (h) => {
    const r = await h(preflight("/v1/nothing", "POST"));
    return r.status === 404 &&
      r.headers.get("access-control-allow-methods") === null;
  }],
  [
    "OPTIONS without Access-Control-Request-Method goes to the handler",
    async (h) => {
      const r = await h(
        new Request(`${BASE}/v1/call/message/bulk`, { method: "OPTIONS" }),
      );
      return r.status !== 204;
    },
  ],
  ["Allow-Headers echoes the request's list as sent", async (h) => {
    const r = await h(
      preflight("/v1/call/message/bulk", "POST", "authorization, content-type"),
    );
    return r.headers.get("access-control-allow-headers") ===
      "authorization, content-type";
  }],
  ["preflight varies on Origin and the two request headers", async (h) => {
    const r = await h(
      preflight("/v1/call/message/bulk", "POST", "authorization"),
    );
    const vary = (r.headers.get("vary") ?? "").toLowerCase();
    return [
      "origin",
      "access-control-request-method",
      "access-control-request-headers",
    ]
      .every((name) => vary.includes(name));
  }],
  ["preflight carries X-Content-Type-Options: nosniff", async (h) => {
    const r = await h(preflight("/v1/call/message/bulk", "POST"));
    return r.headers.get("x-content-type-options") === "nosniff";
  }],
  ["answer: Origin echoed, Vary: Origin", async (h) => {
    const r = await h(get(`/v1/call/${CALLS.first}/message`, owner));
    return r.headers.get("access-control-allow-origin") === ORIGIN &&
      /\bOrigin\b/.test(r.headers.get("vary") ?? "");
  }],
  ["answer without Origin: Allow-Origin *", async (h) => {
    const r = await h(new Request(`${BASE}/healthz`));
    return r.headers.get("access-control-allow-origin") === "*";
  }],
  [
    "401 exposes X-Request-Id, WWW-Authenticate, Content-Disposition",
    async (h) => {
      const r = await h(get(`/v1/call/${CALLS.first}/message`));
      const exposed = (r.headers.get("access-control-expose-headers") ?? "")
        .toLowerCase();
      return r.status === 401 &&
        EXPOSED.every((name) => exposed.includes(name.toLowerCase()));
    },
  ],
  ["never Allow-Credentials (bearer tokens, not cookies)", async (h) => {
    const r = await h(get(`/v1/call/${CALLS.first}/message`, owner));
    return r.headers.get("access-control-allow-credentials") === null;
  }],
  [
    "a 403 from the guard (control API, foreign origin) has no CORS",
    async (h) => {
      const r = await h(
        new Request(`${BASE}/__mock/requests`, {
          headers: { origin: "http://evil.example" },
        }),
      );
      return r.status === 403 &&
        r.headers.get("access-control-allow-origin") === null;
    },
  ],
];

/** A dropped connection (`Response.error()`) must pass through unchanged. */
async function passesNetworkError(
  wrap: (inner: Handler) => Handler,
): Promise<boolean> {
  try {
    const r = await wrap(() => Promise.resolve(Response.error()))(
      get("/healthz"),
    );
    return r.type === "error";
  } catch {
    return false;
  }
}

const runtime = "Deno" in globalThis
  ? "deno"
  : "Bun" in globalThis
  ? "bun"
  : "node";
const count = Number(process.env.BENCH_REQUESTS ?? 10000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 9);

const handlers = pipelines();
const compared = ["ours", "hono"] as const;
console.log(`### Behaviour (${runtime})\n`);
console.log("| property | ours | hono |");
console.log("| --- | --- | --- |");
const yes = (ok: boolean) => (ok ? "yes" : "**no**");
for (const [name, check] of CHECKS) {
  console.log(
    `| ${name} | ${yes(await check(handlers.ours!))} | ${
      yes(await check(handlers.hono!))
    } |`,
  );
}
console.log(
  `| a dropped connection (Response.error()) passes through | ${
    yes(await passesNetworkError(withOurCors))
  } | ${yes(await passesNetworkError(withHonoCors))} |`,
);

const REQUESTS: Record<string, () => Request> = {
  "API answer": () => get(`/v1/call/${CALLS.first}/message`, owner),
  healthz: () => get("/healthz"),
  preflight: () =>
    preflight("/v1/call/message/bulk", "POST", "authorization, content-type"),
};
const names = Object.keys(handlers);
const samples = new Map<string, number[]>();
for (const request of Object.keys(REQUESTS)) {
  for (const name of names) {
    // Warm-up, and the journal filled to its limit.
    await cpuMicros(handlers[name]!, REQUESTS[request]!, 2000);
    samples.set(`${request}|${name}`, []);
  }
}
for (let round = 0; round < rounds; round += 1) {
  const order = names.map((_, i) => names[(i + round) % names.length]!);
  if (round % 2 === 1) order.reverse();
  for (const [request, make] of Object.entries(REQUESTS)) {
    for (const name of order) {
      samples.get(`${request}|${name}`)!.push(
        await cpuMicros(handlers[name]!, make, count),
      );
    }
  }
}
const load = (await import("node:os")).loadavg().map((l) => l.toFixed(2));
console.log(
  `\n### Cost (${runtime}), ${new Date().toISOString()}, load average ${
    load.join(" ")
  }: ${count} requests a sample, ${rounds} rotated rounds, medians, CPU µs/request (CORS = pipeline − none)\n`,
);
console.log(
  `| request | none | ${compared.map((c) => `${c} (CORS)`).join(" | ")} |`,
);
console.log(`| --- | --- | ${compared.map(() => "---").join(" | ")} |`);
for (const request of Object.keys(REQUESTS)) {
  const of = (name: string) => median(samples.get(`${request}|${name}`)!);
  const none = of("none");
  console.log(
    `| ${request} | ${none.toFixed(2)} | ${
      compared.map((name) =>
        `${of(name).toFixed(2)} (${(of(name) - none).toFixed(2)})`
      ).join(" | ")
    } |`,
  );
}
