import { MemoryStore } from "../src/store/memory_store.ts";
import { runApiSuite } from "./api_suite.ts";

runApiSuite("MemoryStore", async (fixtures) => {
  const store = new MemoryStore();
  await store.seed(fixtures);
  return { store, close: () => Promise.resolve() };
});
