/**
 * The real server process (server/main.ts, on the runtime running this file)
 * on the real PostgreSQL while its database's backends are killed every
 * 300 ms under concurrent 500-id exports: it stays up, never answers a valid
 * token 401, never sends a well-formed ZIP missing entries, and answers
 * correctly again within a second once the kills stop. Needs DATABASE_URL
 * (a server whose backends can be terminated); skipped without it.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { after, before, describe, it } from "node:test";
import type { Sql } from "postgres";
import { connectPostgres } from "../postgres/mod.ts";
import { runtimeName } from "../server/_serve.ts";
import { manyCalls } from "./support/many_calls.ts";
import { createTestDatabase, type TestDatabase } from "./support/postgres.ts";
import { readZip } from "./support/zip_reader.ts";

const SERVER_URL = process.env.DATABASE_URL;
const CALLS = 500;
const MESSAGES = 6;
const EXPORTERS = 4;
const KILL_EVERY_MS = 300;
const KILLING_MS = 4000;

const { token: TOKEN, call, callIds, fixtures } = manyCalls({
  prefix: "c7",
  calls: CALLS,
  messages: MESSAGES,
});
/** What GET /v1/call/{id}/message answers for call `n`, and its ZIP entry. */
const transcript = (n: number) =>
  JSON.stringify(
    Array.from({ length: MESSAGES }, (_, index) => ({ index, of: n })),
  );

/** Starts server/main.ts on this runtime; resolves with its URL once it listens. */
function startServer(
  env: Record<string, string>,
): { child: ChildProcess; url: Promise<string>; output: () => string } {
  const args = {
    node: ["server/main.ts"],
    deno: ["run", "--allow-all", "server/main.ts"],
    bun: ["server/main.ts"],
  }[runtimeName()];
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stderr!.on("data", (data) => output += data);
  const url = new Promise<string>((resolve, reject) => {
    child.stdout!.on("data", (data) => {
      output += data;
      const match = /listening on (\S+)/.exec(output);
      if (match) resolve(match[1]!);
    });
    child.once(
      "exit",
      (code) => reject(new Error(`exited ${code}: ${output}`)),
    );
  });
  return { child, url, output: () => output };
}

/** What an answer was, for the tally; throws on anything not allowed. */
type Outcome = "zip" | "500" | "503" | "aborted" | "messages";

/**
 * Exports every call once. A transfer that ends normally is checked by
 * `check` (later, so that the synchronous ZIP readers do not hold up the
 * killing); one that fails midway is an aborted transfer.
 */
async function exportOnce(
  base: string,
  check: (bytes: Uint8Array) => void = assertWholeArchive,
): Promise<Outcome> {
  let response: Response;
  try {
    response = await fetch(new URL("/v1/call/message/bulk", base), {
      method: "POST",
      headers: {
        authorization: `Bearer ${TOKEN}`,
        "content-type": "application/json",
      },
      body: JSON.stringify({ call_ids: callIds }),
    });
  } catch {
    // Cut before the status line: Bun sends a streamed response's headers
    // with its first chunk, so an export that fails before it is a reset.
    return "aborted";
  }
  if (response.status !== 200) return await refusal(response);
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await response.arrayBuffer());
  } catch {
    return "aborted";
  }
  check(bytes);
  return "zip";
}

/** The whole archive, every entry exact: never a ZIP missing entries. */
function assertWholeArchive(bytes: Uint8Array): void {
  const entries = readZip(bytes);
  assert.deepEqual(
    entries.map((entry) => entry.name),
    callIds.map((id) => `${id}.json`),
  );
  entries.forEach((entry, n) => assert.equal(entry.text, transcript(n)));
}

