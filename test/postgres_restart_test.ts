/**
 * The real server process (server/main.ts, on the runtime running this file)
 * on a PostgreSQL cluster of the test's own, restarted (fast shutdown) while
 * four exports are in flight: each export's lost batch is read again once the
 * server is back, so all four clients get one whole ZIP. Needs Debian's
 * PostgreSQL 15 binaries; skipped without them.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { after, before, describe, it } from "node:test";
import postgres from "postgres";
import { runtimeName } from "../server/runtimes/mod.ts";
import { manyCalls, noisyMessages } from "./support/many_calls.ts";
import {
  CLUSTER_BINARIES,
  type OwnCluster,
  startOwnCluster,
} from "./support/own_cluster.ts";
import { readZip } from "./support/zip_reader.ts";

const CALLS = 300;
const MESSAGES = 6;
const EXPORTS = 4;

const message = noisyMessages(MESSAGES, 4000);
const { token, callIds, fixtures } = manyCalls({
  prefix: "e5",
  calls: CALLS,
  messages: MESSAGES,
  message,
});

describe("The server on PostgreSQL across a restart", {
  skip: !CLUSTER_BINARIES && "needs /usr/lib/postgresql/15/bin",
}, () => {
  let cluster: OwnCluster;
  let directory: string;
  before(async () => {
    cluster = await startOwnCluster();
    directory = mkdtempSync(join(tmpdir(), "restart-test-"));
    writeFileSync(join(directory, "fixtures.json"), JSON.stringify(fixtures));
  });
  after(() => {
    cluster?.destroy();
    rmSync(directory, { recursive: true, force: true });
  });

  it(`completes 4 of 4 in-flight exports whole (${runtimeName()})`, async () => {
    const args = {
      node: ["server/main.ts"],
      deno: ["run", "--allow-all", "server/main.ts"],
      bun: ["server/main.ts"],
    }[runtimeName()];
    const child = spawn(process.execPath, args, {
      env: {
        ...process.env,
        DATABASE_URL: cluster.url,
        PORT: "0",
        HOST: "127.0.0.1",
        FIXTURES: join(directory, "fixtures.json"),
        // The test's tokens are short: allowed, as in every test.
        ALLOW_SHORT_TOKENS: "1",
        LOG_LEVEL: "warn",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stderr!.on("data", (data) => output += data);
    const exited = new Promise((resolve) => child.once("exit", resolve));
    try {
      const base = await new Promise<string>((resolve, reject) => {
        child.stdout!.on("data", (data) => {
          output += data;
          const match = /listening on (\S+)/.exec(output);
          if (match) resolve(match[1]!);
        });
        child.once("exit", (code) => reject(new Error(`${code}: ${output}`)));
      });

      // Four exports, each read up to its first 256 KiB, then held: the
      // server has read a batch or two and waits for the client.
      const readers = await Promise.all(
        Array.from({ length: EXPORTS }, async () => {
          const response = await fetch(new URL("/v1/call/message/bulk", base), {
            method: "POST",
            headers: {
              authorization: `Bearer ${token}`,
              "content-type": "application/json",
            },
            body: JSON.stringify({ call_ids: callIds }),
          });
          assert.equal(response.status, 200);
          const reader = response.body!.getReader();
          const chunks: Uint8Array[] = [];
          let received = 0;
          while (received < 256 * 1024) {
            const { value, done } = await reader.read();
            assert.ok(!done, "the export ended before the restart");
            chunks.push(value);
            received += value.length;
          }
          return { reader, chunks };
        }),
      );
      const scansBefore = await messageScans(cluster.url);
      cluster.restart();

      const archives = await Promise.all(readers.map(async (
        { reader, chunks },
      ) => {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          chunks.push(value);
        }
        const bytes = new Uint8Array(
          chunks.reduce((sum, chunk) => sum + chunk.length, 0),
        );
        let offset = 0;
        for (const chunk of chunks) {
          bytes.set(chunk, offset);
          offset += chunk.length;
        }
        return bytes;
      }));
      for (const bytes of archives) {
        const entries = readZip(bytes);
        assert.deepEqual(
          entries.map((entry) => entry.name),
          callIds.map((id) => `${id}.json`),
        );
        entries.forEach((entry, n) =>
          assert.equal(
            entry.text,
            JSON.stringify(
              Array.from({ length: MESSAGES }, (_, m) => message(n, m)),
            ),
          )
        );
      }
      // The batches after the restart were read from the restarted server:
      // its statistics (kept across a clean restart) count their scans once
      // the server's sessions have ended.
      child.kill("SIGTERM");
      await exited;
      assert.ok(
        await messageScans(cluster.url) > scansBefore,
        "no batch was read after the restart",
      );
      assert.doesNotMatch(output, /unhandled|uncaught/i);
    } finally {
      if (child.exitCode === null) {
        child.kill("SIGTERM");
        await exited;
      }
    }
  });
});

/** Index scans of call_messages so far, as the statistics say. */
async function messageScans(url: string): Promise<number> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql<{ scans: number }[]>`
      SELECT (coalesce(idx_scan, 0) + coalesce(seq_scan, 0))::int AS scans
      FROM pg_stat_user_tables WHERE relname = 'call_messages'`;
    return row?.scans ?? 0;
  } finally {
    await sql.end();
  }
}
