import { after, before } from "node:test";
import { runApiSuite } from "./api_suite.ts";
import { openHarness, type PostgresHarness } from "./support/postgres_store.ts";

let harness: PostgresHarness;
before(async () => harness = await openHarness());
after(() => harness.close());

runApiSuite("PostgresStore", (fixtures) => harness.freshStore(fixtures));
