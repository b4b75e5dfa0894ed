/**
 * The failover scenario: the server (server/main.ts, on the runtime running
 * the test) on a primary with a synchronous streaming replica, reached
 * through a TCP relay (directly, or through PgBouncer behind it), under mixed
 * load: lookups, trigger tests, deletes and exports, two of them large and
 * read throughout. Then the primary's host vanishes: the relay black-holes
 * it (nothing forwarded, nothing closed), the primary stops as with `pg_ctl
 * -m immediate`, the replica is promoted, and after an outage the address
 * leads to it (the relay or PgBouncer pointed at the new primary), from
 * when a fresh connection through it reaches the new primary. The load goes
 * on until 10 right answers in a row were sent after that (at most
 * `AFTER_MS`). Every answer is timed and checked; {@linkcode
 * assertFailoverGoals} holds the tally to the goals of issue 25.
 *
 * @module
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { manyCalls, noisyMessages } from "./many_calls.ts";
import { startPgBouncer } from "./pgbouncer.ts";
import { startReplicaCluster } from "./replica_cluster.ts";
import { startServerMain } from "./server_main.ts";
import { startTcpProxy } from "./tcp_proxy.ts";
import { readZips } from "./zip_reader.ts";

const CALLS = 300;
const MESSAGES = 6;
/** Calls a load loop's export asks for: a small archive, quickly read. */
const SMALL_EXPORT = 24;
const INTEGRATIONS = 2000;
const LOOPS = 6;
const LARGE_EXPORTS = 2;
/** Bytes a second the large exports are read at: about 9 s for the whole. */
const LARGE_EXPORT_RATE = 600_000;
/**
 * Load before the loss, the outage, and the most load after the new primary
 * accepts (it stops once 10 right answers in a row were sent after that).
 */
const BEFORE_MS = 2500;
const OUTAGE_MS = 5000;
const AFTER_MS = 8000;

const message = noisyMessages(MESSAGES, 3000);
const data = manyCalls({
  prefix: "f4",
  calls: CALLS,
  messages: MESSAGES,
  message,
});
const integrationId = (n: number) =>
  `f4110000-0000-4000-8000-${String(n).padStart(12, "0")}`;
const FLOW = "f4220000-0000-4000-8000-000000000000";
const fixtures = {
  ...data.fixtures,
  integrations: Array.from({ length: INTEGRATIONS }, (_, n) => ({
    integration_id: integrationId(n),
    project_id: data.project,
    kind: "http" as const,
    name: `Integration ${n}`,
    tools: [],
  })),
  flows: [{
    flow_id: FLOW,
    project_id: data.project,
    name: "Webhook",
    trigger: { type: "webhook" as const, sample_payload: { n: 1 } },
  }],
};
const transcript = (n: number) =>
  JSON.stringify(Array.from({ length: MESSAGES }, (_, m) => message(n, m)));

/** One request as the client saw it. */
export interface Answer {
  kind: "lookup" | "trigger" | "delete" | "export" | "large export" | "readyz";
  /** Milliseconds since the loss when it was sent, and when it ended. */
  sent: number;
  ended: number;
  /** The status, or 0 when none came (cut before the status line). */
  status: number;
  /** Whether it was the right answer in full (a whole, exact ZIP). */
  ok: boolean;
  /** For an export answered 200: `whole`, `cut` (the transfer failed), or `broken` (ended normally, not whole). */
  transfer?: "whole" | "cut" | "broken";
  /** What was wrong, for messages. */
  detail?: string;
  /** The integration a delete asked for. */
  integration?: string;
  /** An export's archive, until it is checked. */
  archive?: { calls: number; bytes: Uint8Array<ArrayBuffer> };
}

/** What the scenario measured. */
export interface FailoverTally {
  /** Milliseconds from the loss until the address was pointed at the new primary. */
  pointedAt: number;
  /**
   * Milliseconds from the loss until the new primary accepted at the
   * address: a fresh connection through it reached a primary.
   */
  recoveredAt: number;
  answers: Answer[];
  /** Integrations answered 204 that the new primary still holds. */
  deletesLost: string[];
  /** The server's output, for failure messages. */
  output: string;
  /** PgBouncer's output, when it was in the path, for failure messages. */
  poolerOutput: string;
}

/** How requests reach PostgreSQL: straight through the relay, or PgBouncer first. */
export type FailoverPath = "direct" | "pgbouncer";

/**
 * Runs the scenario once on a cluster of its own and returns the tally.
 *
 * @param path Direct, or through PgBouncer in transaction mode.
 * @param env More settings for the server.
 */
