import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { FixturesInput } from "../src/store/fixtures.ts";
import { createHandler } from "../src/handler.ts";
import { openHarness, type PostgresHarness } from "./support/postgres_store.ts";
import { bulkExportRequest, manyCalls } from "./support/many_calls.ts";
import { readZip } from "./support/zip_reader.ts";

const CALLS = 500;
const { project: P, token: TOKEN, call, callIds, ...data } = manyCalls({
  prefix: "9e",
  calls: CALLS,
  messages: 3,
});
const integration = (n: number) => `9e000000-0000-4000-8000-0000000100${n}0`;
const flow = (n: number) => `9e000000-0000-4000-8000-0000000300${n}0`;
const OTHER = "9e000000-0000-4000-8000-0000000400a0";
const SILENT_CALL = "9e000000-0000-4000-8000-0000000500a0";

/**
 * 500 calls of 3 messages, ten HTTP integrations with a tool each, three
 * workflows (two in the project, one in another) and a call without
 * messages in the other project.
 */
const fixtures: FixturesInput = {
  ...data.fixtures,
  projects: [
    ...data.fixtures.projects!,
    { project_id: OTHER, name: "Other" },
  ],
  calls: [
    ...data.fixtures.calls!,
    {
      call_id: SILENT_CALL,
      project_id: OTHER,
      created_at: "2026-02-01T00:00:00.000Z",
      messages: [],
    },
  ],
  flows: [
    {
      flow_id: flow(1),
      project_id: P,
      name: "Hook",
      trigger: { type: "webhook", sample_payload: { n: 1 } },
    },
    {
      flow_id: flow(2),
      project_id: P,
      name: "Calls",
      trigger: { type: "call_ended" },
    },
    {
      flow_id: flow(3),
      project_id: OTHER,
      name: "Theirs",
      trigger: { type: "webhook", sample_payload: { n: 3 } },
    },
  ],
  integrations: Array.from({ length: 10 }, (_, i) => ({
    integration_id: integration(i),
    project_id: P,
    kind: "http" as const,
    name: `CRM ${i}`,
    tools: [{
      tool_id: `9e000000-0000-4000-8000-0000000200${i}0`,
      name: "lookup",
    }],
  })),
};

let harness: PostgresHarness;
before(async () => harness = await openHarness());
after(() => harness.close());

/** A store whose statements are counted, on a connection already open. */
async function countedStore() {
  let count = 0;
  const seeded = await harness.freshStore(fixtures, {
    onQuery: () => count += 1,
    exportBatchSize: 100,
    // A grant read is kept for the whole test, whatever its pace.
    grantCacheMs: 60_000,
  });
  return {
    ...seeded,
    /** How many statements `action` sends. */
    async statements(action: () => Promise<unknown>): Promise<number> {
      const before = count;
      await action();
      return count - before;
    },
  };
}

/**
 * Runs each lookup alone, one after the other, then all at once: their
 * answers each way, and how many statements all at once sent.
 */
async function aloneThenTogether<T>(
  statements: (action: () => Promise<unknown>) => Promise<number>,
  lookups: (() => Promise<T>)[],
): Promise<{ alone: T[]; together: T[]; sent: number }> {
  const alone: T[] = [];
  for (const lookup of lookups) alone.push(await lookup());
  let together: T[] = [];
  const sent = await statements(async () => {
    together = await Promise.all(lookups.map((lookup) => lookup()));
  });
  return { alone, together, sent };
}

/** Reads a whole export; returns how many calls it held. */
async function drain(
  stream: AsyncIterable<{ callId: string }>,
): Promise<number> {
  const calls = new Set<string>();
  for await (const chunk of stream) calls.add(chunk.callId);
  return calls.size;
}

