import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseFixtures } from "../src/store/fixtures.ts";
import { MemoryStore } from "../src/store/memory_store.ts";
import {
  apiFixtures,
  INTEGRATIONS,
  OTHER_PROJECT,
  PROJECT,
  TOOLS,
} from "./support/api_fixtures.ts";
import { runStoreContract } from "./store_contract.ts";

runStoreContract("MemoryStore", async (fixtures) => {
  const store = new MemoryStore();
  await store.seed(fixtures);
  return { store, close: () => Promise.resolve() };
});

describe("MemoryStore deletion cascades", () => {
  async function seeded(): Promise<MemoryStore> {
    const store = new MemoryStore();
    await store.seed(parseFixtures(apiFixtures));
    return store;
  }

  it("removes an HTTP integration's tools from the tools table, and only its", async () => {
    const store = await seeded();
    assert.equal(
      await store.deleteIntegration(PROJECT, INTEGRATIONS.http),
      true,
    );
    assert.equal(store.hasIntegration(INTEGRATIONS.http), false);
    assert.deepEqual(store.integrationTools(INTEGRATIONS.http), {
      tools: [],
      cachedTools: [],
    });
    assert.deepEqual(
      store.integrationTools(INTEGRATIONS.foreign).tools.map((tool) =>
        tool.tool_id
      ),
      [TOOLS.foreign],
    );
  });

  it("clears an MCP integration's tool cache", async () => {
    const store = await seeded();
    assert.equal(
      store.integrationTools(INTEGRATIONS.mcp).cachedTools.length,
      2,
    );
    assert.equal(
      await store.deleteIntegration(PROJECT, INTEGRATIONS.mcp),
      true,
    );
    assert.deepEqual(store.integrationTools(INTEGRATIONS.mcp), {
      tools: [],
      cachedTools: [],
    });
  });

  it("leaves another project's integration whole", async () => {
    const store = await seeded();
    assert.equal(
      await store.deleteIntegration(PROJECT, INTEGRATIONS.foreign),
      false,
    );
    assert.equal(store.hasIntegration(INTEGRATIONS.foreign), true);
    assert.equal(
      await store.deleteIntegration(OTHER_PROJECT, INTEGRATIONS.foreign),
      true,
    );
    assert.deepEqual(store.integrationTools(INTEGRATIONS.foreign).tools, []);
  });
});