async function messagesOnce(base: string, n: number): Promise<Outcome> {
  const response = await fetch(new URL(`/v1/call/${call(n)}/message`, base), {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  if (response.status !== 200) return await refusal(response);
  assert.equal(await response.text(), transcript(n));
  return "messages";
}

/** A non-200 answer: only the spec's 500 or the export limit's 503. */
async function refusal(response: Response): Promise<Outcome> {
  const body = await response.json();
  const allowed: Record<number, string> = {
    500: "INTERNAL_SERVER_ERROR",
    503: "TOO_MANY_EXPORTS",
  };
  assert.equal(
    body.error_code,
    allowed[response.status],
    `${response.status} ${JSON.stringify(body)}`,
  );
  return String(response.status) as Outcome;
}

describe("The server on PostgreSQL while backends are killed", {
  skip: !SERVER_URL &&
    "needs DATABASE_URL: a server whose backends can be killed",
}, () => {
  let db: TestDatabase;
  let admin: Sql;
  let directory: string;
  before(async () => {
    db = await createTestDatabase();
    admin = connectPostgres(SERVER_URL!, { max: 1 });
    directory = mkdtempSync(join(tmpdir(), "kill-test-"));
    writeFileSync(join(directory, "fixtures.json"), JSON.stringify(fixtures));
  });
  after(async () => {
    rmSync(directory, { recursive: true, force: true });
    await admin?.end();
    await db?.drop();
  });

  it(`survives, answers 200/500 only, and recovers within a second (${runtimeName()})`, async () => {
    const server = startServer({
      DATABASE_URL: db.url,
      PORT: "0",
      HOST: "127.0.0.1",
      FIXTURES: join(directory, "fixtures.json"),
      // As many slots as exporters: a slot not given back by an aborted
      // export would show as a 503 after the kills.
      MAX_CONCURRENT_EXPORTS: String(EXPORTERS),
    });
    let killing = false;
    let killer = Promise.resolve();
    try {
      const base = await server.url;
      const database = new URL(db.url).pathname.slice(1);
      const tally = new Map<Outcome, number>();
      const count = (outcome: Outcome) =>
        tally.set(outcome, (tally.get(outcome) ?? 0) + 1);

      killing = true;
      let kills = 0;
      killer = (async () => {
        while (killing) {
          await new Promise((resolve) => setTimeout(resolve, KILL_EVERY_MS));
          // Only this test's database, never the admin connection.
          await admin`
            SELECT pg_terminate_backend(pid) FROM pg_stat_activity
            WHERE datname = ${database} AND pid <> pg_backend_pid()`;
          kills += 1;
        }
      })();
      const until = performance.now() + KILLING_MS;
      const loop = async (request: () => Promise<Outcome>) => {
        while (performance.now() < until) count(await request());
      };
      let probe = 0;
      const completed: Uint8Array[] = [];
      await Promise.all([
        ...Array.from(
          { length: EXPORTERS },
          () => loop(() => exportOnce(base, (bytes) => completed.push(bytes))),
        ),
        loop(() => messagesOnce(base, probe++ % CALLS)),
      ]);
      killing = false;
      await killer;
      const stopped = performance.now();

      console.log(
        `${kills} kills: ${JSON.stringify(Object.fromEntries(tally))}`,
      );
      assert.equal(server.child.exitCode, null, server.output());
      assert.ok(kills >= 10, `only ${kills} kills`);
      assert.ok(
        (tally.get("500") ?? 0) + (tally.get("aborted") ?? 0) > 0,
        `the kills hit nothing: ${JSON.stringify([...tally])}`,
      );

      // Correct again within a second: every exporter's export and a lookup,
      // retried until right, each sent less than a second after the kills.
      const recovered = async (request: () => Promise<Outcome>) => {
        for (;;) {
          const sent = performance.now() - stopped;
          const outcome = await request();
          if (outcome === "zip" || outcome === "messages") return sent;
          assert.ok(sent < 1000, `still ${outcome} ${Math.round(sent)} ms on`);
        }
      };
      const sentAt = await Promise.all([
        ...Array.from(
          { length: EXPORTERS },
          () => recovered(() => exportOnce(base)),
        ),
        recovered(() => messagesOnce(base, 7)),
      ]);
      if (process.env.KILL_DEBUG) {
        writeFileSync(process.env.KILL_DEBUG, server.output());
      }
      assert.ok(sentAt.every((ms) => ms < 1000), `${sentAt}`);
      console.log(`recovered: requests sent ${sentAt.map(Math.round)} ms on`);

      assert.equal(server.child.exitCode, null, server.output());
      assert.doesNotMatch(server.output(), /unhandled|uncaught/i);
      completed.forEach(assertWholeArchive);
    } finally {
      killing = false;
      await killer;
      server.child.kill("SIGTERM");
      if (server.child.exitCode === null) {
        await new Promise((resolve) => server.child.once("exit", resolve));
      }
    }
  });
});
