import { after, before } from "node:test";
import { openHarness, type PostgresHarness } from "./support/postgres_store.ts";
import { runStoreContract } from "./store_contract.ts";

let harness: PostgresHarness;
before(async () => harness = await openHarness());
after(() => harness.close());

// A cursor batch of 7 messages puts chunk boundaries inside transcripts.
runStoreContract(
  "PostgresStore",
  (fixtures) => harness.freshStore(fixtures, { exportBatchSize: 7 }),
);
