/**
 * The store contract: what every `Store` does, run against each
 * implementation (`runStoreContract` is called once per store), so that the
 * in-memory and Postgres stores are proven to behave identically.
 *
 * @module
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  type Fixtures,
  FixturesError,
  type FixturesInput,
  parseFixtures,
  type SeedOptions,
} from "../src/store/fixtures.ts";
import type { Store, TranscriptChunk } from "../src/store/store.ts";
import { hashToken } from "../src/store/sha256.ts";

/** A store that can be seeded, as both stores can. */
export interface SeedableStore extends Store {
  seed(input: FixturesInput | Fixtures, options?: SeedOptions): Promise<void>;
}

/** A fresh store holding exactly the given fixtures, and its disposal. */
export interface StoreUnderTest {
  store: SeedableStore;
  close(): Promise<void>;
}

/** Makes a fresh store holding exactly `fixtures`. */
export type ContractStoreFactory = (
  fixtures: FixturesInput,
) => Promise<StoreUnderTest>;

const A = "0a000000-0000-4000-8000-000000000000";
const B = "0b000000-0000-4000-8000-000000000000";
const id = (prefix: string, n: number) =>
  `${prefix}000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
const call = (n: number) => id("ca", n);
const integration = (n: number) => id("1a", n);
const tool = (n: number) => id("70", n);
const flow = (n: number) => id("f1", n);

/** Messages whose text must survive storage byte for byte. */
const TRICKY = [
  { z: "last key first", a: 1, m: { y: [1, 2.5, -0, 1e21, true, null] } },
  { text: "ça coûte 42 € 👍", escapes: '\u0000\n\t"\\/', lone: "\ud800" },
  {},
  { "": "", nested: { deeper: { deepest: [{}, []] } } },
];
/** More messages than a Postgres cursor batch in the contract runs. */
const LONG = Array.from({ length: 60 }, (_, i) => ({ n: i, text: `m${i}` }));

function fixtures(): FixturesInput {
  return {
    projects: [{ project_id: A, name: "Acme" }, {
      project_id: B,
      name: "Globex",
    }],
    tokens: [
      { token: "a-owner", project_id: A, role: "owner" },
      { token: "a-viewer", project_id: A, role: "viewer" },
      { token: "b-billing", project_id: B, role: "billing" },
    ],
    calls: [
      {
        call_id: call(1),
        project_id: A,
        created_at: "2026-03-01T10:00:00Z",
        messages: TRICKY,
      },
      {
        call_id: call(2),
        project_id: A,
        created_at: "2026-03-02T12:00:00+02:00",
        messages: LONG,
      },
      {
        call_id: call(3),
        project_id: A,
        created_at: "2026-03-02T10:00:00.000Z",
        messages: [],
      },
      {
        call_id: call(4),
        project_id: A,
        created_at: "2026-03-02T10:00:00Z",
        messages: [{ only: "one" }],
      },
      {
        call_id: call(5),
        project_id: A,
        created_at: "2026-02-01T00:00:00.123456Z",
        messages: [{ old: true }],
      },
      {
        call_id: call(9),
        project_id: B,
        created_at: "2026-03-05T00:00:00Z",
        messages: [{ secret: "B's" }],
      },
    ],
    integrations: [
      {
        integration_id: integration(1),
        project_id: A,
        kind: "http",
        name: "CRM",
        tools: [{ tool_id: tool(1), name: "lookup" }, {
          tool_id: tool(2),
          name: "cancel",
        }],
      },
      {
        integration_id: integration(2),
        project_id: A,
        kind: "mcp",
        name: "Docs",
        cached_tools: [{ name: "search" }, { name: "fetch" }],
      },
      {
        integration_id: integration(9),
        project_id: B,
        kind: "http",
        name: "B's CRM",
        tools: [{ tool_id: tool(9), name: "lookup" }],
      },
    ],
    flows: [
      {
        flow_id: flow(1),
        project_id: A,
        name: "Hook",
        trigger: {
          type: "webhook",
          sample_payload: { z: 1, a: { y: [2, { b: 3, a: 4 }] } },
        },
      },
      {
        flow_id: flow(2),
        project_id: A,
        name: "Nightly",
        trigger: { type: "schedule", cron: "0 9 * * 1-5", timezone: "UTC" },
      },
      {
        flow_id: flow(3),
        project_id: A,
        name: "Unset",
        trigger: { type: "EMPTY" },
      },
      {
        flow_id: flow(9),
        project_id: B,
        name: "B's",
        trigger: { type: "call_ended" },
      },
    ],
  };
}

const texts = (messages: readonly object[]) =>
  messages.map((message) => JSON.stringify(message));

async function collect(
  stream: AsyncIterable<TranscriptChunk>,
): Promise<TranscriptChunk[]> {
  const chunks: TranscriptChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

/**
 * Checks the chunk rules (none empty, one call's chunks in a row) and returns
 * each call's whole transcript, in the order the calls came.
 */
function joinChunks(chunks: TranscriptChunk[]): [string, string[]][] {
  const calls: [string, string[]][] = [];
  for (const chunk of chunks) {
    assert.ok(chunk.messages.length > 0, "a chunk is never empty");
    const last = calls.at(-1);
    if (last?.[0] === chunk.callId) {
      last[1].push(...chunk.messages);
    } else {
      assert.ok(
        !calls.some(([callId]) => callId === chunk.callId),
        `chunks of ${chunk.callId} are interleaved with another call's`,
      );
      calls.push([chunk.callId, [...chunk.messages]]);
    }
  }
  return calls;
}

