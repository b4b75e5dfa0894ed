import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createHandler } from "../src/handler.ts";
import { hashToken } from "../mod.ts";
import { manyCalls } from "./support/many_calls.ts";
import { openHarness, type PostgresHarness } from "./support/postgres_store.ts";

const { project: P, token: TOKEN, call, ...data } = manyCalls({
  prefix: "6c",
  calls: 2,
  messages: 1,
});
const VIEWER = "6c-viewer";
const fixtures = {
  ...data.fixtures,
  tokens: [
    ...data.fixtures.tokens!,
    { token: VIEWER, project_id: P, role: "viewer" as const },
  ],
};

let harness: PostgresHarness;
before(async () => harness = await openHarness());
after(() => harness.close());

/** Two instances of the service on one database, their statements counted. */
async function twoInstances(grantCacheMs?: number) {
  const counts = [0, 0];
  const first = await harness.freshStore(fixtures, {
    onQuery: () => counts[0]! += 1,
    ...(grantCacheMs !== undefined && { grantCacheMs }),
  });
  const second = harness.openStore({
    onQuery: () => counts[1]! += 1,
    ...(grantCacheMs !== undefined && { grantCacheMs }),
  });
  return {
    stores: [first.store, second.store],
    counts,
    close: () => Promise.all([first.close(), second.close()]),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("Postgres store: grants kept for a moment", () => {
  it("answers a token seen a moment ago without a statement", async () => {
    const { stores: [store], counts, close } = await twoInstances();
    try {
      const digest = await hashToken(TOKEN);
      const before = counts[0]!;
      const grant = await store!.findGrant(digest);
      assert.deepEqual(grant, { projectId: P, role: "owner" });
      assert.equal(counts[0]! - before, 1);
      assert.deepEqual(await store!.findGrant(digest), grant);
      assert.equal(counts[0]! - before, 1, "the second lookup sent nothing");
      // An unknown token is asked every time: a new token works at once.
      const unknown = "0".repeat(64);
      await store!.findGrant(unknown);
      await store!.findGrant(unknown);
      assert.equal(counts[0]! - before, 3);
    } finally {
      await close();
    }
  });

  it("shares one read among concurrent lookups of one token", async () => {
    const { stores: [store], counts, close } = await twoInstances();
    try {
      const digest = await hashToken(VIEWER);
      const before = counts[0]!;
      const grants = await Promise.all(
        Array.from({ length: 8 }, () => store!.findGrant(digest)),
      );
      assert.equal(new Set(grants.map((g) => g?.role)).size, 1);
      assert.equal(counts[0]! - before, 1);
    } finally {
      await close();
    }
  });

  it("stops a revoked token on every instance within 1 s of the commit", async () => {
    const { stores, close } = await twoInstances();
    try {
      const digest = await hashToken(VIEWER);
      for (const store of stores) {
        assert.equal((await store.findGrant(digest))?.role, "viewer");
      }
      await harness.sql`DELETE FROM tokens WHERE token_hash = ${digest}`;
      const committed = performance.now();
      await sleep(1000 - (performance.now() - committed));
      for (const store of stores) {
        assert.equal(await store.findGrant(digest), undefined);
        const answer = await createHandler({ store })(
          new Request(`http://api.test/v1/call/${call(1)}/message`, {
            headers: { authorization: `Bearer ${VIEWER}` },
          }),
        );
        assert.equal(answer.status, 401);
      }
    } finally {
      await close();
    }
  });

  it("applies a role changed in the database within 1 s of the commit", async () => {
    const { stores, close } = await twoInstances();
    try {
      const digest = await hashToken(TOKEN);
      for (const store of stores) {
        assert.equal((await store.findGrant(digest))?.role, "owner");
      }
      await harness.sql`
        UPDATE tokens SET role = 'viewer' WHERE token_hash = ${digest}`;
      await sleep(1000);
      for (const store of stores) {
        assert.equal((await store.findGrant(digest))?.role, "viewer");
      }
    } finally {
      await close();
    }
  });

  it("forgets every grant at once when its own seed revokes tokens", async () => {
    const { stores: [store], close } = await twoInstances();
    try {
      const digest = await hashToken(VIEWER);
      assert.equal((await store!.findGrant(digest))?.role, "viewer");
      await store!.seed({ ...fixtures, tokens: data.fixtures.tokens! });
      assert.equal(await store!.findGrant(digest), undefined);
    } finally {
      await close();
    }
  });

  it("keeps nothing with grantCacheMs 0", async () => {
    const { stores: [store], counts, close } = await twoInstances(0);
    try {
      const digest = await hashToken(TOKEN);
      const before = counts[0]!;
      await store!.findGrant(digest);
      await store!.findGrant(digest);
      assert.equal(counts[0]! - before, 2);
    } finally {
      await close();
    }
  });
});