export async function runFailover(
  path: FailoverPath,
  env: Record<string, string> = {},
): Promise<FailoverTally> {
  const cluster = await startReplicaCluster();
  const directory = mkdtempSync(join(tmpdir(), "failover-"));
  const cleanups: (() => Promise<unknown>)[] = [
    () => cluster.destroy(),
    () => {
      rmSync(directory, { recursive: true, force: true });
      return Promise.resolve();
    },
  ];
  try {
    await synchronousReplication(cluster.primary.url("postgres"));
    const relay = await startTcpProxy({
      host: "127.0.0.1",
      port: cluster.primary.port,
    });
    cleanups.unshift(() => relay.close());
    const relayUrl = `postgres://postgres@127.0.0.1:${relay.port}/postgres`;
    let databaseUrl = relayUrl;
    let bouncerOutput = () => "";
    let pointAtNewPrimary = async () => {
      relay.retarget({ host: "127.0.0.1", port: cluster.replica.port });
      await relay.setMode("forward");
    };
    if (path === "pgbouncer") {
      const bouncer = await startPgBouncer({
        url: relayUrl,
        kind: "server",
        max: 4,
        host: "127.0.0.1",
        port: relay.port,
        urlThrough: (port) => `postgres://postgres@127.0.0.1:${port}/postgres`,
        drop: async () => {},
      });
      cleanups.unshift(() => bouncer.stop());
      bouncerOutput = () => bouncer.output();
      databaseUrl = bouncer.url;
      pointAtNewPrimary = () =>
        bouncer.retarget("127.0.0.1", cluster.replica.port);
    }
    writeFileSync(join(directory, "fixtures.json"), JSON.stringify(fixtures));
    const { server, url } = startServerMain({
      DATABASE_URL: databaseUrl,
      ...(path === "pgbouncer" && { DATABASE_DIRECT_URL: relayUrl }),
      FIXTURES: join(directory, "fixtures.json"),
      // The test's tokens are short: allowed, as in every test.
      ALLOW_SHORT_TOKENS: "1",
      LOG_LEVEL: "warn",
      ...env,
    });
    cleanups.unshift(() => server.stop());
    const base = await url;
    await cluster.caughtUp();

    const answers: Answer[] = [];
    let lossAt = Infinity;
    const clock = () => performance.now() - lossAt;
    let recoveredAt = Infinity;
    let stopAt = Infinity;
    const running = () => performance.now() < stopAt;
    /** Keeps an answer; the load stops once 10 in a row came after recovery. */
    const record = (answer: Answer) => {
      answers.push(answer);
      if (
        answer.sent >= recoveredAt &&
        tenInARow(answers, recoveredAt) !== undefined
      ) {
        stopAt = Math.min(stopAt, performance.now());
      }
    };
    let deletes = 0;
    const loop = async (offset: number) => {
      for (let n = offset; running(); n++) {
        const kind = (["lookup", "trigger", "delete", "export"] as const)[
          n % 4
        ]!;
        if (kind === "lookup") record(await lookup(base, n % CALLS, clock));
        if (kind === "trigger") record(await trigger(base, clock));
        if (kind === "delete" && deletes < INTEGRATIONS) {
          record(await remove(base, integrationId(deletes++), clock));
        }
        if (kind === "export") {
          record(await exportCalls(base, SMALL_EXPORT, "export", clock));
        }
      }
    };
    const readiness = async () => {
      while (running()) {
        answers.push(await readyz(base, clock));
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    };
    const startedAt = performance.now();
    lossAt = startedAt + BEFORE_MS;
    const load = Promise.all([
      ...Array.from({ length: LOOPS }, (_, n) => loop(n)),
      readiness(),
      // Large exports, read slowly from before the loss to after it.
      ...Array.from(
        { length: LARGE_EXPORTS },
        () =>
          exportCalls(base, CALLS, "large export", clock, LARGE_EXPORT_RATE),
      ).map((answer) => answer.then(record)),
    ]);
    await sleepUntil(lossAt);
    lossAt = performance.now();
    await relay.setMode("blackhole");
    await cluster.primary.crash();
    await promote(cluster.replica.url("postgres"));
    await sleepUntil(lossAt + OUTAGE_MS);
    await pointAtNewPrimary();
    const pointedAt = clock();
    await reachesPrimary(databaseUrl);
    recoveredAt = clock();
    stopAt = performance.now() + AFTER_MS;
    await load;
    await checkArchives(answers);
    const deletesLost = await stillThere(
      cluster.replica.url("postgres"),
      answers.filter((answer) => answer.kind === "delete" && answer.ok)
        .map((answer) => answer.integration!),
    );
    await server.stop();
    return {
      pointedAt,
      recoveredAt,
      answers,
      deletesLost,
      output: server.output,
      poolerOutput: bouncerOutput(),
    };
  } finally {
    for (const cleanup of cleanups) await cleanup().catch(() => {});
  }
}

/** Makes every commit on the primary wait for the replica's flush. */
async function synchronousReplication(url: string): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql`ALTER SYSTEM SET synchronous_standby_names = '*'`;
    await sql`ALTER SYSTEM SET synchronous_commit = 'on'`;
    await sql`SELECT pg_reload_conf()`;
    const deadline = Date.now() + 20_000;
    for (;;) {
      const rows = await sql`
        SELECT 1 FROM pg_stat_replication WHERE sync_state = 'sync'`;
      if (rows.length > 0) return;
      if (Date.now() > deadline) throw new Error("no synchronous standby");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    await sql.end();
  }
}

