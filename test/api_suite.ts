/**
 * The API suite: every rule of the core issue, run against the handler on a
 * given store. `runApiSuite` is called once per store implementation.
 *
 * @module
 */
import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import { type Fixtures, parseFixtures } from "../src/store/fixtures.ts";
import { createHandler, type Handler } from "../src/handler.ts";
import type { Store } from "../src/store/store.ts";
import {
  apiFixtures,
  CALLS,
  FIRST_MESSAGES,
  FLOWS,
  INTEGRATIONS,
  NOW,
  TOKENS,
} from "./support/api_fixtures.ts";
import { examples } from "../src/openapi/examples.ts";
import { assertMatchesOpenApi } from "./support/openapi_check.ts";
import { readZip } from "./support/zip_reader.ts";

/** A store seeded with fixtures, and how to dispose of it. */
export interface SeededStore {
  store: Store;
  close(): Promise<void>;
}

/** Makes a fresh store holding exactly the given fixtures. */
export type StoreFactory = (fixtures: Fixtures) => Promise<SeededStore>;

const BASE = "http://api.test";

/** Calls the handler like a client would. */
export class Client {
  readonly handler: Handler;

  constructor(handler: Handler) {
    this.handler = handler;
  }

  request(
    method: string,
    path: string,
    options: { token?: string; body?: BodyInit; headers?: HeadersInit } = {},
  ): Promise<Response> {
    const headers = new Headers(options.headers);
    if (options.token !== undefined) {
      headers.set("authorization", `Bearer ${options.token}`);
    }
    return this.handler(
      new Request(`${BASE}${path}`, {
        method,
        headers,
        body: options.body ?? null,
      }),
    );
  }

  bulk(callIds: unknown, token: string = TOKENS.owner): Promise<Response> {
    return this.request("POST", "/v1/call/message/bulk", {
      token,
      body: JSON.stringify({ call_ids: callIds }),
      headers: { "content-type": "application/json" },
    });
  }

  messages(callId: string, token: string = TOKENS.owner): Promise<Response> {
    return this.request("GET", `/v1/call/${callId}/message`, { token });
  }

  deleteIntegration(
    integrationId: string,
    token: string = TOKENS.owner,
  ): Promise<Response> {
    return this.request("DELETE", `/v1/integration/${integrationId}`, {
      token,
    });
  }

  triggerTest(flowId: string, token: string = TOKENS.owner): Promise<Response> {
    return this.request("POST", `/v1/workflow/${flowId}/trigger/test`, {
      token,
    });
  }
}

/** Asserts an ErrorResponseSchema response and returns its message. */
export async function assertError(
  response: Response,
  status: number,
  errorCode: string,
): Promise<string> {
  const body = await response.json();
  assert.equal(response.status, status, JSON.stringify(body));
  assert.equal(response.headers.get("content-type"), "application/json");
  assert.deepEqual(Object.keys(body), ["status", "error_code", "message"]);
  assert.equal(body.status, "error");
  assert.equal(body.error_code, errorCode);
  assert.equal(typeof body.message, "string");
  assert.ok(body.message.length > 0);
  return body.message;
}

async function zipEntries(response: Response) {
  assert.equal(response.status, 200);
  return readZip(new Uint8Array(await response.arrayBuffer()));
}

/**
 * Runs the API suite against stores made by `makeStore`.
 *
 * @param name The store's name, for test titles.
 * @param makeStore Makes a fresh seeded store for each test.
 */
