/**
 * The real server process (server/main.ts, on the runtime running this file)
 * on the real PostgreSQL while its database's backends are killed every
 * 300 ms under 4 export loops and 8 lookup loops: it stays up, at least 99 %
 * of lookups answer 200 with the right body, at least 90 % of exports
 * complete whole (lost connections are retried, exports resume), no valid
 * token is refused, and it answers correctly again within a second once the
 * kills stop. `KILL_SECONDS` sets how long the kills last (default 6; the
 * figures in the README are from 30). Needs DATABASE_URL (a server whose
 * backends can be terminated); skipped without it.
 */
import process from "node:process";
import { after, before, describe, it } from "node:test";
import { runtimeName } from "../server/runtimes/mod.ts";
import {
  assertKillGoals,
  describeTally,
  runKillScenario,
} from "./support/kill_scenario.ts";
import { createTestDatabase, type TestDatabase } from "./support/postgres.ts";

const SERVER_URL = process.env.DATABASE_URL;
const SECONDS = Number(process.env.KILL_SECONDS ?? 6);

describe("The server on PostgreSQL while backends are killed", {
  skip: !SERVER_URL &&
    "needs DATABASE_URL: a server whose backends can be killed",
}, () => {
  let db: TestDatabase;
  before(async () => db = await createTestDatabase());
  after(() => db?.drop());

  it(`survives, retries lost reads, and recovers within a second (${runtimeName()})`, async () => {
    const args = {
      node: ["server/main.ts"],
      deno: ["run", "--allow-all", "server/main.ts"],
      bun: ["server/main.ts"],
    }[runtimeName()];
    const tally = await runKillScenario(
      { command: process.execPath, args },
      db.url,
      SERVER_URL!,
      SECONDS,
    );
    console.log(describeTally(`repository, ${runtimeName()}`, tally));
    assertKillGoals(tally);
  });
});