/** Promotes the replica and waits until it accepts writes. */
async function promote(url: string): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql`SELECT pg_promote(wait => true, wait_seconds => 30)`;
  } finally {
    await sql.end();
  }
}

/**
 * Waits until a fresh connection through `url` reaches a primary (not in
 * recovery): until the address leads to the new primary. PgBouncer may
 * hold a login back (its `server_login_retry` after a failed one).
 */
async function reachesPrimary(url: string): Promise<void> {
  const deadline = performance.now() + 30_000;
  for (;;) {
    const sql = postgres(url, {
      max: 1,
      connect_timeout: 2,
      fetch_types: false,
      onnotice: () => {},
    });
    try {
      const [row] = await sql<[{ standby: boolean }]>`
        SELECT pg_is_in_recovery() AS standby`;
      if (!row.standby) return;
    } catch (error) {
      if (performance.now() > deadline) throw error;
    } finally {
      await sql.end({ timeout: 0 });
    }
    if (performance.now() > deadline) {
      throw new Error("the address leads to no primary");
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Which of `ids` the database at `url` still holds. */
async function stillThere(url: string, ids: string[]): Promise<string[]> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const rows = await sql<{ id: string }[]>`
      SELECT integration_id::text AS id FROM integrations
      WHERE integration_id = ANY(${ids}::uuid[])`;
    return rows.map((row) => row.id);
  } finally {
    await sql.end();
  }
}

async function sleepUntil(at: number): Promise<void> {
  const ms = at - performance.now();
  if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms));
}

const auth = { authorization: `Bearer ${data.token}` };

/** Sends a request; the answer's status and body, or the failure. */
async function send(
  base: string,
  path: string,
  init: RequestInit = {},
): Promise<{ status: number; body: string } | { failed: string }> {
  try {
    const response = await fetch(new URL(path, base), {
      ...init,
      signal: AbortSignal.timeout(60_000),
    });
    return { status: response.status, body: await response.text() };
  } catch (error) {
    return { failed: String(error) };
  }
}

/** Sends `path` and judges the answer against `status` (and `body`). */
async function ask(
  kind: "lookup" | "trigger" | "readyz",
  base: string,
  path: string,
  init: RequestInit,
  clock: () => number,
  expected: { status: number; body?: string },
): Promise<Answer> {
  const sent = clock();
  const answer = await send(base, path, init);
  return judge(kind, sent, clock(), answer, expected.status, expected.body);
}

const lookup = (base: string, n: number, clock: () => number) =>
  ask(
    "lookup",
    base,
    `/v1/call/${data.call(n)}/message`,
    {
      headers: auth,
    },
    clock,
    { status: 200, body: transcript(n) },
  );

const trigger = (base: string, clock: () => number) =>
  ask(
    "trigger",
    base,
    `/v1/workflow/${FLOW}/trigger/test`,
    {
      method: "POST",
      headers: auth,
    },
    clock,
    { status: 200 },
  );

async function remove(
  base: string,
  id: string,
  clock: () => number,
): Promise<Answer> {
  const sent = clock();
  const answer = await send(base, `/v1/integration/${id}`, {
    method: "DELETE",
    headers: auth,
  });
  return {
    ...judge("delete", sent, clock(), answer, 204, ""),
    integration: id,
  };
}

const readyz = (base: string, clock: () => number) =>
  ask("readyz", base, "/readyz", {}, clock, { status: 200 });