export function runApiSuite(name: string, makeStore: StoreFactory): void {
  describe(`API on ${name}`, () => {
    let seeded: SeededStore;
    let client: Client;
    let logged: { requestId: string; error: unknown }[];

    beforeEach(async () => {
      seeded = await makeStore(parseFixtures(apiFixtures));
      logged = [];
      client = new Client(createHandler({
        store: seeded.store,
        now: () => NOW,
        logError: (requestId, error) => logged.push({ requestId, error }),
      }));
    });
    afterEach(() => seeded.close());

    describe("authentication", () => {
      const endpoints: [string, string][] = [
        ["POST", "/v1/call/message/bulk"],
        ["GET", `/v1/call/${CALLS.first}/message`],
        ["DELETE", `/v1/integration/${INTEGRATIONS.http}`],
        ["POST", `/v1/workflow/${FLOWS.webhook}/trigger/test`],
      ];
      for (const [method, path] of endpoints) {
        it(`${method} ${path} without a token is 401 with a Bearer challenge`, async () => {
          const response = await client.request(method, path);
          assert.match(
            response.headers.get("www-authenticate") ?? "",
            /^Bearer realm="api"/,
          );
          await assertError(response, 401, "UNAUTHORIZED");
        });
      }

      it("refuses a malformed Authorization header", async () => {
        for (
          const header of [
            "Basic dXNlcjpwYXNz",
            "Bearer",
            "Bearer a b",
            TOKENS.owner,
          ]
        ) {
          const response = await client.request(
            "GET",
            `/v1/call/${CALLS.first}/message`,
            {
              headers: { authorization: header },
            },
          );
          assert.match(
            response.headers.get("www-authenticate") ?? "",
            /invalid_request/,
          );
          await assertError(response, 401, "UNAUTHORIZED");
        }
      });

      it("refuses an unknown token", async () => {
        const response = await client.messages(CALLS.first, "not-a-token");
        assert.match(
          response.headers.get("www-authenticate") ?? "",
          /invalid_token/,
        );
        await assertError(response, 401, "UNAUTHORIZED");
      });

      it("accepts the scheme in any case", async () => {
        const response = await client.request(
          "GET",
          `/v1/call/${CALLS.first}/message`,
          {
            headers: { authorization: `bearer ${TOKENS.viewer}` },
          },
        );
        assert.equal(response.status, 200);
      });

      it("authenticates before validating", async () => {
        const response = await client.request("POST", "/v1/call/message/bulk", {
          body: "not json",
        });
        await assertError(response, 401, "UNAUTHORIZED");
        const path = await client.request("DELETE", "/v1/integration/nope");
        await assertError(path, 401, "UNAUTHORIZED");
      });
    });

    describe("permissions", () => {
      const table = {
        owner: { read: true, test: true, delete: true },
        admin: { read: true, test: true, delete: true },
        member: { read: true, test: true, delete: false },
        viewer: { read: true, test: false, delete: false },
        billing: { read: false, test: false, delete: false },
      } as const;
      for (const [role, may] of Object.entries(table)) {
        const token = TOKENS[role as keyof typeof table];
        it(`${role}: bulk ${may.read}, messages ${may.read}, trigger test ${may.test}, delete ${may.delete}`, async () => {
          const bulk = await client.bulk([CALLS.first], token);
          if (may.read) {
            assert.equal(bulk.status, 200);
            await bulk.body?.cancel();
          } else {
            await assertError(bulk, 403, "UNAUTHORIZED_ROLE");
          }

          const messages = await client.messages(CALLS.first, token);
          if (may.read) assert.equal(messages.status, 200);
          else await assertError(messages, 403, "UNAUTHORIZED_ROLE");

          const test = await client.triggerTest(FLOWS.webhook, token);
          if (may.test) assert.equal(test.status, 200);
          else await assertError(test, 403, "UNAUTHORIZED_ROLE");

          const deletion = await client.deleteIntegration(
            INTEGRATIONS.http,
            token,
          );
          if (may.delete) {
            assert.equal(deletion.status, 204);
          } else {
            const message = await assertError(
              deletion,
              403,
              "INTERNAL_SERVER_ERROR",
            );
            assert.match(
              message,
              /missing required permissions to delete integrations/i,
            );
          }
        });
      }

      it("validates before authorizing", async () => {
        const bulk = await client.bulk([], TOKENS.billing);
        assert.equal(bulk.status, 422);
        const deletion = await client.deleteIntegration("nope", TOKENS.viewer);
        assert.equal(deletion.status, 422);
      });

      it("authorizes before looking up", async () => {
        const deletion = await client.deleteIntegration(
          INTEGRATIONS.unknown,
          TOKENS.member,
        );
        assert.equal(deletion.status, 403);
        const test = await client.triggerTest(FLOWS.unknown, TOKENS.viewer);
        await assertError(test, 403, "UNAUTHORIZED_ROLE");
      });
    });

    describe("POST /v1/call/message/bulk", () => {
      it("returns one <call_id>.json per call, holding what the messages endpoint returns", async () => {
        const response = await client.bulk([CALLS.first, CALLS.second]);
        assert.equal(response.headers.get("content-type"), "application/zip");
        assert.equal(
          response.headers.get("content-disposition"),
          'attachment; filename="transcripts.zip"',
        );
        const entries = await zipEntries(response);
        assert.deepEqual(entries.map((e) => e.name), [
          `${CALLS.first}.json`,
          `${CALLS.second}.json`,
        ]);
        for (const entry of entries) {
          assert.equal(entry.compression, 8, "entries are deflated");
          const endpoint = await client.messages(
            entry.name.replace(".json", ""),
          );
          assert.equal(entry.text, await endpoint.text());
        }
        assert.deepEqual(JSON.parse(entries[0]!.text), FIRST_MESSAGES);
      });

      it("skips calls without messages, unknown calls and other projects' calls", async () => {
        const entries = await zipEntries(
          await client.bulk([
            CALLS.silent,
            CALLS.unknown,
            CALLS.foreign,
            CALLS.latest,
          ]),
        );
        assert.deepEqual(entries.map((e) => e.name), [`${CALLS.latest}.json`]);
      });

      it("is 404 NO_TRANSCRIPTS_FOUND when no file would be written", async () => {
        const response = await client.bulk([
          CALLS.silent,
          CALLS.unknown,
          CALLS.foreign,
        ]);
        await assertError(response, 404, "NO_TRANSCRIPTS_FOUND");
      });

      it("canonicalises every UUID form, drops duplicates and keeps first-occurrence order", async () => {
        const second = CALLS.second.toUpperCase();
        const entries = await zipEntries(
          await client.bulk([
            `{${second}}`,
            CALLS.first.replaceAll("-", ""),
            `urn:uuid:${CALLS.second}`,
            CALLS.first,
            second,
          ]),
        );
        assert.deepEqual(entries.map((e) => e.name), [
          `${CALLS.second}.json`,
          `${CALLS.first}.json`,
        ]);
      });

      it("accepts 500 ids and refuses 501 with too_long", async () => {
        const ids = Array.from(
          { length: 500 },
          (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
        );
        ids[499] = CALLS.first;
        const entries = await zipEntries(await client.bulk(ids));
        assert.deepEqual(entries.map((e) => e.name), [`${CALLS.first}.json`]);

        const response = await client.bulk([...ids, CALLS.second]);
        assert.equal(response.status, 422);
        const body = await response.json();
        assert.equal(body.detail.length, 1);
        assert.equal(body.detail[0].type, "too_long");
      });

      it("reports every invalid item at its index in FastAPI's format", async () => {
        const response = await client.bulk(["nope", CALLS.first, 7]);
        assert.equal(response.status, 422);
        assert.equal(response.headers.get("content-type"), "application/json");
        const body = await response.json();
        assert.deepEqual(body.detail.map((d: { loc: unknown }) => d.loc), [
          ["body", "call_ids", 0],
          ["body", "call_ids", 2],
        ]);
        assert.deepEqual(body.detail.map((d: { type: unknown }) => d.type), [
          "uuid_parsing",
          "uuid_type",
        ]);
      });

      it("refuses an empty list with too_short", async () => {
        const body = await (await client.bulk([])).json();
        // The document's example is Pydantic's answer, checked field by field.
        assert.deepEqual(body, examples.emptyCallIds.value);
      });

      it("refuses a missing body and malformed JSON", async () => {
        const missing = await client.request("POST", "/v1/call/message/bulk", {
          token: TOKENS.owner,
        });
        assert.equal(missing.status, 422);
        assert.deepEqual((await missing.json()).detail[0].loc, ["body"]);

        const malformed = await client.request(
          "POST",
          "/v1/call/message/bulk",
          {
            token: TOKENS.owner,
            body: '{"call_ids": [',
            headers: { "content-type": "application/json" },
          },
        );
        assert.equal(malformed.status, 422);
        assert.equal((await malformed.json()).detail[0].type, "json_invalid");
      });

      it("refuses a body over 1 MiB with 413, by Content-Length, unread", async () => {
        let pulled = 0;
        const body = new ReadableStream<Uint8Array>({
          pull(controller) {
            pulled += 1;
            controller.enqueue(new Uint8Array(64 * 1024));
          },
        });
        const response = await client.handler(
          new Request(`${BASE}/v1/call/message/bulk`, {
            method: "POST",
            headers: {
              authorization: `Bearer ${TOKENS.owner}`,
              "content-length": String(1024 * 1024 + 1),
            },
            body,
            duplex: "half",
          } as RequestInit),
        );
        await assertError(response, 413, "PAYLOAD_TOO_LARGE");
        assert.ok(
          pulled <= 2,
          `read ${pulled} chunks of a body it should refuse unread`,
        );
      });

      it("refuses a streamed body over 1 MiB with 413, reading no more than the limit", async () => {
        let sent = 0;
        const body = new ReadableStream<Uint8Array>({
          pull(controller) {
            sent += 64 * 1024;
            controller.enqueue(new Uint8Array(64 * 1024).fill(0x20));
          },
        });
        const response = await client.handler(
          new Request(`${BASE}/v1/call/message/bulk`, {
            method: "POST",
            headers: { authorization: `Bearer ${TOKENS.owner}` },
            body,
            duplex: "half",
          } as RequestInit),
        );
        await assertError(response, 413, "PAYLOAD_TOO_LARGE");
        assert.ok(sent <= 1024 * 1024 + 3 * 64 * 1024, `read ${sent} bytes`);
      });

      it("accepts a body of exactly 1 MiB", async () => {
        const json = JSON.stringify({ call_ids: [CALLS.first] });
        const padded = json + " ".repeat(1024 * 1024 - json.length);
        const response = await client.request("POST", "/v1/call/message/bulk", {
          token: TOKENS.owner,
          body: padded,
          headers: { "content-type": "application/json" },
        });
        assert.equal(response.status, 200);
        await response.body?.cancel();
      });
    });

    describe("GET /v1/call/{call_id}/message", () => {
      it("returns the messages verbatim and in order", async () => {
        const response = await client.messages(CALLS.first);
        assert.equal(response.status, 200);
        assert.equal(response.headers.get("content-type"), "application/json");
        assert.equal(await response.text(), JSON.stringify(FIRST_MESSAGES));
      });

      it("returns [] for a call without messages", async () => {
        const response = await client.messages(CALLS.silent);
        assert.equal(await response.text(), "[]");
      });

      it("is 404 CALL_NOT_FOUND for unknown and other projects' calls", async () => {
        await assertError(
          await client.messages(CALLS.unknown),
          404,
          "CALL_NOT_FOUND",
        );
        await assertError(
          await client.messages(CALLS.foreign),
          404,
          "CALL_NOT_FOUND",
        );
        const owner = await client.messages(CALLS.foreign, TOKENS.otherOwner);
        assert.equal(owner.status, 200);
      });

      it("accepts any UUID form in the path", async () => {
        const response = await client.messages(
          `urn:uuid:${CALLS.first.toUpperCase()}`,
        );
        assert.equal(await response.text(), JSON.stringify(FIRST_MESSAGES));
      });

      it("is 422 at [path, call_id] for a malformed id", async () => {
        const body = await (await client.messages("12345")).json();
        assert.deepEqual(body.detail.map((d: { loc: unknown }) => d.loc), [[
          "path",
          "call_id",
        ]]);
        assert.equal(body.detail[0].type, "uuid_parsing");
        assert.equal(body.detail[0].input, "12345");
      });
    });

    describe("DELETE /v1/integration/{integration_id}", () => {
      it("deletes an HTTP integration for good: 204, then 404", async () => {
        const response = await client.deleteIntegration(INTEGRATIONS.http);
        assert.equal(response.status, 204);
        assert.equal(await response.text(), "");
        await assertError(
          await client.deleteIntegration(INTEGRATIONS.http),
          404,
          "INTEGRATION_NOT_FOUND",
        );
      });

      it("deletes an MCP integration: 204, then 404", async () => {
        assert.equal(
          (await client.deleteIntegration(INTEGRATIONS.mcp)).status,
          204,
        );
        assert.equal(
          (await client.deleteIntegration(INTEGRATIONS.mcp)).status,
          404,
        );
      });

      it("treats another project's integration as missing and leaves it alone", async () => {
        await assertError(
          await client.deleteIntegration(INTEGRATIONS.foreign),
          404,
          "INTEGRATION_NOT_FOUND",
        );
        const owner = await client.deleteIntegration(
          INTEGRATIONS.foreign,
          TOKENS.otherOwner,
        );
        assert.equal(owner.status, 204);
      });

      it("is 404 INTEGRATION_NOT_FOUND for an unknown id", async () => {
        await assertError(
          await client.deleteIntegration(INTEGRATIONS.unknown),
          404,
          "INTEGRATION_NOT_FOUND",
        );
      });

      it("is 422 at [path, integration_id] for a malformed id", async () => {
        const body = await (await client.deleteIntegration("not-a-uuid"))
          .json();
        assert.deepEqual(body.detail[0].loc, ["path", "integration_id"]);
        assert.equal(body.detail[0].type, "uuid_parsing");
      });
    });

    describe("POST /v1/workflow/{flow_id}/trigger/test", () => {
      it("webhook: the sample payload is the one event", async () => {
        const response = await client.triggerTest(FLOWS.webhook);
        assert.equal(response.status, 200);
        assert.deepEqual(await response.json(), {
          events: [{ order: { id: 7, items: ["a", "b"] }, ok: true }],
        });
      });

      it("call_ended: the project's 3 latest calls, newest first", async () => {
        const response = await client.triggerTest(FLOWS.callEnded);
        assert.deepEqual(await response.json(), {
          events: [
            {
              event: "call.ended",
              call_id: CALLS.latest,
              created_at: "2026-03-04T08:00:00.000Z",
              message_count: 1,
            },
            {
              event: "call.ended",
              call_id: CALLS.silent,
              created_at: "2026-03-03T10:00:00.000Z",
              message_count: 0,
            },
            {
              event: "call.ended",
              call_id: CALLS.second,
              created_at: "2026-03-02T10:00:00.000Z",
              message_count: 2,
            },
          ],
        });
      });

      it("call_ended: only the flow's own project's calls", async () => {
        const response = await client.triggerTest(
          FLOWS.foreignCallEnded,
          TOKENS.otherOwner,
        );
        const { events } = await response.json();
        assert.deepEqual(events.map((e: { call_id: string }) => e.call_id), [
          CALLS.foreign,
        ]);
      });

      it("call_ended: one example event when the project has no calls", async () => {
        const seededStore = await makeStore(parseFixtures({
          projects: [{ project_id: CALLS.unknown, name: "Empty" }],
          tokens: [{
            token: "empty-owner",
            project_id: CALLS.unknown,
            role: "owner",
          }],
          flows: [{
            flow_id: FLOWS.callEnded,
            project_id: CALLS.unknown,
            name: "No calls yet",
            trigger: { type: "call_ended" },
          }],
        }));
        try {
          const empty = new Client(
            createHandler({ store: seededStore.store, now: () => NOW }),
          );
          const { events } =
            await (await empty.triggerTest(FLOWS.callEnded, "empty-owner"))
              .json();
          assert.equal(events.length, 1);
          assert.equal(events[0].event, "call.ended");
          assert.equal(events[0].example, true);
        } finally {
          await seededStore.close();
        }
      });

      it("schedule: the next 3 fire times after now, in the trigger's time zone, as UTC", async () => {
        // NOW is Tuesday 2026-03-10 12:34:56Z; 09:00 in Paris is 08:00Z (CET).
        const { events } = await (await client.triggerTest(FLOWS.schedule))
          .json();
        assert.deepEqual(events, [
          {
            event: "schedule.fired",
            scheduled_for: "2026-03-11T08:00:00.000Z",
          },
          {
            event: "schedule.fired",
            scheduled_for: "2026-03-12T08:00:00.000Z",
          },
          {
            event: "schedule.fired",
            scheduled_for: "2026-03-13T08:00:00.000Z",
          },
        ]);
      });

      it("EMPTY: 409 TRIGGER_NOT_CONFIGURED", async () => {
        await assertError(
          await client.triggerTest(FLOWS.empty),
          409,
          "TRIGGER_NOT_CONFIGURED",
        );
      });

      it("is 404 FLOW_NOT_FOUND for unknown and other projects' flows", async () => {
        await assertError(
          await client.triggerTest(FLOWS.unknown),
          404,
          "FLOW_NOT_FOUND",
        );
        await assertError(
          await client.triggerTest(FLOWS.foreign),
          404,
          "FLOW_NOT_FOUND",
        );
      });

      it("has no side effects: the same events twice, transcripts untouched", async () => {
        const before = await (await client.messages(CALLS.first)).text();
        const first = await (await client.triggerTest(FLOWS.callEnded)).text();
        const second = await (await client.triggerTest(FLOWS.callEnded)).text();
        assert.equal(first, second);
        assert.equal(await (await client.messages(CALLS.first)).text(), before);
      });

      it("is 422 at [path, flow_id] for a malformed id", async () => {
        const body = await (await client.triggerTest("flow-1")).json();
        assert.deepEqual(body.detail[0].loc, ["path", "flow_id"]);
      });
    });

    describe("routing, request ids and the OpenAPI document", () => {
      it("is 404 NOT_FOUND for an unknown route", async () => {
        await assertError(
          await client.request("GET", "/v2/anything"),
          404,
          "NOT_FOUND",
        );
        await assertError(
          await client.request("GET", "/v1/call"),
          404,
          "NOT_FOUND",
        );
      });

      it("is 405 METHOD_NOT_ALLOWED with Allow for a known path", async () => {
        const response = await client.request("GET", "/v1/call/message/bulk", {
          token: TOKENS.owner,
        });
        assert.equal(response.headers.get("allow"), "POST");
        await assertError(response, 405, "METHOD_NOT_ALLOWED");
        const deletion = await client.request(
          "POST",
          `/v1/integration/${INTEGRATIONS.http}`,
        );
        assert.equal(deletion.headers.get("allow"), "DELETE");
      });

      it("answers HEAD on every GET route with the GET's status and headers, no body", async () => {
        const owner = { token: TOKENS.owner };
        for (
          const [path, options] of [
            ["/healthz", {}],
            ["/readyz", {}],
            ["/openapi.json", {}],
            [`/v1/call/${CALLS.first}/message`, owner],
            [`/v1/call/${CALLS.first}/message`, {}],
            [`/v1/call/${CALLS.first}/message`, { token: TOKENS.billing }],
            ["/v1/call/not-a-uuid/message", owner],
          ] as const
        ) {
          const get = await client.request("GET", path, options);
          const getBody = new Uint8Array(await get.arrayBuffer());
          const head = await client.request("HEAD", path, options);
          assert.equal(head.status, get.status, path);
          assert.equal(await head.text(), "", path);
          for (const name of ["content-type", "www-authenticate"]) {
            assert.equal(head.headers.get(name), get.headers.get(name), name);
          }
          assert.equal(
            head.headers.get("content-length"),
            String(getBody.byteLength),
            path,
          );
          assert.ok(head.headers.has("x-request-id"));
        }
        const refused = await client.request("HEAD", "/v1/call/message/bulk");
        assert.equal(refused.status, 405);
        assert.equal(refused.headers.get("allow"), "POST");
        assert.equal(await refused.text(), "");
      });

      it("echoes a plain X-Request-Id and makes one up otherwise", async () => {
        const echoed = await client.request("GET", "/openapi.json", {
          headers: { "x-request-id": "req-42" },
        });
        assert.equal(echoed.headers.get("x-request-id"), "req-42");
        const made = await client.request("GET", "/v2", {
          headers: { "x-request-id": "bad id\twith tabs" },
        });
        assert.match(made.headers.get("x-request-id") ?? "", /^[0-9a-f-]{36}$/);
      });

      it("answers /healthz and /readyz without a token, 405 to other methods", async () => {
        for (const path of ["/healthz", "/readyz"]) {
          const response = await client.request("GET", path);
          assert.equal(response.status, 200, path);
          assert.deepEqual(await response.json(), { status: "ok" });
          assert.match(
            response.headers.get("x-request-id") ?? "",
            /^[0-9a-f-]{36}$/,
          );
          const post = await client.request("POST", path);
          assert.equal(post.headers.get("allow"), "GET, HEAD");
          await assertError(post, 405, "METHOD_NOT_ALLOWED");
        }
      });

      it("sends X-Request-Id on every kind of response", async () => {
        const id = { headers: { "x-request-id": "every-1" } };
        const owner = { ...id, token: TOKENS.owner };
        // One after another: the second DELETE must find the integration gone.
        const requests: [string, () => Promise<Response>][] = [
          ["openapi", () => client.request("GET", "/openapi.json", id)],
          [
            "messages",
            () =>
              client.request("GET", `/v1/call/${CALLS.first}/message`, owner),
          ],
          [
            "zip",
            () =>
              client.request("POST", "/v1/call/message/bulk", {
                ...owner,
                headers: { ...id.headers, "content-type": "application/json" },
                body: JSON.stringify({ call_ids: [CALLS.first] }),
              }),
          ],
          [
            "trigger",
            () =>
              client.request(
                "POST",
                `/v1/workflow/${FLOWS.webhook}/trigger/test`,
                owner,
              ),
          ],
          [
            "204",
            () =>
              client.request(
                "DELETE",
                `/v1/integration/${INTEGRATIONS.http}`,
                owner,
              ),
          ],
          [
            "404 lookup",
            () =>
              client.request(
                "DELETE",
                `/v1/integration/${INTEGRATIONS.http}`,
                owner,
              ),
          ],
          ["404 route", () => client.request("GET", "/v2", id)],
          ["405", () => client.request("GET", "/v1/call/message/bulk", owner)],
          [
            "401",
            () => client.request("GET", `/v1/call/${CALLS.first}/message`, id),
          ],
          ["422", () => client.request("GET", "/v1/call/42/message", owner)],
        ];
        const statuses: Record<string, number> = {};
        for (const [name, send] of requests) {
          const response = await send();
          await response.arrayBuffer();
          statuses[name] = response.status;
          assert.equal(response.headers.get("x-request-id"), "every-1", name);
        }
        assert.deepEqual(statuses, {
          openapi: 200,
          messages: 200,
          zip: 200,
          trigger: 200,
          "204": 204,
          "404 lookup": 404,
          "404 route": 404,
          "405": 405,
          "401": 401,
          "422": 422,
        });
      });

      it("serves the OpenAPI 3.1 document without a token", async () => {
        const response = await client.request("GET", "/openapi.json");
        assert.equal(response.status, 200);
        const document = await response.json();
        assert.equal(document.openapi, "3.1.0");
        assert.equal(document.info.version, "0.1.0");
        assert.deepEqual(Object.keys(document.paths).sort(), [
          "/healthz",
          "/readyz",
          "/v1/call/message/bulk",
          "/v1/call/{call_id}/message",
          "/v1/integration/{integration_id}",
          "/v1/workflow/{flow_id}/trigger/test",
        ]);
      });

      it("answers every endpoint as the OpenAPI document describes", async () => {
        const responses: Record<string, Response[]> = {
          "post /v1/call/message/bulk": [
            await client.bulk([CALLS.first]),
            await client.bulk([CALLS.unknown]),
            await client.bulk(["x", 1]),
            await client.bulk([], "nope"),
            await client.bulk([CALLS.first], TOKENS.billing),
          ],
          "get /v1/call/{call_id}/message": [
            await client.messages(CALLS.first),
            await client.messages(CALLS.unknown),
            await client.messages("x"),
            await client.messages(CALLS.first, TOKENS.billing),
          ],
          "delete /v1/integration/{integration_id}": [
            await client.deleteIntegration(INTEGRATIONS.mcp),
            await client.deleteIntegration(INTEGRATIONS.mcp),
            await client.deleteIntegration("x"),
            await client.deleteIntegration(INTEGRATIONS.http, TOKENS.member),
          ],
          "post /v1/workflow/{flow_id}/trigger/test": [
            await client.triggerTest(FLOWS.webhook),
            await client.triggerTest(FLOWS.callEnded),
            await client.triggerTest(FLOWS.schedule),
            await client.triggerTest(FLOWS.empty),
            await client.triggerTest(FLOWS.unknown),
            await client.triggerTest("x"),
            await client.triggerTest(FLOWS.webhook, TOKENS.viewer),
          ],
          "get /healthz": [await client.request("GET", "/healthz")],
          "get /readyz": [await client.request("GET", "/readyz")],
        };
        for (const [operation, answers] of Object.entries(responses)) {
          const [method, path] = operation.split(" ") as [string, string];
          for (const response of answers) {
            await assertMatchesOpenApi(method, path, response);
          }
        }
      });
    });
  });
}
