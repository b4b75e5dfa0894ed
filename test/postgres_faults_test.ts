import assert from "node:assert/strict";
import { createServer } from "node:net";
import process from "node:process";
import { inspect } from "node:util";
import { after, before, describe, it } from "node:test";
import type { FixturesInput } from "../src/store/fixtures.ts";
import { createHandler } from "../src/handler.ts";
import {
  connectPostgres,
  openPostgresStore,
  PostgresStore,
  type SocketFactory,
  watchedSockets,
} from "../postgres/mod.ts";
import type { Store, TranscriptChunk } from "../src/store/store.ts";
import { openHarness, type PostgresHarness } from "./support/postgres_store.ts";
import { bulkExportRequest, manyCalls } from "./support/many_calls.ts";
import { startTcpProxy, type TcpProxy } from "./support/tcp_proxy.ts";

const MESSAGES = 50;
const { project: P, token: TOKEN, call, callIds: allCalls, ...data } =
  manyCalls({ prefix: "fa", calls: 20, messages: MESSAGES });
const HTTP = "fa000000-0000-4000-8000-0000000000a1";
const fixtures: FixturesInput = {
  ...data.fixtures,
  integrations: [{
    integration_id: HTTP,
    project_id: P,
    kind: "http",
    name: "CRM",
    tools: [{ tool_id: "fa000000-0000-4000-8000-0000000000b1", name: "x" }],
  }],
};
const ON_PGLITE = !process.env.DATABASE_URL &&
  "PGlite ignores startup parameters such as timeouts";

let harness: PostgresHarness;
let proxy: TcpProxy;
before(async () => {
  harness = await openHarness();
  proxy = await startTcpProxy(harness.db);
});
after(async () => {
  await proxy.close();
  await harness.close();
});

/** A store that reaches the database through the proxy. */
function storeThroughProxy(
  options: {
    onQuery?: (query: string) => void;
    exportBatchSize?: number;
    timeout?: number;
    retryWithin?: number;
    socket?: SocketFactory;
  } = {},
): PostgresStore {
  return new PostgresStore(
    connectPostgres(harness.db.urlThrough(proxy.port), {
      max: harness.db.max,
      connectTimeout: 2,
      ...options,
    }),
    options,
  );
}

/** Every operation of the store, with arguments that exist. */
function everyOperation(store: Store): [string, () => Promise<unknown>][] {
  return [
    ["findGrant", () => store.findGrant("0".repeat(64))],
    ["callMessages", () => store.callMessages(P, call(1))],
    ["transcripts", async () => {
      for await (const _ of store.transcripts(P, allCalls)) { /* drain */ }
    }],
    ["deleteIntegration", () => store.deleteIntegration(P, call(99))],
    ["findFlow", () => store.findFlow(P, call(1))],
    ["recentCalls", () => store.recentCalls(P, 3)],
  ];
}

/**
 * How long a failure that must come fast may take: far above what it takes
 * on a loaded machine (under a second on a quiet one), far below the waits
 * it must cut short (the default retry window and store deadline, 10 s).
 * The error each failure is asserted with says which bound ended it.
 */
const FAST_MS = 5000;

/**
 * Asserts that `action` rejects with `error` (matched as `assert.rejects`
 * matches) within `ms` milliseconds.
 */
async function failsWith(
  name: string,
  action: () => Promise<unknown>,
  error: RegExp | Record<string, unknown>,
  ms = FAST_MS,
): Promise<void> {
  const started = performance.now();
  await assert.rejects(
    action(),
    error,
    `${name} should fail with ${inspect(error)}`,
  );
  const elapsed = performance.now() - started;
  assert.ok(elapsed < ms, `${name} took ${Math.round(elapsed)} ms`);
}

/**
 * The pool's sockets (the production ones, `watchedSockets`), counted: each
 * connection attempt opens one.
 */
function countedSockets(): { socket: SocketFactory; opened: number } {
  const watched = watchedSockets(3000);
  const counted = {
    opened: 0,
    socket: (target: Parameters<SocketFactory>[0]) => {
      counted.opened += 1;
      return watched(target);
    },
  };
  return counted;
}

/**
 * The connections a store with `retryWithin: 300` tries for one operation
 * while nothing listens: the first, one at once, then after 100 ms and 200
 * ms of backoff (retry.ts), none past the window. A loaded machine may fit
 * fewer in; at least the first and the one at once are tried.
 */
const ATTEMPTS_WITHIN_300_MS = { least: 2, most: 4 };

/**
 * Asserts that `action` fails with a refused connection, after the
 * attempts its 300 ms retry window allows, counted by `sockets`.
 */