/** Fails instead of hanging when a store holds on to a connection. */
function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`Timed out after ${ms} ms`)),
        ms,
      );
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * Runs the store contract against stores made by `makeStore`.
 *
 * @param name The store's name, for test titles.
 * @param makeStore Makes a fresh store holding exactly the given fixtures.
 *
 * @example
 * ```ts ignore
 * import { MemoryStore } from "../src/store/memory_store.ts";
 * import { runStoreContract } from "./store_contract.ts";
 *
 * runStoreContract("MemoryStore", async (fixtures) => {
 *   const store = new MemoryStore();
 *   await store.seed(fixtures);
 *   return { store, close: () => Promise.resolve() };
 * });
 * ```
 */
export function runStoreContract(
  name: string,
  makeStore: ContractStoreFactory,
): void {
  /** Runs `body` on a fresh store seeded with the contract's fixtures. */
  async function withStore(
    body: (store: SeedableStore) => Promise<void>,
  ): Promise<void> {
    const { store, close } = await makeStore(fixtures());
    try {
      await body(store);
    } finally {
      await close();
    }
  }

  describe(`Store contract: ${name}`, () => {
    describe("ping", () => {
      it("resolves while the store answers, without changing anything", () =>
        withStore(async (store) => {
          assert.equal(await store.ping(), undefined);
          assert.deepEqual(await store.findGrant(await hashToken("a-owner")), {
            projectId: A,
            role: "owner",
          });
        }));
    });

    describe("findGrant", () => {
      it("finds a token's project and role by the token's SHA-256", () =>
        withStore(async (store) => {
          assert.deepEqual(await store.findGrant(await hashToken("a-owner")), {
            projectId: A,
            role: "owner",
          });
          assert.deepEqual(
            await store.findGrant(await hashToken("b-billing")),
            { projectId: B, role: "billing" },
          );
        }));

      it("knows no unknown hash and no token in clear", () =>
        withStore(async (store) => {
          assert.equal(
            await store.findGrant(await hashToken("nope")),
            undefined,
          );
          assert.equal(await store.findGrant("a-owner"), undefined);
        }));
    });

    describe("callMessages", () => {
      it("returns each message as the JSON text of the fixture, in order", () =>
        withStore(async (store) => {
          assert.deepEqual(
            await store.callMessages(A, call(1)),
            texts(TRICKY),
          );
          assert.deepEqual(await store.callMessages(A, call(2)), texts(LONG));
        }));

      it("returns [] for a call without messages", () =>
        withStore(async (store) => {
          assert.deepEqual(await store.callMessages(A, call(3)), []);
        }));

      it("knows no unknown call and no other project's call", () =>
        withStore(async (store) => {
          assert.equal(await store.callMessages(A, call(77)), undefined);
          assert.equal(await store.callMessages(A, call(9)), undefined);
          assert.equal(await store.callMessages(B, call(1)), undefined);
        }));
    });

    describe("transcripts", () => {
      it("follows the order of callIds, whole and verbatim", () =>
        withStore(async (store) => {
          const ids = [call(4), call(2), call(5), call(1)];
          const calls = joinChunks(await collect(store.transcripts(A, ids)));
          assert.deepEqual(calls, [
            [call(4), texts([{ only: "one" }])],
            [call(2), texts(LONG)],
            [call(5), texts([{ old: true }])],
            [call(1), texts(TRICKY)],
          ]);
        }));

      it("matches callMessages for every call", () =>
        withStore(async (store) => {
          const ids = [call(1), call(2), call(4), call(5)];
          for (
            const [callId, messages] of joinChunks(
              await collect(store.transcripts(A, ids)),
            )
          ) {
            assert.deepEqual(messages, await store.callMessages(A, callId));
          }
        }));

      it("skips calls without messages, unknown calls and other projects' calls", () =>
        withStore(async (store) => {
          const ids = [call(9), call(3), call(77), call(4)];
          const calls = joinChunks(await collect(store.transcripts(A, ids)));
          assert.deepEqual(calls.map(([callId]) => callId), [call(4)]);
          assert.deepEqual(
            await collect(store.transcripts(B, [call(1), call(2)])),
            [],
          );
        }));

      it("yields nothing when nothing matches or nothing is asked", () =>
        withStore(async (store) => {
          assert.deepEqual(
            await collect(store.transcripts(A, [call(3), call(77)])),
            [],
          );
          assert.deepEqual(await collect(store.transcripts(A, [])), []);
        }));

      it("releases what it holds when the reader leaves early", () =>
        withStore(async (store) => {
          for (let round = 0; round < 3; round += 1) {
            for await (const _chunk of store.transcripts(A, [call(2)])) break;
          }
          const iterator = store.transcripts(A, [call(2), call(1)])
            [Symbol.asyncIterator]();
          assert.equal((await iterator.next()).done, false);
          await within(5000, Promise.resolve(iterator.return?.()));
          assert.deepEqual(
            await within(5000, store.callMessages(A, call(4))),
            texts([{ only: "one" }]),
          );
        }));

      it("serves 500 ids in one export", () =>
        withStore(async (store) => {
          const ids = Array.from({ length: 500 }, (_, i) => call(1000 + i));
          ids[250] = call(4);
          ids[499] = call(1);
          const calls = joinChunks(await collect(store.transcripts(A, ids)));
          assert.deepEqual(calls.map(([callId]) => callId), [call(4), call(1)]);
        }));
    });

    describe("deleteIntegration", () => {
      it("deletes once: true, then false", () =>
        withStore(async (store) => {
          assert.equal(await store.deleteIntegration(A, integration(1)), true);
          assert.equal(await store.deleteIntegration(A, integration(1)), false);
          assert.equal(await store.deleteIntegration(A, integration(2)), true);
          assert.equal(await store.deleteIntegration(A, integration(2)), false);
        }));

      it("knows no unknown integration and no other project's", () =>
        withStore(async (store) => {
          assert.equal(
            await store.deleteIntegration(A, integration(77)),
            false,
          );
          assert.equal(await store.deleteIntegration(A, integration(9)), false);
          assert.equal(await store.deleteIntegration(B, integration(1)), false);
          assert.equal(await store.deleteIntegration(B, integration(9)), true);
          assert.equal(await store.deleteIntegration(A, integration(1)), true);
        }));

      it("gives true to exactly one of two concurrent deletes", () =>
        withStore(async (store) => {
          const results = await Promise.all([
            store.deleteIntegration(A, integration(1)),
            store.deleteIntegration(A, integration(1)),
          ]);
          assert.deepEqual(results.toSorted(), [false, true]);
        }));

      it("leaves the rest of the store alone", () =>
        withStore(async (store) => {
          await store.deleteIntegration(A, integration(1));
          assert.equal(await store.deleteIntegration(A, integration(2)), true);
          assert.equal(await store.deleteIntegration(B, integration(9)), true);
          assert.deepEqual(
            await store.callMessages(A, call(4)),
            texts([{
              only: "one",
            }]),
          );
        }));
    });

    describe("findFlow", () => {
      it("returns the flow with its trigger, key order and all", () =>
        withStore(async (store) => {
          const found = await store.findFlow(A, flow(1));
          const expected = fixtures().flows![0]!;
          assert.deepEqual(found, {
            flowId: flow(1),
            projectId: A,
            name: "Hook",
            trigger: expected.trigger,
          });
          assert.equal(
            JSON.stringify(found?.trigger),
            JSON.stringify(expected.trigger),
          );
          assert.deepEqual((await store.findFlow(A, flow(2)))?.trigger, {
            type: "schedule",
            cron: "0 9 * * 1-5",
            timezone: "UTC",
          });
          assert.deepEqual((await store.findFlow(A, flow(3)))?.trigger, {
            type: "EMPTY",
          });
        }));

      it("knows no unknown flow and no other project's flow", () =>
        withStore(async (store) => {
          assert.equal(await store.findFlow(A, flow(77)), undefined);
          assert.equal(await store.findFlow(A, flow(9)), undefined);
          assert.equal(await store.findFlow(B, flow(1)), undefined);
        }));
    });

    describe("recentCalls", () => {
      it("lists the project's calls newest first, ties by call_id, in UTC with milliseconds", () =>
        withStore(async (store) => {
          assert.deepEqual(await store.recentCalls(A, 10), [
            {
              callId: call(2),
              createdAt: "2026-03-02T10:00:00.000Z",
              messageCount: 60,
            },
            {
              callId: call(3),
              createdAt: "2026-03-02T10:00:00.000Z",
              messageCount: 0,
            },
            {
              callId: call(4),
              createdAt: "2026-03-02T10:00:00.000Z",
              messageCount: 1,
            },
            {
              callId: call(1),
              createdAt: "2026-03-01T10:00:00.000Z",
              messageCount: 4,
            },
            {
              callId: call(5),
              createdAt: "2026-02-01T00:00:00.123Z",
              messageCount: 1,
            },
          ]);
        }));

      it("stops at the limit", () =>
        withStore(async (store) => {
          assert.deepEqual(
            (await store.recentCalls(A, 2)).map((summary) => summary.callId),
            [call(2), call(3)],
          );
          assert.deepEqual(await store.recentCalls(A, 0), []);
        }));

      it("lists only the project's own calls", () =>
        withStore(async (store) => {
          assert.deepEqual(
            (await store.recentCalls(B, 10)).map((summary) => summary.callId),
            [call(9)],
          );
          const C = "0c000000-0000-4000-8000-000000000000";
          assert.deepEqual(await store.recentCalls(C, 10), []);
        }));
    });

    describe("seed", () => {
      it("duplicates nothing when the same entries are seeded again", () =>
        withStore(async (store) => {
          const before = {
            recent: await store.recentCalls(A, 10),
            export: await collect(store.transcripts(A, [call(1), call(2)])),
          };
          await store.seed(fixtures());
          await store.seed(fixtures());
          assert.deepEqual(await store.recentCalls(A, 10), before.recent);
          assert.deepEqual(
            joinChunks(
              await collect(store.transcripts(A, [call(1), call(2)])),
            ),
            joinChunks(before.export),
          );
          assert.deepEqual(await store.callMessages(A, call(1)), texts(TRICKY));
        }));

      it("replaces what it seeds again and keeps the rest", () =>
        withStore(async (store) => {
          await store.seed({
            tokens: [{ token: "a-viewer", project_id: B, role: "member" }],
            calls: [{
              call_id: call(2),
              project_id: A,
              created_at: "2026-04-01T00:00:00Z",
              messages: [{ replaced: true }],
            }],
            integrations: [{
              integration_id: integration(1),
              project_id: A,
              kind: "mcp",
              name: "CRM, now MCP",
              cached_tools: [],
            }],
          });
          assert.deepEqual(
            await store.findGrant(await hashToken("a-viewer")),
            { projectId: B, role: "member" },
          );
          assert.deepEqual(
            await store.callMessages(A, call(2)),
            texts([{ replaced: true }]),
          );
          assert.equal((await store.recentCalls(A, 1))[0]?.callId, call(2));
          assert.deepEqual(await store.callMessages(A, call(1)), texts(TRICKY));
          assert.equal(await store.deleteIntegration(A, integration(1)), true);
        }));

      it("revokes the tokens of a declared project that the document drops", () =>
        withStore(async (store) => {
          const grant = async (token: string) =>
            await store.findGrant(await hashToken(token));
          const projects = [{ project_id: B, name: "Globex" }];
          await store.seed({
            projects,
            tokens: [
              { token: "kept", project_id: B, role: "viewer" },
              { token: "dropped", project_id: B, role: "owner" },
            ],
          });
          assert.deepEqual(await grant("dropped"), {
            projectId: B,
            role: "owner",
          });
          // The file again, one token removed, one role changed.
          await store.seed({
            projects,
            tokens: [{ token: "kept", project_id: B, role: "admin" }],
          });
          assert.equal(await grant("dropped"), undefined);
          assert.deepEqual(await grant("kept"), {
            projectId: B,
            role: "admin",
          });
          // A project declared with no tokens keeps none.
          await store.seed({ projects });
          assert.equal(await grant("kept"), undefined);
          // Projects the document does not declare keep theirs.
          assert.ok(await grant("a-owner"), "project A's token still works");
          // Tokens only referring to a project add to it.
          await store.seed({
            tokens: [{ token: "one", project_id: B, role: "viewer" }],
          });
          await store.seed({
            tokens: [{ token: "two", project_id: B, role: "viewer" }],
          });
          assert.ok(await grant("one"));
          assert.ok(await grant("two"));
          // keepOtherTokens: an upsert, nothing revoked.
          await store.seed({
            projects,
            tokens: [{ token: "three", project_id: B, role: "viewer" }],
          }, { keepOtherTokens: true });
          assert.ok(await grant("one"));
          assert.ok(await grant("three"));
        }));

      it("accepts entries that refer to projects seeded before", () =>
        withStore(async (store) => {
          await store.seed({
            tokens: [{ token: "late", project_id: B, role: "admin" }],
            calls: [{
              call_id: call(10),
              project_id: B.toUpperCase(),
              created_at: "2026-05-01T00:00:00Z",
              messages: [{ late: 1 }],
            }],
          });
          assert.deepEqual(await store.findGrant(await hashToken("late")), {
            projectId: B,
            role: "admin",
          });
          assert.deepEqual(
            await store.callMessages(B, call(10)),
            texts([{ late: 1 }]),
          );
        }));

      it("refuses a bad document whole, naming the path, changing nothing", () =>
        withStore(async (store) => {
          const bad = {
            projects: [{ project_id: id("0d", 0), name: "New" }],
            tokens: [{ token: "new", project_id: id("0d", 0), role: "owner" }],
            calls: [{
              call_id: call(1),
              project_id: A,
              created_at: "2026-06-01T00:00:00Z",
              messages: [{ overwritten: true }],
            }],
            flows: [{
              flow_id: flow(5),
              project_id: A,
              name: "Broken",
              trigger: { type: "nope" },
            }],
          };
          await assert.rejects(
            store.seed(bad as unknown as FixturesInput),
            (error: unknown) =>
              error instanceof FixturesError &&
              error.path === "flows[0].trigger.type",
          );
          assert.equal(
            await store.findGrant(await hashToken("new")),
            undefined,
          );
          assert.deepEqual(await store.callMessages(A, call(1)), texts(TRICKY));
          assert.equal(await store.findFlow(A, flow(5)), undefined);
        }));

      it("refuses an entry whose project exists nowhere", () =>
        withStore(async (store) => {
          await assert.rejects(
            store.seed({
              tokens: [{
                token: "orphan",
                project_id: id("0e", 0),
                role: "owner",
              }],
            }),
            (error: unknown) =>
              error instanceof FixturesError &&
              error.path === "tokens[0].project_id",
          );
          assert.equal(
            await store.findGrant(await hashToken("orphan")),
            undefined,
          );
        }));

      it("names the first problem in document order, projects looked up", () =>
        withStore(async (store) => {
          const badDate = {
            call_id: call(11),
            project_id: B,
            created_at: "yesterday",
            messages: [],
          };
          const refused = async (document: unknown, path: string) => {
            await assert.rejects(
              store.seed(document as FixturesInput),
              (error: unknown) =>
                error instanceof FixturesError && error.path === path,
            );
          };
          // A stored project resolves: the format problem after it is named.
          await refused(
            {
              tokens: [{ token: "first", project_id: B, role: "owner" }],
              calls: [badDate],
            },
            "calls[0].created_at",
          );
          // An unknown project comes first: it is named, not the later one.
          await refused(
            {
              tokens: [{ token: "first", project_id: B, role: "owner" }],
              calls: [{ ...badDate, project_id: id("0e", 0) }],
            },
            "calls[0].project_id",
          );
          assert.equal(
            await store.findGrant(await hashToken("first")),
            undefined,
          );
        }));

      it("looks up the projects that parsed fixtures refer to", () =>
        withStore(async (store) => {
          const token = (project_id: string) => ({
            tokens: [{ token: "parsed", project_id, role: "viewer" as const }],
          });
          const elsewhere = id("0e", 0);
          await assert.rejects(
            store.seed(
              parseFixtures(token(elsewhere), {
                knownProjectIds: [elsewhere],
              }),
            ),
            (error: unknown) =>
              error instanceof FixturesError &&
              error.path === "tokens[0].project_id",
          );
          await store.seed(parseFixtures(token(B), { knownProjectIds: [B] }));
          assert.deepEqual(await store.findGrant(await hashToken("parsed")), {
            projectId: B,
            role: "viewer",
          });
        }));
    });
  });
}
