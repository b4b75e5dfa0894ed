/**
 * What a user would write instead of the API, on Postgres: @hono/node-server
 * and postgres.js (the same pool size as the API's default, 10), each request
 * the two statements a straightforward service sends, the token by its
 * SHA-256 digest, then the operation's own statement. No validation, no error
 * format, no access log: only the three routes `bench/postgres_api.ts` sends.
 *
 * Run by `bench/postgres_api.ts` with `DATABASE_URL`; prints its URL.
 *
 * @module
 */
import { createHash } from "node:crypto";
import process from "node:process";
import { serve } from "@hono/node-server";
import postgres from "postgres";

const sql = postgres(process.env.DATABASE_URL!, { max: 10, onnotice() {} });
const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json" },
  });

async function answer(request: Request): Promise<Response> {
  const token = request.headers.get("authorization")?.slice(7) ?? "";
  const digest = createHash("sha256").update(token).digest("hex");
  const [grant] = await sql<{ project_id: string }[]>`
    SELECT project_id, role FROM tokens WHERE token_hash = ${digest}`;
  if (grant === undefined) return json({ detail: "unauthorized" }, 401);
  const [, , kind, id] = new URL(request.url).pathname.split("/");
  if (kind === "workflow") {
    const [flow] = await sql<{ trigger: { sample_payload?: unknown } }[]>`
      SELECT name, trigger FROM flows
      WHERE project_id = ${grant.project_id} AND flow_id = ${id!}`;
    return flow === undefined
      ? json({ detail: "not found" }, 404)
      : json({ events: [flow.trigger.sample_payload] });
  }
  if (kind === "integration") {
    const deleted = await sql`
      DELETE FROM integrations
      WHERE project_id = ${grant.project_id} AND integration_id = ${id!}`;
    return deleted.count === 1
      ? new Response(null, { status: 204 })
      : json({ detail: "not found" }, 404);
  }
  const rows = await sql<{ body: string | null }[]>`
    SELECT m.body::text AS body
    FROM calls c LEFT JOIN call_messages m ON m.call_id = c.call_id
    WHERE c.project_id = ${grant.project_id} AND c.call_id = ${id!}
    ORDER BY m.position`;
  return rows.length === 0
    ? json({ detail: "not found" }, 404)
    : new Response(`[${rows.flatMap((row) => row.body ?? []).join(",")}]`, {
      headers: { "content-type": "application/json" },
    });
}

const server = serve({ fetch: answer, port: 0, hostname: "127.0.0.1" }, (
  info,
) => console.log(`http://127.0.0.1:${info.port}`));
process.on("SIGTERM", () => {
  server.close();
  void sql.end({ timeout: 1 });
});