async function failsPastRetries(
  name: string,
  action: () => Promise<unknown>,
  sockets: { opened: number },
): Promise<void> {
  const before = sockets.opened;
  await failsWith(name, action, { code: "ECONNREFUSED" });
  const attempts = sockets.opened - before;
  const { least, most } = ATTEMPTS_WITHIN_300_MS;
  assert.ok(
    attempts >= least && attempts <= most,
    `${name} tried ${attempts} connections`,
  );
}

/**
 * Asserts that every operation of `store` succeeds again: the store
 * recovers without a restart. Each is tried until it succeeds, for at most
 * 60 s: on a loaded machine the first tries may miss a short deadline the
 * test gave the store.
 */
async function recovers(store: Store): Promise<void> {
  for (const [name, action] of everyOperation(store)) {
    for (const end = Date.now() + 60_000;;) {
      try {
        await action();
        break;
      } catch (error) {
        if (Date.now() > end) {
          throw new Error(`${name} did not recover within 60 s`, {
            cause: error,
          });
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }
}

/** A port on 127.0.0.1 that nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function integrationRows(): Promise<
  { integrations: number; tools: number }
> {
  const [row] = await harness.sql<{ integrations: number; tools: number }[]>`
    SELECT
      (SELECT count(*)::int FROM integrations WHERE integration_id = ${HTTP})
        AS integrations,
      (SELECT count(*)::int FROM http_tools WHERE integration_id = ${HTTP})
        AS tools`;
  return { ...row! };
}

describe("Postgres store: faults", () => {
  it("fails every operation once its retries are spent when nothing listens", async () => {
    const url = `postgres://postgres@127.0.0.1:${await closedPort()}/none`;
    const sockets = countedSockets();
    const store = new PostgresStore(
      connectPostgres(url, { connectTimeout: 2, socket: sockets.socket }),
      { retryWithin: 300 },
    );
    try {
      for (const [name, action] of everyOperation(store)) {
        await failsPastRetries(name, action, sockets);
      }
      // A seed's transaction is not retried: it fails at once.
      await failsWith("seed", () => store.seed(fixtures), {
        code: "ECONNREFUSED",
      });
      await failsWith(
        "openPostgresStore",
        () => openPostgresStore(url),
        { code: "ECONNREFUSED" },
      );
    } finally {
      await store.close();
    }
  });

  it("fails within the connect timeout when the server never answers (no retries)", async () => {
    await harness.freshStore(fixtures).then(({ close }) => close());
    await proxy.setMode("stall");
    const store = storeThroughProxy({ retryWithin: 0 });
    try {
      // postgres.js's connect timeout (2 s), not the store's deadline (10 s).
      await failsWith(
        "callMessages",
        () => store.callMessages(P, call(1)),
        { code: "CONNECT_TIMEOUT" },
      );
    } finally {
      await proxy.setMode("forward");
      proxy.cut();
      await store.close(0);
    }
  });

  it("fails fast past its retries while the database is down, and recovers without a restart", async () => {
    await harness.freshStore(fixtures).then(({ close }) => close());
    const sockets = countedSockets();
    const store = storeThroughProxy({
      retryWithin: 300,
      socket: sockets.socket,
    });
    try {
      for (const [, action] of everyOperation(store)) await action();
      await proxy.setMode("down");
      for (let round = 0; round < 2; round += 1) {
        for (const [name, action] of everyOperation(store)) {
          await failsPastRetries(name, action, sockets);
        }
      }
      await proxy.setMode("forward");
      for (const [, action] of everyOperation(store)) await action();
      assert.equal((await store.callMessages(P, call(1)))?.length, MESSAGES);
    } finally {
      await proxy.setMode("forward");
      await store.close();
    }
  });

  it("answers 500, never 401 or 404, while the database is down or cut", async () => {
    await harness.freshStore(fixtures).then(({ close }) => close());
    // A peer that hangs up is retried until the store's deadline.
    const store = storeThroughProxy({ timeout: 1000, retryWithin: 300 });
    const handler = createHandler({ store, logError: () => {} });
    const auth = { authorization: `Bearer ${TOKEN}` };
    const requests = () => [
      bulkExportRequest(TOKEN, allCalls),
      new Request(`http://api.test/v1/call/${call(1)}/message`, {
        headers: auth,
      }),
      new Request(`http://api.test/v1/integration/${HTTP}`, {
        method: "DELETE",
        headers: auth,
      }),
      new Request(`http://api.test/v1/workflow/${call(1)}/trigger/test`, {
        method: "POST",
        headers: auth,
      }),
    ];
    const statuses = async () => {
      const answers: number[] = [];
      for (const request of requests()) {
        const response = await handler(request);
        await response.body?.cancel();
        answers.push(response.status);
      }
      return answers;
    };
    try {
      await proxy.setMode("down");
      assert.deepEqual(await statuses(), [500, 500, 500, 500]);
      await proxy.setMode("hangup");
      assert.deepEqual(await statuses(), [500, 500, 500, 500]);
      await proxy.setMode("forward");
      await recovers(store);
      // The token is known again; the flow id is no flow: 404 is the answer.
      assert.deepEqual(await statuses(), [200, 200, 204, 404]);
      assert.deepEqual(await integrationRows(), { integrations: 0, tools: 0 });
    } finally {
      await proxy.setMode("forward");
      await store.close(0);
    }
  });

  it("answers the read after a killed backend's, on the same connection", {
    skip: ON_PGLITE && "PGlite has no backends to terminate",
  }, async () => {
    // postgres.js keeps the killed query's 57P01 and fails the first query on
    // the new connection with it (porsager/postgres#1223): the store retries
    // it. The killed query itself runs through a store that retries nothing,
    // so that it fails rather than wait for the lock again.
    await harness.freshStore(fixtures).then(({ close }) => close());
    const sql = connectPostgres(harness.db.url, { max: 1 });
    const store = new PostgresStore(sql);
    const once = new PostgresStore(sql, { retryWithin: 0 });
    const close = () => store.close();
    try {
      await store.findGrant("0".repeat(64));
      for (let round = 0; round < 3; round += 1) {
        // The query waits on a lock, so it is surely running when killed.
        await harness.sql.begin(async (tx) => {
          await tx`LOCK TABLE calls IN ACCESS EXCLUSIVE MODE`;
          const running = once.recentCalls(P, 1).then(
            () => assert.fail("survived"),
            () => "failed",
          );
          let pid: number | undefined;
          for (let wait = 0; wait < 100 && pid === undefined; wait += 1) {
            const [row] = await tx<{ pid: number }[]>`
              SELECT pid FROM pg_stat_activity
              WHERE datname = current_database() AND wait_event_type = 'Lock'
                AND application_name = 'callflow-api'`;
            pid = row?.pid;
            if (pid === undefined) await new Promise((r) => setTimeout(r, 20));
          }
          assert.ok(pid, "the query never waited on the lock");
          await tx`SELECT pg_terminate_backend(${pid})`;
          await running;
        });
        assert.equal((await store.callMessages(P, call(1)))?.length, MESSAGES);
      }
    } finally {
      await close();
    }
  });

  it("fails within its deadline when a peer accepts and hangs up, and recovers", async () => {
    // postgres.js reconnects to such a peer forever (porsager/postgres#1193):
    // only the store's own deadline ends the wait.
    await harness.freshStore(fixtures).then(({ close }) => close());
    const store = storeThroughProxy({ timeout: 500 });
    try {
      await proxy.setMode("hangup");
      proxy.cut();
      for (const [name, action] of everyOperation(store)) {
        // The store's deadline (500 ms), not the retry window (10 s).
        await failsWith(name, action, {
          name: "PostgresTimeoutError",
          message: /no answer within 500 ms/,
        });
      }
      await proxy.setMode("forward");
      await recovers(store);
    } finally {
      await proxy.setMode("forward");
      await store.close(0);
    }
  });

  it("deletes nothing when the connection drops as the delete is sent", async () => {
    await harness.freshStore(fixtures).then(({ close }) => close());
    let armed = true;
    const store = storeThroughProxy({
      onQuery: (query) => {
        if (armed && query.includes("DELETE FROM integrations")) {
          armed = false;
          proxy.cut();
        }
      },
    });
    try {
      await assert.rejects(store.deleteIntegration(P, HTTP));
      assert.deepEqual(await integrationRows(), { integrations: 1, tools: 1 });
      assert.equal(await store.deleteIntegration(P, HTTP), true);
      assert.deepEqual(await integrationRows(), { integrations: 0, tools: 0 });
    } finally {
      await store.close(0);
    }
  });

  it("commits nothing of a seed that fails at its last statement", async () => {
    await harness.freshStore({}).then(({ close }) => close());
    await harness.sql.unsafe(`
      CREATE FUNCTION refuse_flows() RETURNS trigger LANGUAGE plpgsql AS
        $$ BEGIN RAISE EXCEPTION 'flows refused'; END $$;
      CREATE TRIGGER refuse_flows BEFORE INSERT ON flows
        FOR EACH ROW EXECUTE FUNCTION refuse_flows();
    `).simple();
    const { store, close } = harness.openStore();
    try {
      await assert.rejects(
        store.seed({
          ...fixtures,
          flows: [{
            flow_id: "fa000000-0000-4000-8000-0000000000f1",
            project_id: P,
            name: "Last",
            trigger: { type: "EMPTY" },
          }],
        }),
        /flows refused/,
      );
      const [row] = await harness.sql`
        SELECT (SELECT count(*)::int FROM projects) AS projects,
          (SELECT count(*)::int FROM calls) AS calls,
          (SELECT count(*)::int FROM integrations) AS integrations`;
      assert.deepEqual({ ...row }, { projects: 0, calls: 0, integrations: 0 });
    } finally {
      await close();
      await harness.sql.unsafe(`
        DROP TRIGGER refuse_flows ON flows;
        DROP FUNCTION refuse_flows();
      `).simple();
    }
  });

  it("resumes a transcript stream whose connection drops midway", async () => {
    await harness.freshStore(fixtures).then(({ close }) => close());
    const store = storeThroughProxy({ exportBatchSize: 5 });
    try {
      const chunks: TranscriptChunk[] = [];
      for await (const chunk of store.transcripts(P, allCalls)) {
        if (chunks.length === 1) proxy.cut();
        chunks.push(chunk);
      }
      // Every message once, in order: a chunk may end early at a batch
      // boundary, and the next one goes on with the same call.
      const messages = new Map<string, string[]>();
      for (const { callId, messages: batch } of chunks) {
        messages.set(callId, [...messages.get(callId) ?? [], ...batch]);
      }
      assert.deepEqual([...messages.keys()], allCalls);
      for (const [callId, batch] of messages) {
        assert.equal(batch.length, MESSAGES, callId);
        assert.deepEqual(
          batch.map((body) => (JSON.parse(body) as { index: number }).index),
          Array.from({ length: MESSAGES }, (_, index) => index),
        );
      }
    } finally {
      await store.close(0);
    }
  });

  it("throws from a transcript stream whose connection drops midway (no retries)", async () => {
    await harness.freshStore(fixtures).then(({ close }) => close());
    const store = storeThroughProxy({ exportBatchSize: 5, retryWithin: 0 });
    try {
      const chunks = store.transcripts(P, allCalls)[Symbol.asyncIterator]();
      assert.equal((await chunks.next()).done, false);
      proxy.cut();
      await assert.rejects(async () => {
        for (;;) {
          const next = await chunks.next();
          assert.equal(next.done, false, "the stream ended as if complete");
        }
      }, (error: unknown) => !(error instanceof assert.AssertionError));
      assert.equal((await store.callMessages(P, call(1)))?.length, MESSAGES);
    } finally {
      await store.close(0);
    }
  });

  it("aborts the ZIP response, never ends it, when the database drops midway (no retries)", async () => {
    await harness.freshStore(fixtures).then(({ close }) => close());
    const store = storeThroughProxy({ exportBatchSize: 5, retryWithin: 0 });
    const logged: unknown[] = [];
    try {
      const handler = createHandler({
        store,
        logError: (_requestId, error) => logged.push(error),
      });
      const response = await handler(bulkExportRequest(TOKEN, allCalls));
      assert.equal(response.status, 200);
      const reader = response.body!.getReader();
      assert.equal((await reader.read()).done, false);
      proxy.cut();
      await assert.rejects(async () => {
        for (;;) {
          const { done } = await reader.read();
          assert.equal(done, false, "the ZIP ended as if complete");
        }
      }, (error: unknown) => !(error instanceof assert.AssertionError));
      assert.equal(logged.length, 1);
    } finally {
      await store.close(0);
    }
  });

  it("has the server cancel a statement past a statement_timeout in the URL", {
    skip: ON_PGLITE,
  }, async () => {
    // Sent at connect only when the URL asks: PgBouncer refuses it there.
    const sql = connectPostgres(`${harness.db.url}?statement_timeout=200`);
    try {
      // Cancelled by the server (57014) well before the sleep's end.
      await failsWith("pg_sleep(30)", () => sql`SELECT pg_sleep(30)`, {
        code: "57014",
      });
    } finally {
      await sql.end();
    }
  });

  it("holds no connection while an export's reader stalls, and goes on after", async () => {
    await harness.freshStore(fixtures).then(({ close }) => close());
    // An export holding the pool's connection through the stall would make
    // the read below wait past its deadline (a loaded machine's queries
    // take far less than it).
    const store = storeThroughProxy({ exportBatchSize: 5, timeout: 1500 });
    try {
      const chunks = store.transcripts(P, allCalls)[Symbol.asyncIterator]();
      const first = await chunks.next();
      assert.equal(first.done, false);
      await new Promise((resolve) => setTimeout(resolve, 2000));
      // The pool (of one connection on PGlite) serves others meanwhile...
      assert.equal((await store.callMessages(P, call(1)))?.length, MESSAGES);
      // ...and the export, past its deadline, resumes where it stopped.
      const messages = new Map<string, number>();
      const count = ({ callId, messages: batch }: TranscriptChunk) =>
        messages.set(callId, (messages.get(callId) ?? 0) + batch.length);
      count(first.value!);
      for await (const chunk of { [Symbol.asyncIterator]: () => chunks }) {
        count(chunk);
      }
      assert.deepEqual([...messages.keys()], allCalls);
      assert.ok([...messages.values()].every((n) => n === MESSAGES));
    } finally {
      await store.close(0);
    }
  });
});