describe("Postgres store: queries per operation", () => {
  it("exports in one short query per batch of messages, plus one finding the end", async () => {
    const { store, close, statements } = await countedStore();
    try {
      assert.equal(
        await statements(() => drain(store.transcripts(P, [call(7)]))),
        1,
      );
      // 1500 messages in batches of 100: 15 full batches, then an empty one.
      let calls = 0;
      assert.equal(
        await statements(async () =>
          calls = await drain(store.transcripts(P, callIds))
        ),
        1500 / 100 + 1,
      );
      assert.equal(calls, CALLS);
      // Ids are looked at in slices (64, then up to the batch size), so that
      // no query sorts the messages of every call asked for.
      const unknown = Array.from({ length: CALLS }, (_, i) => call(10_000 + i));
      assert.equal(
        await statements(() => drain(store.transcripts(P, unknown))),
        1 + Math.ceil((CALLS - 64) / 100),
      );
    } finally {
      await close();
    }
  });

  it("serves a 500-id export through the handler in the token's query and the batches'", async () => {
    const { store, close, statements } = await countedStore();
    try {
      const handler = createHandler({ store });
      const bulk = (ids: string[]) => handler(bulkExportRequest(TOKEN, ids));
      let entries = 0;
      assert.equal(
        await statements(async () => {
          const response = await bulk(callIds);
          assert.equal(response.status, 200);
          entries = readZip(new Uint8Array(await response.arrayBuffer()))
            .length;
        }),
        1 + 1500 / 100 + 1,
      );
      assert.equal(entries, CALLS);
      // The token was seen a moment ago: its grant is kept, one statement.
      assert.equal(
        await statements(async () => {
          const response = await bulk([call(10_000)]);
          assert.equal(response.status, 404);
          await response.body?.cancel();
        }),
        1,
      );
    } finally {
      await close();
    }
  });

  it("looks up the workflows asked in one turn in one statement", async () => {
    const { store, close, statements } = await countedStore();
    try {
      const asked: [string, string][] = [
        [P, flow(1)],
        [P, flow(2)],
        [P, flow(3)], // another project's
        [P, flow(9)], // none
        [P, flow(1)], // again
        [OTHER, flow(3)],
        [OTHER, flow(1)],
      ];
      const { alone, together, sent } = await aloneThenTogether(
        statements,
        asked.map(([project, id]) => () => store.findFlow(project, id)),
      );
      assert.equal(sent, 1);
      assert.deepEqual(together, alone);
      assert.deepEqual(
        together.map((found) => (found as { name?: string })?.name),
        ["Hook", "Calls", undefined, undefined, "Hook", "Theirs", undefined],
      );
      // Each caller gets a flow of its own.
      assert.notEqual(together[0], together[4]);
    } finally {
      await close();
    }
  });

  it("reads the message lists asked in one turn in one statement", async () => {
    const { store, close, statements } = await countedStore();
    try {
      const asked: [string, string][] = [
        [P, call(1)],
        [P, call(2)],
        [P, SILENT_CALL], // another project's
        [OTHER, SILENT_CALL], // no messages
        [P, call(1)], // again
        [OTHER, call(1)],
        [P, call(CALLS + 1)], // none
      ];
      const { alone, together, sent } = await aloneThenTogether(
        statements,
        asked.map(([project, id]) => () => store.callMessages(project, id)),
      );
      assert.equal(sent, 1);
      assert.deepEqual(together, alone);
      assert.deepEqual(
        together.map((messages) => messages?.length),
        [3, 3, undefined, 0, 3, undefined, undefined],
      );
      assert.deepEqual(
        together[1]!.map((text) => JSON.parse(text).index),
        [0, 1, 2],
      );
    } finally {
      await close();
    }
  });

  it("looks the deletes asked in one turn up in one statement, then deletes those found", async () => {
    const { store, close, statements } = await countedStore();
    try {
      let deleted: boolean[] = [];
      const unknown = [
        integration(1).replace("9e", "9f"), // none
        integration(2).replace("9e", "9f"),
      ];
      // Deletes of unknown integrations: one lookup, no DELETE.
      assert.equal(
        await statements(async () => {
          deleted = await Promise.all(
            [P, OTHER].flatMap((project) =>
              unknown.map((id) => store.deleteIntegration(project, id))
            ),
          );
        }),
        1,
      );
      assert.deepEqual(deleted, [false, false, false, false]);
      // Two found (one asked twice), one another project's: the lookup, then
      // a DELETE per delete found; of the two deletes of one integration,
      // exactly one deletes it.
      assert.equal(
        await statements(async () => {
          deleted = await Promise.all([
            store.deleteIntegration(P, integration(1)),
            store.deleteIntegration(OTHER, integration(2)),
            store.deleteIntegration(P, integration(3)),
            store.deleteIntegration(P, integration(1)),
            store.deleteIntegration(P, unknown[0]!),
          ]);
        }),
        1 + 3,
      );
      assert.deepEqual(deleted.toSorted(), [false, false, false, true, true]);
      assert.equal(deleted[0]! !== deleted[3]!, true);
      assert.deepEqual([deleted[1], deleted[2], deleted[4]], [
        false,
        true,
        false,
      ]);
      const [left] = await harness.sql`
        SELECT (SELECT count(*)::int FROM integrations) AS integrations,
          (SELECT count(*)::int FROM http_tools) AS tools`;
      assert.deepEqual({ ...left }, { integrations: 8, tools: 8 });
    } finally {
      await close();
    }
  });

  it("fails only the workflow lookup whose id Postgres refuses", async () => {
    const { store, close, statements } = await countedStore();
    try {
      let results: PromiseSettledResult<unknown>[] = [];
      assert.equal(
        await statements(async () => {
          results = await Promise.allSettled([
            store.findFlow(P, flow(1)),
            store.findFlow(P, "not-a-uuid"),
            store.findFlow(P, flow(2)),
          ]);
        }),
        2,
      );
      assert.deepEqual(results.map((result) => result.status), [
        "fulfilled",
        "rejected",
        "fulfilled",
      ]);
    } finally {
      await close();
    }
  });

  it("answers every other operation in a constant number of statements", async () => {
    const { store, close, statements } = await countedStore();
    try {
      assert.equal(await statements(() => store.findGrant("0".repeat(64))), 1);
      assert.equal(await statements(() => store.callMessages(P, call(3))), 1);
      assert.equal(await statements(() => store.recentCalls(P, 3)), 1);
      assert.equal(await statements(() => store.recentCalls(P, 500)), 1);
      assert.equal(await statements(() => store.findFlow(P, call(1))), 1);
      // One DELETE: the tools and the cache go by cascade in that statement.
      assert.equal(
        await statements(() => store.deleteIntegration(P, integration(1))),
        1,
      );
    } finally {
      await close();
    }
  });
});

