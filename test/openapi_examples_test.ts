/**
 * The OpenAPI document's examples cannot drift: each one fits its schema,
 * and each response example is what the demo server (the built-in demo
 * fixtures, on the examples' clock) answers to the request replayed here.
 *
 * @module
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FailedAuthLimiter } from "../src/auth/failed_auth.ts";
import { createHandler, type HandlerOptions } from "../src/handler.ts";
import { openApiDocument } from "../src/openapi/document.ts";
import {
  EXAMPLE_IDS,
  EXAMPLE_NOW,
  EXAMPLE_REQUEST_ID,
  examples,
} from "../src/openapi/examples.ts";
import { demoFixtures } from "../src/store/demo_fixtures.ts";
import { parseFixtures } from "../src/store/fixtures.ts";
import { MemoryStore } from "../src/store/memory_store.ts";
import { schemaProblems } from "./support/openapi_check.ts";

type Schema = Record<string, unknown>;
type ExampleName = keyof typeof examples;

/** One place the document shows an example. */
interface Occurrence {
  where: string;
  name: string;
  value: unknown;
  schema: Schema;
  /** The response status it is shown under; none for a request's. */
  status?: number;
  /** The response headers documented with it. */
  headers: string[];
}

/** Every example of the document: request bodies, parameters, responses. */
function occurrences(): Occurrence[] {
  const found: Occurrence[] = [];
  const media = (
    where: string,
    content: Record<string, { schema: Schema; examples?: object }>,
    status?: number,
    headers: string[] = [],
  ) => {
    for (const [type, { schema, examples = {} }] of Object.entries(content)) {
      for (const [name, example] of Object.entries(examples)) {
        found.push({
          where: `${where} ${type}`,
          name,
          value: (example as { value: unknown }).value,
          schema,
          headers,
          ...(status === undefined ? {} : { status }),
        });
      }
    }
  };
  for (const [path, operations] of Object.entries(openApiDocument.paths)) {
    for (const [method, raw] of Object.entries(operations)) {
      const operation = raw as {
        parameters?: { name: string; schema: Schema; example: unknown }[];
        requestBody?: { content: Record<string, { schema: Schema }> };
        responses: Record<
          string,
          {
            content?: Record<string, { schema: Schema }>;
            headers?: object;
          }
        >;
      };
      const where = `${method.toUpperCase()} ${path}`;
      for (const parameter of operation.parameters ?? []) {
        found.push({
          where: `${where} ${parameter.name}`,
          name: parameter.name,
          value: parameter.example,
          schema: parameter.schema,
          headers: [],
        });
      }
      if (operation.requestBody !== undefined) {
        media(`${where} request`, operation.requestBody.content);
      }
      for (const [status, response] of Object.entries(operation.responses)) {
        media(
          `${where} ${status}`,
          response.content ?? {},
          Number(status),
          Object.keys(response.headers ?? {}),
        );
      }
    }
  }
  return found;
}

const BASE = "http://127.0.0.1:8787";
const bearer = (role: string) => ({ authorization: `Bearer demo-${role}` });
const json = { "content-type": "application/json" };

/** The demo server: the demo fixtures, on the examples' clock. */
async function demoServer(options: Partial<HandlerOptions> = {}) {
  const store = new MemoryStore();
  await store.seed(parseFixtures(demoFixtures));
  return createHandler({
    store,
    now: () => new Date(EXAMPLE_NOW),
    logError: () => {},
    logInfo: () => {},
    ...options,
  });
}

/** Sends one request to a fresh demo server. */
async function ask(
  method: string,
  path: string,
  init: { headers?: Record<string, string>; body?: BodyInit } = {},
  options: Partial<HandlerOptions> = {},
): Promise<Response> {
  const handler = await demoServer(options);
  return handler(
    new Request(`${BASE}${path}`, {
      method,
      headers: init.headers ?? {},
      body: init.body ?? null,
      duplex: "half",
    } as RequestInit),
  );
}

