/**
 * The idiomatic Hono peer of issue 24: the app a user would write instead of
 * the API for the two requests `bench/hot_path.ts` measures, served on the
 * runtime running it the way each runtime's guide shows (`Bun.serve` with
 * `app.fetch`, `Deno.serve(app.fetch)`, `serve` from `@hono/node-server`).
 *
 * - `POST /v1/workflow/{flow_id}/trigger/test`: the webhook flow's sample
 *   payload as `{"events":[…]}` (the trigger test's answer for that kind; the
 *   peer knows no other kind and answers 404 for them);
 * - `DELETE /v1/integration/{integration_id}`: the id validated with
 *   `zValidator("param", z.object({ integration_id: z.string().uuid() }))`,
 *   then looked up in a `Map`: 204 once deleted, else the API's own 404 body
 *   (`{"status":"error","error_code":"INTEGRATION_NOT_FOUND","message":…}`).
 *
 * Before them: `requestId()` (hono/request-id: the `X-Request-Id` read or a
 * UUID, sent back), a small access-log middleware writing one JSON line per
 * request with `console.log` (and setting the API's `nosniff` and
 * `Cache-Control: no-store` before the handler runs, so both answer the same
 * headers; set after `next()`, on the finished response, they would take
 * Node's answers off @hono/node-server's fast path: 110 against 54 µs of
 * CPU a request, with no difference on Bun), and
 * `bearerAuth` (hono/bearer-auth) whose `verifyToken` looks the token up in a
 * `Map` of the API suite's fixture tokens.
 *
 * Needs packages that are not dependencies of the project: install them
 * first, without saving, `npm install --no-save hono @hono/zod-validator zod`
 * (`hono` itself comes with `@hono/node-server`). zod and the validator are
 * loaded by computed names so that `deno check bench/` passes without them.
 *
 * Run: `node|deno run -A|bun bench/hono_peer.ts`; prints its URL first (then
 * the access log); `PORT` (default 0); stops on SIGTERM.
 *
 * @module
 */
import process from "node:process";
import { Hono, type MiddlewareHandler } from "hono";
import { bearerAuth } from "hono/bearer-auth";
import { requestId, type RequestIdVariables } from "hono/request-id";
import { parseFixtures } from "../src/store/fixtures.ts";
import { apiFixtures } from "../test/support/api_fixtures.ts";
import { serveOnRuntime } from "./runtime_server.ts";

/** The part of zod this peer uses. */
interface Zod {
  object(shape: Record<string, unknown>): unknown;
  string(): { uuid(): unknown };
}

/** `zValidator` for one `param` shape (its generic typing, spelt out). */
type ZValidator = <T>(
  target: "param",
  schema: unknown,
) => MiddlewareHandler<
  PeerEnv,
  string,
  { in: { param: Record<keyof T, string> }; out: { param: T } }
>;

/** The app's variables: the request id and the token's project. */
type PeerEnv = { Variables: RequestIdVariables & { projectId: string } };

/** Loads a package that is not a dependency, by a computed name. */
async function load(name: string): Promise<Record<string, unknown>> {
  try {
    return await import(name);
  } catch (error) {
    throw new Error(
      `Cannot load ${name}: ${error}; run \`npm install --no-save hono @hono/zod-validator zod\` first`,
    );
  }
}

/**
 * The peer's Hono app on the API suite's fixtures (see the module doc).
 *
 * @example
 * ```ts ignore
 * const app = await honoPeer();
 * Bun.serve({ fetch: app.fetch });
 * ```
 */
export async function honoPeer(): Promise<Hono<PeerEnv>> {
  const { z } = await load("zod") as { z: Zod };
  const { zValidator } = await load("@hono/zod-validator") as {
    zValidator: ZValidator;
  };
  const fixtures = parseFixtures(apiFixtures);
  const grants = new Map(fixtures.tokens.map((t) => [t.token, t.project_id]));
  const flows = new Map(fixtures.flows.map((f) => [f.flow_id, f]));
  const integrations = new Map(
    fixtures.integrations.map((i) => [i.integration_id, i]),
  );

  const app = new Hono<PeerEnv>();
  app.use(requestId());
  app.use(async (c, next) => {
    const start = performance.now();
    c.header("X-Content-Type-Options", "nosniff");
    c.header("Cache-Control", "no-store");
    await next();
    console.log(JSON.stringify({
      time: new Date().toISOString(),
      level: c.res.status >= 400 ? "warn" : "info",
      request_id: c.get("requestId"),
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      duration_ms: Math.round((performance.now() - start) * 1000) / 1000,
      project_id: c.get("projectId"),
    }));
  });
  app.use(
    "/v1/*",
    bearerAuth<PeerEnv>({
      verifyToken: (token, c) => {
        const projectId = grants.get(token);
        if (projectId === undefined) return false;
        c.set("projectId", projectId);
        return true;
      },
    }),
  );

  app.post("/v1/workflow/:flow_id/trigger/test", (c) => {
    const flow = flows.get(c.req.param("flow_id"));
    if (
      flow === undefined || flow.project_id !== c.get("projectId") ||
      flow.trigger.type !== "webhook"
    ) {
      return c.json({
        status: "error",
        error_code: "FLOW_NOT_FOUND",
        message: `Flow ${c.req.param("flow_id")} not found`,
      }, 404);
    }
    return c.json({ events: [flow.trigger.sample_payload] });
  });

  app.delete(
    "/v1/integration/:integration_id",
    zValidator<{ integration_id: string }>(
      "param",
      z.object({ integration_id: z.string().uuid() }),
    ),
    (c) => {
      const { integration_id } = c.req.valid("param");
      const integration = integrations.get(integration_id);
      if (
        integration === undefined ||
        integration.project_id !== c.get("projectId")
      ) {
        return c.json({
          status: "error",
          error_code: "INTEGRATION_NOT_FOUND",
          message: `Integration ${integration_id} not found`,
        }, 404);
      }
      integrations.delete(integration_id);
      return c.body(null, 204);
    },
  );
  return app;
}

if (import.meta.main) {
  const url = await serveOnRuntime(
    (await honoPeer()).fetch,
    Number(process.env.PORT ?? 0),
  );
  console.log(url);
  process.on("SIGTERM", () => process.exit(0));
}
