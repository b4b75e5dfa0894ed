/**
 * `GET /readyz` on Postgres: 503 ErrorResponseSchema within its deadline
 * while the database is unreachable (refusing connections, or accepting and
 * never answering), and 200 again once it is back, with the same store and
 * handler: no restart. `/healthz` answers throughout, touching no store.
 *
 * @module
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createHandler, type Handler } from "../src/handler.ts";
import { connectPostgres, PostgresStore } from "../postgres/mod.ts";
import { assertError } from "./api_suite.ts";
import { openHarness, type PostgresHarness } from "./support/postgres_store.ts";
import { startTcpProxy, type TcpProxy } from "./support/tcp_proxy.ts";
import { assertMatchesOpenApi } from "./support/openapi_check.ts";

const DEADLINE_MS = 500;

let harness: PostgresHarness;
let proxy: TcpProxy;
let store: PostgresStore;
let handler: Handler;

before(async () => {
  harness = await openHarness();
  proxy = await startTcpProxy(harness.db);
  store = new PostgresStore(
    connectPostgres(harness.db.urlThrough(proxy.port), {
      max: harness.db.max,
      connectTimeout: 2,
    }),
  );
  handler = createHandler({ store, readinessTimeout: DEADLINE_MS });
});
after(async () => {
  await store?.close(1);
  await proxy?.close();
  await harness?.close();
});

async function probe(path: string): Promise<[Response, number]> {
  const started = performance.now();
  const response = await handler(new Request(`http://api.test${path}`));
  return [response, performance.now() - started];
}

/** Asks /readyz until it answers 200, for at most 15 s. */
async function readyAgain(): Promise<void> {
  const deadline = Date.now() + 15_000;
  let last = 0;
  while (Date.now() < deadline) {
    const [response] = await probe("/readyz");
    last = response.status;
    await response.arrayBuffer();
    if (last === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.fail(`/readyz still ${last} 15 s after the database came back`);
}

describe("/readyz on Postgres", () => {
  it("answers 200 while the database answers", async () => {
    const [response] = await probe("/readyz");
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { status: "ok" });
  });

  for (const mode of ["down", "stall"] as const) {
    it(`answers 503 within its deadline while the database is ${mode}, then 200 once it is back`, async () => {
      await proxy.setMode(mode);
      proxy.cut(); // the pool's open connection too
      try {
        for (let attempt = 0; attempt < 2; attempt++) {
          const [response, elapsed] = await probe("/readyz");
          assert.ok(
            elapsed < DEADLINE_MS + 1000,
            `answered after ${elapsed} ms`,
          );
          await assertMatchesOpenApi("get", "/readyz", response.clone());
          await assertError(response, 503, "SERVICE_UNAVAILABLE");
          const [health] = await probe("/healthz");
          assert.equal(health.status, 200);
          await health.arrayBuffer();
        }
      } finally {
        await proxy.setMode("forward");
      }
      await readyAgain();
    });
  }
});
