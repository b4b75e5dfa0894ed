import { MemoryStore } from "../src/memory_store.ts";
import { runStoreContract } from "./store_contract.ts";

runStoreContract("MemoryStore", async (fixtures) => {
  const store = new MemoryStore();
  await store.seed(fixtures);
  return { store, close: () => Promise.resolve() };
});
