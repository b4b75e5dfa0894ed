/**
 * `createMockApi` under MSW's `setupServer`, against plain `fetch`: every
 * operation answered by the real handler, state that persists until
 * `reset()`, the helpers, and base URLs with a path. Runs unchanged under
 * Node, Deno and Bun.
 *
 * @module
 */
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import { setupServer } from "msw/node";
import { createMockApi } from "../mock/msw.ts";
import {
  DEFAULT_PROJECT,
  FixturesError,
  type FixturesInput,
} from "../mock/mod.ts";
import {
  apiFixtures,
  CALLS,
  FIRST_MESSAGES,
  FLOWS,
  INTEGRATIONS,
  PROJECT,
  TOKENS,
  TOOLS,
} from "./support/api_fixtures.ts";
import { readZip } from "./support/zip_reader.ts";

const BASE = "https://api.callflow.test";
const NOW = new Date("2026-03-10T12:00:00.000Z");

const api = createMockApi({
  baseUrl: BASE,
  fixtures: apiFixtures,
  now: () => NOW,
});
const prefixed = createMockApi({
  baseUrl: "https://gateway.callflow.test/api/",
  fixtures: apiFixtures,
});
const server = setupServer(...api.handlers, ...prefixed.handlers);

function call(
  method: string,
  path: string,
  token: string | null = TOKENS.owner,
  body?: unknown,
  base = BASE,
): Promise<Response> {
  const headers = new Headers();
  if (token !== null) headers.set("authorization", `Bearer ${token}`);
  if (body !== undefined) headers.set("content-type", "application/json");
  return fetch(`${base}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

describe("createMockApi with MSW setupServer", () => {
  before(() => server.listen({ onUnhandledRequest: "error" }));
  after(() => server.close());
  beforeEach(async () => {
    server.resetHandlers();
    await api.reset();
    await prefixed.reset();
  });

  it("bulk download returns a real ZIP of the seeded transcripts", async () => {
    const response = await call(
      "POST",
      "/v1/call/message/bulk",
      TOKENS.viewer,
      {
        call_ids: [CALLS.first, CALLS.silent, CALLS.second.toUpperCase()],
      },
    );
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "application/zip");
    assert.match(
      response.headers.get("content-disposition") ?? "",
      /filename="transcripts.zip"/,
    );
    const entries = readZip(new Uint8Array(await response.arrayBuffer()));
    assert.deepEqual(entries.map((entry) => entry.name), [
      `${CALLS.first}.json`,
      `${CALLS.second}.json`,
    ]);
    assert.deepEqual(JSON.parse(entries[0]!.text), FIRST_MESSAGES);
  });

  it("call messages returns the call's transcript", async () => {
    const response = await call("GET", `/v1/call/${CALLS.first}/message`);
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), FIRST_MESSAGES);
  });

  it("a deleted integration stays deleted until reset", async () => {
    const path = `/v1/integration/${INTEGRATIONS.http}`;
    assert.equal((await call("DELETE", path)).status, 204);
    assert.deepEqual(api.store.integrationTools(INTEGRATIONS.http).tools, []);
    const again = await call("DELETE", path);
    assert.equal(again.status, 404);
    assert.equal((await again.json()).error_code, "INTEGRATION_NOT_FOUND");

    await api.reset();
    assert.equal(api.store.hasIntegration(INTEGRATIONS.http), true);
    assert.deepEqual(
      api.store.integrationTools(INTEGRATIONS.http).tools.map((t) => t.tool_id),
      [TOOLS.lookup, TOOLS.cancel],
    );
    assert.equal((await call("DELETE", path)).status, 204);
  });

  it("trigger test returns the webhook's sample payload", async () => {
    const response = await call(
      "POST",
      `/v1/workflow/${FLOWS.webhook}/trigger/test`,
    );
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), {
      events: [{ order: { id: 7, items: ["a", "b"] }, ok: true }],
    });
  });

  it("a small body on a route that takes none is ignored, as FastAPI does", async () => {
    const trigger = `/v1/workflow/${FLOWS.webhook}/trigger/test`;
    const without = await call("POST", trigger);
    for (const body of [{}, null, [], { dry_run: true }]) {
      const response = await call("POST", trigger, TOKENS.owner, body);
      assert.equal(response.status, 200, JSON.stringify(body));
      assert.deepEqual(await response.json(), await without.clone().json());
    }
    const bad = await call(
      "POST",
      "/v1/workflow/nope/trigger/test",
      TOKENS.owner,
      {},
    );
    assert.equal(bad.status, 422);
    assert.equal((await bad.json()).detail[0].type, "uuid_parsing");
    const deleted = await call(
      "DELETE",
      `/v1/integration/${INTEGRATIONS.http}`,
      TOKENS.owner,
      {},
    );
    assert.equal(deleted.status, 204);
    await api.reset();
  });

  it("a body over 64 KiB on a route that takes none is 413, as over HTTP", async () => {
    const trigger = `/v1/workflow/${FLOWS.webhook}/trigger/test`;
    for (const base of [BASE, "https://gateway.callflow.test/api"]) {
      const response = await fetch(`${base}${trigger}`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKENS.owner}` },
        body: " ".repeat(64 * 1024 + 1),
      });
      assert.equal(response.status, 413, base);
      assert.equal((await response.json()).error_code, "PAYLOAD_TOO_LARGE");
    }
    const bound = await call("POST", trigger, TOKENS.owner, " ".repeat(65_534));
    assert.equal(bound.status, 200); // 65,536 bytes as JSON: ignored
  });

  it("validation, auth and role errors are the real ones", async () => {
    const invalid = await call("POST", "/v1/call/message/bulk", TOKENS.owner, {
      call_ids: [],
    });
    assert.equal(invalid.status, 422);
    assert.equal((await invalid.json()).detail[0].type, "too_short");

    const anonymous = await call(
      "GET",
      `/v1/call/${CALLS.first}/message`,
      null,
    );
    assert.equal(anonymous.status, 401);
    assert.match(anonymous.headers.get("www-authenticate") ?? "", /^Bearer/);

    const member = await call(
      "DELETE",
      `/v1/integration/${INTEGRATIONS.mcp}`,
      TOKENS.member,
    );
    assert.equal(member.status, 403);
    assert.equal((await member.json()).error_code, "INTERNAL_SERVER_ERROR");

    const empty = await call(
      "POST",
      `/v1/workflow/${FLOWS.empty}/trigger/test`,
    );
    assert.equal(empty.status, 409);
    assert.equal((await empty.json()).error_code, "TRIGGER_NOT_CONFIGURED");
  });

  it("helpers add tokens, calls, messages, integrations and flows", async () => {
    const { token } = await api.addToken({ role: "admin" });
    const { call_id } = await api.addCall({ messages: [{ text: "one" }] });
    await api.addMessages(call_id, [{ text: "two" }]);
    const messages = await call("GET", `/v1/call/${call_id}/message`, token);
    assert.deepEqual(await messages.json(), [{ text: "one" }, { text: "two" }]);

    const integration = await api.addIntegration({
      kind: "mcp",
      cached_tools: [{ name: "search" }],
    });
    assert.equal(integration.project_id, api.projectId);
    assert.equal(
      (await call(
        "DELETE",
        `/v1/integration/${integration.integration_id}`,
        token,
      ))
        .status,
      204,
    );
    assert.deepEqual(api.store.integrationTools(integration.integration_id), {
      tools: [],
      cachedTools: [],
    });

    const flow = await api.addFlow({
      trigger: { type: "webhook", sample_payload: { hello: "world" } },
    });
    const test = await call(
      "POST",
      `/v1/workflow/${flow.flow_id}/trigger/test`,
      token,
    );
    assert.deepEqual(await test.json(), { events: [{ hello: "world" }] });

    await api.reset();
    assert.equal(
      (await call("GET", `/v1/call/${call_id}/message`)).status,
      404,
    );
    assert.equal(
      (await call("GET", `/v1/call/${CALLS.first}/message`, token)).status,
      401,
    );
  });

  it("helpers canonicalise ids and default to the first project", async () => {
    const project = await api.addProject({ name: "Initech" });
    const call_id = "ABCDEF01-2345-4678-9ABC-DEF012345678";
    const added = await api.addCall({
      call_id,
      project_id: project.project_id,
      created_at: "2026-03-09T10:00:00+01:00",
    });
    assert.deepEqual(added, {
      call_id: call_id.toLowerCase(),
      project_id: project.project_id,
      created_at: "2026-03-09T09:00:00.000Z",
      messages: [],
    });
    assert.equal(api.projectId, PROJECT);
    const { token } = await api.addToken({ project_id: project.project_id });
    const response = await call("GET", `/v1/call/${call_id}/message`, token);
    assert.deepEqual(await response.json(), []);
  });

  it("helpers refuse bad records with the offending path", async () => {
    await assert.rejects(
      api.addCall({ project_id: "22222222-2222-4222-8222-2222222222ff" }),
      (error: unknown) =>
        error instanceof FixturesError && error.path === "calls[0].project_id",
    );
    await assert.rejects(
      api.addCall({ created_at: "2026-03-09T10:00:00+25:00" }),
      (error: unknown) =>
        error instanceof FixturesError &&
        /^calls\[\d+\]\.created_at$/.test(error.path),
    );
    await assert.rejects(
      api.addFlow({
        trigger: { type: "schedule", cron: "nope", timezone: "UTC" },
      }),
      FixturesError,
    );
    // A refused change leaves the mock working.
    assert.equal(
      (await call("GET", `/v1/call/${CALLS.first}/message`)).status,
      200,
    );
  });

  it("replaceFixtures swaps the whole state and what reset goes back to", async () => {
    await api.replaceFixtures({
      projects: [{ project_id: PROJECT, name: "Acme" }],
      tokens: [{ token: "only", project_id: PROJECT, role: "viewer" }],
    });
    assert.equal(
      (await call("GET", `/v1/call/${CALLS.first}/message`)).status,
      401,
    );
    await api.reset();
    const response = await call(
      "GET",
      `/v1/call/${CALLS.first}/message`,
      "only",
    );
    assert.equal(response.status, 404);
    await assert.rejects(
      api.replaceFixtures({ tokens: [{}] } as unknown as FixturesInput),
      FixturesError,
    );
    await api.replaceFixtures({});
    assert.equal(api.projectId, DEFAULT_PROJECT.project_id);
    await api.replaceFixtures(apiFixtures);
    assert.equal(api.projectId, PROJECT);
  });

  it("a base URL with a path is the API's root", async () => {
    const base = "https://gateway.callflow.test/api";
    const response = await call(
      "POST",
      "/v1/call/message/bulk",
      TOKENS.owner,
      { call_ids: [CALLS.latest] },
      base,
    );
    assert.equal(response.status, 200);
    assert.deepEqual(
      readZip(new Uint8Array(await response.arrayBuffer())).length,
      1,
    );
    const openapi = await fetch(`${base}/openapi.json`);
    assert.equal((await openapi.json()).info.version, "0.1.0");
  });

  it("requests are answered straight after createMockApi, helpers unawaited", async () => {
    const fresh = createMockApi({ baseUrl: "https://fresh.callflow.test" });
    server.use(...fresh.handlers);
    void fresh.addToken({ token: "fresh-token", role: "viewer" });
    const response = await fetch(
      "https://fresh.callflow.test/v1/call/00000000-0000-4000-8000-000000000009/message",
      { headers: { authorization: "Bearer fresh-token" } },
    );
    assert.equal(response.status, 404);
    assert.equal((await response.json()).error_code, "CALL_NOT_FOUND");
  });

  it("bad fixtures throw FixturesError at once", () => {
    assert.throws(
      () =>
        createMockApi({
          baseUrl: BASE,
          fixtures: {
            tokens: [{
              token: "t",
              project_id: PROJECT,
              role: "root" as "owner",
            }],
          },
        }),
      (error: unknown) =>
        error instanceof FixturesError && error.path === "tokens[0].project_id",
    );
  });
});