const messages = (id: string) => `/v1/call/${id}/message`;
const trigger = (id: string) => `/v1/workflow/${id}/trigger/test`;
const integration = `/v1/integration/${EXAMPLE_IDS.integration}`;
const bulk = (body: BodyInit, role = "viewer", options = {}) =>
  ask("POST", "/v1/call/message/bulk", {
    headers: { ...bearer(role), ...json },
    body,
  }, options);

/** The request each response example answers, replayed on the demo server. */
const replays: Record<ExampleName, () => Promise<Response>> = {
  healthy: () => ask("GET", "/healthz"),
  ready: () => ask("GET", "/readyz"),
  notReady: () =>
    ask("GET", "/readyz", {}, { shutdownSignal: AbortSignal.abort() }),
  bulkRequest: () => bulk(JSON.stringify(examples.bulkRequest.value)),
  callMessages: () =>
    ask("GET", messages(EXAMPLE_IDS.call), { headers: bearer("viewer") }),
  noMessages: () =>
    ask("GET", messages(demoFixtures.calls[2]!.call_id), {
      headers: bearer("viewer"),
    }),
  scheduleEvents: () =>
    ask("POST", trigger(EXAMPLE_IDS.scheduleFlow), {
      headers: bearer("member"),
    }),
  callEndedEvents: () =>
    ask("POST", trigger(EXAMPLE_IDS.callEndedFlow), {
      headers: bearer("member"),
    }),
  webhookEvents: () =>
    ask("POST", trigger(EXAMPLE_IDS.webhookFlow), {
      headers: bearer("member"),
    }),
  unauthorizedMissing: () => ask("GET", messages(EXAMPLE_IDS.call)),
  unauthorizedInvalid: () =>
    ask("GET", messages(EXAMPLE_IDS.call), {
      headers: { authorization: "Bearer not-a-token" },
    }),
  roleForbidden: () =>
    ask("GET", messages(EXAMPLE_IDS.call), { headers: bearer("billing") }),
  triggerRoleForbidden: () =>
    ask("POST", trigger(EXAMPLE_IDS.scheduleFlow), {
      headers: bearer("viewer"),
    }),
  deletionForbidden: () =>
    ask("DELETE", integration, { headers: bearer("viewer") }),
  noTranscripts: () =>
    bulk(JSON.stringify({ call_ids: [EXAMPLE_IDS.otherProjectsCall] })),
  callNotFound: () =>
    ask("GET", messages(EXAMPLE_IDS.otherProjectsCall), {
      headers: bearer("viewer"),
    }),
  integrationNotFound: async () => {
    const handler = await demoServer();
    const remove = () =>
      handler(
        new Request(`${BASE}${integration}`, {
          method: "DELETE",
          headers: bearer("admin"),
        }),
      );
    assert.equal((await remove()).status, 204);
    return remove();
  },
  flowNotFound: () =>
    ask("POST", trigger(EXAMPLE_IDS.call), { headers: bearer("member") }),
  triggerNotConfigured: () =>
    ask("POST", trigger(EXAMPLE_IDS.emptyFlow), { headers: bearer("member") }),
  badBody: () => bulk(new Uint8Array([0x7b, 0xff, 0x7d])),
  bodyTimeout: () =>
    bulk(new ReadableStream({ pull: () => new Promise(() => {}) }), "viewer", {
      bodyTimeoutMs: 50,
    }),
  bodyTooLarge: () => bulk(new Uint8Array(1024 * 1024 + 1)),
  bodyNotTaken: () =>
    ask("POST", trigger(EXAMPLE_IDS.scheduleFlow), {
      headers: { ...bearer("member"), "content-length": "65537" },
      body: " ".repeat(65537),
    }),
  tooManyFailedAuthentications: async () => {
    const handler = await demoServer({
      clientAddress: () => "192.0.2.1",
      failedAuthLimiter: new FailedAuthLimiter({ limit: 1, now: () => 0 }),
    });
    const unknown = () =>
      handler(
        new Request(`${BASE}${messages(EXAMPLE_IDS.call)}`, {
          headers: { authorization: "Bearer not-a-token" },
        }),
      );
    assert.equal((await unknown()).status, 401);
    return await unknown();
  },
  tooManyExports: async () => {
    const handler = await demoServer({ maxConcurrentExports: 1 });
    const exportAll = () =>
      handler(
        new Request(`${BASE}/v1/call/message/bulk`, {
          method: "POST",
          headers: { ...bearer("viewer"), ...json },
          body: JSON.stringify(examples.bulkRequest.value),
        }),
      );
    const streaming = await exportAll();
    assert.equal(streaming.status, 200);
    const refused = await exportAll();
    await streaming.body?.cancel();
    return refused;
  },
  methodNotAllowed: () =>
    ask("GET", "/v1/call/message/bulk", { headers: bearer("viewer") }),
  unexpected: async () => {
    const store = new MemoryStore();
    await store.seed(parseFixtures(demoFixtures));
    store.callMessages = () => Promise.reject(new Error("store down"));
    return createHandler({ store, logError: () => {} })(
      new Request(`${BASE}${messages(EXAMPLE_IDS.call)}`, {
        headers: { ...bearer("viewer"), "x-request-id": EXAMPLE_REQUEST_ID },
      }),
    );
  },
  emptyCallIds: () => bulk(JSON.stringify({ call_ids: [] })),
  badCallId: () =>
    ask("GET", messages("not-a-uuid"), { headers: bearer("viewer") }),
  badIntegrationId: () =>
    ask("DELETE", "/v1/integration/not-a-uuid", { headers: bearer("admin") }),
  badFlowId: () =>
    ask("POST", trigger("not-a-uuid"), { headers: bearer("member") }),
};

