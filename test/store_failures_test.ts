import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { createHandler } from "../src/handler.ts";
import { MemoryStore } from "../src/store/memory_store.ts";
import type { Store } from "../src/store/store.ts";
import {
  apiFixtures,
  CALLS,
  FLOWS,
  INTEGRATIONS,
  NOW,
  TOKENS,
} from "./support/api_fixtures.ts";

/** What the store says when its database is gone. */
class StoreDown extends Error {
  constructor(method: string) {
    super(`${method}: connection refused (postgres://db.internal:5432)`);
  }
}

type Method = Exclude<keyof Store, "transcripts"> | "transcripts";

/**
 * The seeded memory store, except that the named methods fail as a store
 * whose database went away does: a rejected promise, or a transcript
 * stream that throws on its first read.
 */
function failing(store: MemoryStore, methods: readonly Method[]): Store {
  const fails = new Set(methods);
  const reject = (method: string) => Promise.reject(new StoreDown(method));
  return {
    findGrant: (hash) =>
      fails.has("findGrant") ? reject("findGrant") : store.findGrant(hash),
    callMessages: (project, call) =>
      fails.has("callMessages")
        ? reject("callMessages")
        : store.callMessages(project, call),
    transcripts: (project, calls) =>
      fails.has("transcripts")
        ? (async function* () {
          yield* [];
          throw new StoreDown("transcripts");
        })()
        : store.transcripts(project, calls),
    deleteIntegration: (project, id) =>
      fails.has("deleteIntegration")
        ? reject("deleteIntegration")
        : store.deleteIntegration(project, id),
    findFlow: (project, id) =>
      fails.has("findFlow") ? reject("findFlow") : store.findFlow(project, id),
    recentCalls: (project, limit) =>
      fails.has("recentCalls")
        ? reject("recentCalls")
        : store.recentCalls(project, limit),
    ping: () => fails.has("ping") ? reject("ping") : store.ping(),
  };
}

const url = (path: string) => `http://api.test${path}`;
const auth = { authorization: `Bearer ${TOKENS.owner}` };

/** One request per operation, each on data that exists. */
const REQUESTS: Record<string, () => Request> = {
  "GET /v1/call/{call_id}/message": () =>
    new Request(url(`/v1/call/${CALLS.first}/message`), { headers: auth }),
  "POST /v1/call/message/bulk": () =>
    new Request(url("/v1/call/message/bulk"), {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ call_ids: [CALLS.first, CALLS.second] }),
    }),
  "DELETE /v1/integration/{integration_id}": () =>
    new Request(url(`/v1/integration/${INTEGRATIONS.http}`), {
      method: "DELETE",
      headers: auth,
    }),
  "POST /v1/workflow/{flow_id}/trigger/test": () =>
    new Request(url(`/v1/workflow/${FLOWS.callEnded}/trigger/test`), {
      method: "POST",
      headers: auth,
    }),
};

let seeded: MemoryStore;
before(async () => {
  seeded = new MemoryStore();
  await seeded.seed(apiFixtures);
});

/** Asserts the spec's 500, naming the request id, and nothing of the cause. */
async function assertInternalError(
  response: Response,
  requestId: string,
): Promise<void> {
  assert.equal(response.status, 500);
  assert.equal(response.headers.get("x-request-id"), requestId);
  assert.equal(response.headers.get("www-authenticate"), null);
  const text = await response.text();
  assert.deepEqual(JSON.parse(text), {
    status: "error",
    error_code: "INTERNAL_SERVER_ERROR",
    message: `An unexpected error occurred (request id ${requestId})`,
  });
  assert.doesNotMatch(text, /refused|postgres|db\.internal/);
}

describe("A failing store gives 500, never an answer about the caller", () => {
  const cases: [string, Method, string][] = [
    ...Object.keys(REQUESTS).map((
      operation,
    ): [string, Method, string] => ["authenticating", "findGrant", operation]),
    [
      "looking up a call",
      "callMessages",
      "GET /v1/call/{call_id}/message",
    ],
    ["exporting", "transcripts", "POST /v1/call/message/bulk"],
    [
      "deleting",
      "deleteIntegration",
      "DELETE /v1/integration/{integration_id}",
    ],
    [
      "looking up a flow",
      "findFlow",
      "POST /v1/workflow/{flow_id}/trigger/test",
    ],
    [
      "listing recent calls",
      "recentCalls",
      "POST /v1/workflow/{flow_id}/trigger/test",
    ],
  ];
  for (const [doing, method, operation] of cases) {
    it(`${doing} (${method}) for ${operation}`, async () => {
      const logged: [string, unknown][] = [];
      const handler = createHandler({
        store: failing(seeded, [method]),
        now: () => NOW,
        logError: (requestId, error) => logged.push([requestId, error]),
      });
      const request = REQUESTS[operation]!();
      request.headers.set("x-request-id", `fail-${method}`);
      await assertInternalError(await handler(request), `fail-${method}`);
      assert.equal(logged.length, 1);
      assert.equal(logged[0]![0], `fail-${method}`);
      assert.ok(logged[0]![1] instanceof StoreDown);
    });
  }

  it("answers as before once the store is back", async () => {
    const handler = createHandler({ store: seeded, now: () => NOW });
    const statuses = [];
    for (const operation of Object.keys(REQUESTS)) {
      const response = await handler(REQUESTS[operation]!());
      await response.arrayBuffer();
      statuses.push(response.status);
    }
    assert.deepEqual(statuses, [200, 200, 204, 200]);
  });
});
