/**
 * A failover, for real: the server (server/main.ts, on the runtime running
 * this file) on a primary with a synchronous streaming replica of the
 * test's own, behind a TCP relay, under mixed load; the primary's host
 * vanishes (the relay black-holes it, the primary stops as with
 * `pg_ctl -m immediate`), the replica is promoted, and 5 s later the
 * address leads to it. Right answers are back within 5 s of a fresh
 * connection through it reaching the new primary, no valid
 * request is refused or not found, nothing takes longer than the documented
 * bound, no delete answered 204 is lost, and no export ends looking whole
 * when it is not. The same through PgBouncer, pointed at the new primary.
 * See test/support/failover_scenario.ts. Needs Debian's PostgreSQL 15
 * binaries (and PgBouncer for the second case), and runs where DATABASE_URL
 * is set, in `npm run test:postgres` (a minute or two a runtime: `npm test`
 * stays quick); skipped otherwise.
 */
import { existsSync } from "node:fs";
import process from "node:process";
import { describe, it } from "node:test";
import { runtimeName } from "../server/runtimes/mod.ts";
import {
  assertFailoverGoals,
  describeFailover,
  failoverFigures,
  runFailover,
} from "./support/failover_scenario.ts";
import { PGBOUNCER } from "./support/pgbouncer.ts";
import { CLUSTER_BINARIES } from "./support/own_cluster.ts";

/**
 * The longest a request may take through a failover: the silence bound
 * (3 s) on the attempt that meets the vanished server, the retry window
 * (10 s), and one last attempt bounded by the store's deadline (10 s).
 */
const BOUND_MS = 3000 + 10_000 + 10_000;

describe("The server through a failover", {
  skip: (!CLUSTER_BINARIES && "needs /usr/lib/postgresql/15/bin") ||
    (!process.env.DATABASE_URL &&
      "needs DATABASE_URL: a machine with PostgreSQL 15 installed"),
}, () => {
  it(`follows the new primary within 5 s, losing no delete (${runtimeName()})`, async () => {
    const tally = await runFailover("direct");
    console.log(
      describeFailover(`direct, ${runtimeName()}`, failoverFigures(tally)),
    );
    assertFailoverGoals(tally, BOUND_MS);
  });

  it(`follows it through PgBouncer too (${runtimeName()})`, {
    skip: !existsSync(PGBOUNCER) && `needs ${PGBOUNCER}`,
  }, async () => {
    const tally = await runFailover("pgbouncer");
    console.log(
      describeFailover(`PgBouncer, ${runtimeName()}`, failoverFigures(tally)),
    );
    assertFailoverGoals(tally, BOUND_MS);
  });
});