function judge(
  kind: Answer["kind"],
  sent: number,
  ended: number,
  answer: { status: number; body: string } | { failed: string },
  status: number,
  body?: string,
): Answer {
  if ("failed" in answer) {
    return { kind, sent, ended, status: 0, ok: false, detail: answer.failed };
  }
  const ok = answer.status === status &&
    (body === undefined || answer.body === body);
  return {
    kind,
    sent,
    ended,
    status: answer.status,
    ok,
    ...(!ok && { detail: `${answer.status} ${answer.body.slice(0, 200)}` }),
  };
}

/**
 * Exports the first `calls` calls and checks the archive; reads at most
 * `bytesPerSecond` (a slow client), so that a large export spans the loss.
 */
async function exportCalls(
  base: string,
  calls: number,
  kind: "export" | "large export",
  clock: () => number,
  bytesPerSecond?: number,
): Promise<Answer> {
  const sent = clock();
  let response: Response;
  try {
    response = await fetch(new URL("/v1/call/message/bulk", base), {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ call_ids: data.callIds.slice(0, calls) }),
      signal: AbortSignal.timeout(60_000),
    });
  } catch (error) {
    // Cut before the status line (Bun sends a streamed answer's headers
    // with its first chunk).
    return {
      kind,
      sent,
      ended: clock(),
      status: 0,
      ok: false,
      transfer: "cut",
      detail: String(error),
    };
  }
  if (response.status !== 200) {
    const body = await response.text();
    return {
      kind,
      sent,
      ended: clock(),
      status: response.status,
      ok: false,
      detail: `${response.status} ${body.slice(0, 200)}`,
    };
  }
  const chunks: Uint8Array[] = [];
  const started = performance.now();
  let received = 0;
  try {
    const reader = response.body!.getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      chunks.push(value);
      received += value.length;
      if (bytesPerSecond !== undefined) {
        await sleepUntil(started + 1000 * received / bytesPerSecond);
      }
    }
  } catch (error) {
    return {
      kind,
      sent,
      ended: clock(),
      status: 200,
      ok: false,
      transfer: "cut",
      detail: String(error),
    };
  }
  const ended = clock();
  const bytes = new Uint8Array(chunks.reduce((sum, c) => sum + c.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  // Checked after the load (see checkArchives): the independent readers
  // are synchronous and would hold the loops up.
  return {
    kind,
    sent,
    ended,
    status: 200,
    ok: true,
    archive: { calls, bytes },
  };
}

/**
 * Reads every archive that ended normally (each distinct one once) and
 * marks it whole, or broken when it is not exactly the calls asked for.
 */
async function checkArchives(answers: Answer[]): Promise<void> {
  const archives = new Map<string, { calls: number; bytes: Uint8Array }>();
  const digests = new Map<Answer, string>();
  for (const answer of answers) {
    const archive = answer.archive;
    if (archive === undefined) continue;
    delete answer.archive;
    const digest = new Uint8Array(
      await crypto.subtle.digest("SHA-256", archive.bytes),
    ).join(",") + `/${archive.calls}`;
    archives.set(digest, archive);
    digests.set(answer, digest);
  }
  // Read all at once: one Python for every distinct archive.
  const readings = readZips([...archives.values()].map((a) => a.bytes));
  const verdicts = new Map<string, string | undefined>();
  [...archives].forEach(([digest, archive], n) => {
    try {
      const reading = readings[n]!;
      if ("refused" in reading) throw new Error(reading.refused);
      assert.deepEqual(
        reading.entries.map((entry) => entry.name),
        data.callIds.slice(0, archive.calls).map((id) => `${id}.json`),
      );
      reading.entries.forEach((entry, n) =>
        assert.equal(entry.text, transcript(n))
      );
      verdicts.set(digest, undefined);
    } catch (error) {
      verdicts.set(digest, String(error).slice(0, 300));
    }
  });
  for (const [answer, digest] of digests) {
    const broken = verdicts.get(digest);
    answer.transfer = broken === undefined ? "whole" : "broken";
    if (broken !== undefined) {
      answer.ok = false;
      answer.detail = broken;
    }
  }
}

/**
 * The 10th of the first 10 right answers in a row (by when they ended) of
 * the API requests sent at or after `after`, if there were 10.
 */
function tenInARow(answers: Answer[], after: number): Answer | undefined {
  const sent = answers.filter((answer) =>
    answer.kind !== "readyz" && answer.sent >= after
  ).sort((a, b) => a.ended - b.ended);
  let run = 0;
  for (const answer of sent) {
    run = answer.ok ? run + 1 : 0;
    if (run === 10) return answer;
  }
  return undefined;
}

/** The figures of a run, for the log and the report. */
export interface FailoverFigures {
  /** From the loss until the address was pointed at the new primary. */
  pointedAt: number;
  /** From the loss until the new primary accepted at the address. */
  recoveredAt: number;
  /** From the new primary accepting to the first right answer sent after it. */
  firstSuccess: number;
  /** ... to the 10th of 10 right answers in a row, sent after it. */
  tenInARow: number;
  /** The longest any request took. */
  longest: number;
  /** Answers by kind and status. */
  counts: Record<string, number>;
  /** Valid requests refused or not found: must be none. */
  false4xx: number;
  /** Large exports: whole, cut, broken. */
  large: string[];
}

/** Computes the figures of a tally. */
export function failoverFigures(tally: FailoverTally): FailoverFigures {
  const api = tally.answers.filter((answer) => answer.kind !== "readyz");
  const first = api.filter((answer) => answer.sent >= tally.recoveredAt)
    .sort((a, b) => a.ended - b.ended).find((answer) => answer.ok);
  const tenth = tenInARow(tally.answers, tally.recoveredAt);
  const counts: Record<string, number> = {};
  for (const answer of tally.answers) {
    const key = `${answer.kind} ${answer.status}${
      answer.transfer ? ` ${answer.transfer}` : ""
    }`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return {
    pointedAt: tally.pointedAt,
    recoveredAt: tally.recoveredAt,
    firstSuccess: first ? first.ended - tally.recoveredAt : Infinity,
    tenInARow: tenth ? tenth.ended - tally.recoveredAt : Infinity,
    longest: Math.max(...tally.answers.map((a) => a.ended - a.sent)),
    counts,
    false4xx: api.filter((answer) => [401, 403, 404].includes(answer.status))
      .length,
    large: tally.answers.filter((answer) => answer.kind === "large export")
      .map((answer) => answer.transfer ?? String(answer.status)),
  };
}

/** The figures in one line. */
export function describeFailover(
  label: string,
  figures: FailoverFigures,
): string {
  const round = (ms: number) =>
    Number.isFinite(ms) ? `${Math.round(ms)} ms` : "never";
  return `${label}: the new primary accepted at the address ` +
    `${round(figures.recoveredAt)} after the loss (pointed at ` +
    `${round(figures.pointedAt)}); first success ${
      round(figures.firstSuccess)
    }, ` +
    `10 in a row ${round(figures.tenInARow)} after the new primary accepted; ` +
    `longest request ${round(figures.longest)}; ${figures.false4xx} false ` +
    `401/403/404; large exports ${figures.large.join("/")}; ` +
    JSON.stringify(figures.counts);
}

/**
 * The goals: right answers again within 5 s of the new primary accepting
 * (the first, and 10 in a row); no valid request answered 401, 403 or 404;
 * every failure a 500 (503 for a full export slot or an unready store);
 * no request longer than `boundMs`; every delete answered 204 gone from the
 * new primary; every export answered 200 either whole or cut, never broken.
 */
export function assertFailoverGoals(
  tally: FailoverTally,
  boundMs: number,
): void {
  const figures = failoverFigures(tally);
  const context = `${describeFailover("tally", figures)}\n${
    tally.answers.filter((answer) => !answer.ok && answer.status !== 500)
      .map((answer) =>
        `${answer.kind} at ${Math.round(answer.sent)}: ${answer.detail}`
      )
      .slice(0, 20).join("\n")
  }\n${tally.output.slice(-4000)}${
    tally.poolerOutput && `\nPgBouncer:\n${tally.poolerOutput.slice(-4000)}`
  }`;
  assert.ok(figures.firstSuccess <= 5000, context);
  assert.ok(figures.tenInARow <= 5000, context);
  assert.equal(figures.false4xx, 0, context);
  assert.deepEqual(tally.deletesLost, [], context);
  assert.ok(figures.longest <= boundMs, context);
  for (const answer of tally.answers) {
    if (answer.ok) continue;
    assert.notEqual(answer.transfer, "broken", context);
    const allowed = answer.transfer === "cut" ||
      answer.status === 500 ||
      (answer.status === 503 &&
        (answer.kind === "readyz" || answer.kind.endsWith("export")));
    assert.ok(allowed, `${answer.kind}: ${answer.detail}\n${context}`);
  }
  assert.doesNotMatch(tally.output, /unhandled|uncaught/i);
}