describe("Postgres store: concurrent deletes", () => {
  it("gives true to exactly one of two services deleting the same integration", async () => {
    // Two stores on pools of their own: two instances of the service. On a
    // real server the deletes overlap for real; PGlite runs one at a time.
    const first = await harness.freshStore(fixtures);
    const second = harness.openStore();
    try {
      // One delete a turn on each (its DELETE at once)...
      for (let i = 0; i < 5; i += 1) {
        const results = await Promise.all([
          first.store.deleteIntegration(P, integration(i)),
          second.store.deleteIntegration(P, integration(i)),
        ]);
        assert.deepEqual(results.toSorted(), [false, true], `round ${i}`);
      }
      // ...then five a turn on each, in opposite orders (a lookup, then a
      // DELETE each).
      const rest = [5, 6, 7, 8, 9].map(integration);
      const [ours, theirs] = await Promise.all([
        Promise.all(rest.map((id) => first.store.deleteIntegration(P, id))),
        Promise.all(
          rest.toReversed().map((id) => second.store.deleteIntegration(P, id)),
        ),
      ]);
      assert.deepEqual(
        ours.map((deleted, i) => [deleted, theirs.toReversed()[i]].toSorted()),
        rest.map(() => [false, true]),
      );
      const [left] = await harness.sql`
        SELECT (SELECT count(*)::int FROM integrations) AS integrations,
          (SELECT count(*)::int FROM http_tools) AS tools`;
      assert.deepEqual({ ...left }, { integrations: 0, tools: 0 });
    } finally {
      await first.close();
      await second.close();
    }
  });
});