describe("the OpenAPI document's examples", () => {
  const all = occurrences();

  it("are on every request body, parameter and JSON response", () => {
    const names = new Set(all.map((occurrence) => occurrence.name));
    for (const name of Object.keys(examples)) assert.ok(names.has(name), name);
    for (const [path, operations] of Object.entries(openApiDocument.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const { responses } = operation as {
          responses: Record<string, { content?: object }>;
        };
        for (const [status, response] of Object.entries(responses)) {
          const shown = all.some((occurrence) =>
            occurrence.where.startsWith(
              `${method.toUpperCase()} ${path} ${status} application/json`,
            )
          );
          const json = response.content !== undefined &&
            "application/json" in response.content;
          assert.equal(shown, json, `${method} ${path} ${status}`);
        }
      }
    }
  });

  it("fit their schemas", () => {
    for (const occurrence of all) {
      assert.deepEqual(
        schemaProblems(occurrence.value, occurrence.schema),
        [],
        `${occurrence.where}: ${occurrence.name}`,
      );
    }
  });

  it("are what the demo server answers, status and documented headers included", async () => {
    for (const occurrence of all) {
      if (occurrence.status === undefined) continue;
      const name = occurrence.name as ExampleName;
      const response = await replays[name]();
      const label = `${occurrence.where}: ${name}`;
      assert.equal(response.status, occurrence.status, label);
      assert.deepEqual(await response.json(), occurrence.value, label);
      for (const header of occurrence.headers) {
        assert.ok(response.headers.has(header), `${label}: ${header}`);
      }
    }
  });

  it("request examples are answered 200 by the demo server", async () => {
    const response = await replays.bulkRequest();
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "application/zip");
    await response.body?.cancel();
  });

  it("fail the check when an example or its schema drifts", () => {
    const callEnded = examples.callEndedEvents.value.events[0]!;
    const schema = { $ref: "#/components/schemas/TriggerTestResponse" };
    assert.deepEqual(
      schemaProblems({ events: [{ ...callEnded, message_count: "3" }] }, schema)
        .length > 0,
      true,
    );
    const error = { $ref: "#/components/schemas/ErrorResponseSchema" };
    assert.ok(
      schemaProblems({ error_code: "NOT_A_CODE", message: "x" }, error)
        .length > 0,
    );
  });
});
