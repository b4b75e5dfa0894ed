/**
 * A PostgreSQL 15 primary and its streaming replica, built for one test in a
 * temporary directory from Debian's binaries: `initdb`, a `postgres` on a
 * port of the test range, `pg_basebackup -R` from it, and a second
 * `postgres` on the copy. Both run in the foreground as user `postgres`,
 * are stopped by their PIDs, and leave nothing behind. The shared server on
 * 5432 is never touched.
 *
 * @module
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { asPostgres, givePostgres } from "./as_postgres.ts";
import { freePortInRange } from "./port_range.ts";

/** Where Debian installs PostgreSQL 15's programs. */
export const PG_BIN = "/usr/lib/postgresql/15/bin";

/** One running `postgres`. */
export interface ClusterServer {
  port: number;
  /** A URL to `database` on this server. */
  url(database: string): string;
  /** Stops it (fast shutdown: SIGINT to its PID) and waits for it. */
  stop(): Promise<void>;
  /**
   * Stops it as `pg_ctl -m immediate` does (SIGQUIT: no checkpoint, every
   * session dropped at once) and waits for it.
   */
  crash(): Promise<void>;
  /** Starts it again on the same directory and port. */
  start(): Promise<void>;
  /** Its log so far, for failure messages. */
  output(): string;
}

/** A primary and its streaming replica. */
export interface ReplicaCluster {
  primary: ClusterServer;
  replica: ClusterServer;
  /** Waits until the replica has replayed everything the primary wrote. */
  caughtUp(): Promise<void>;
  /** Stops both and removes their directories. */
  destroy(): Promise<void>;
}

/**
 * Builds and starts the primary, then the replica from its base backup, and
 * resolves once the replica streams.
 *
 * @example
 * ```ts ignore
 * const cluster = await startReplicaCluster();
 * const url = cluster.replica.url("postgres");
 * await cluster.destroy();
 * ```
 */
export async function startReplicaCluster(): Promise<ReplicaCluster> {
  const root = mkdtempSync(join(tmpdir(), "replica-cluster-"));
  givePostgres(root);
  const servers: ClusterServer[] = [];
  try {
    const primaryDir = join(root, "primary");
    await run("initdb", [
      "-D",
      primaryDir,
      "-U",
      "postgres",
      "--auth=trust",
      "-E",
      "UTF8",
      "--no-sync",
    ]);
    const primary = await serveDirectory(primaryDir, root);
    servers.push(primary);
    const replicaDir = join(root, "replica");
    await run("pg_basebackup", [
      "-D",
      replicaDir,
      "-R",
      "-h",
      "127.0.0.1",
      "-p",
      String(primary.port),
      "-U",
      "postgres",
      "--no-sync",
      "-X",
      "stream",
    ]);
    const replica = await serveDirectory(replicaDir, root);
    servers.push(replica);
    const cluster: ReplicaCluster = {
      primary,
      replica,
      async caughtUp() {
        const onPrimary = postgres(primary.url("postgres"), { max: 1 });
        const onReplica = postgres(replica.url("postgres"), { max: 1 });
        try {
          const [{ lsn }] = await onPrimary<[{ lsn: string }]>`
            SELECT pg_current_wal_lsn()::text AS lsn`;
          const deadline = Date.now() + 30_000;
          for (;;) {
            const [{ behind }] = await onReplica<[{ behind: boolean }]>`
              SELECT pg_last_wal_replay_lsn() < ${lsn}::pg_lsn AS behind`;
            if (!behind) return;
            if (Date.now() > deadline) throw new Error("the replica lags");
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
        } finally {
          await onPrimary.end();
          await onReplica.end();
        }
      },
      async destroy() {
        await Promise.all(servers.map((server) => server.stop()));
        rmSync(root, { recursive: true, force: true });
      },
    };
    await waitFor(async () => {
      const sql = postgres(replica.url("postgres"), { max: 1 });
      try {
        const [row] = await sql<[{ streaming: boolean }]>`
          SELECT pg_is_in_recovery() AND EXISTS (
            SELECT FROM pg_stat_wal_receiver WHERE status = 'streaming'
          ) AS streaming`;
        return row.streaming;
      } finally {
        await sql.end();
      }
    }, "the replica streams");
    return cluster;
  } catch (error) {
    await Promise.all(servers.map((server) => server.stop()));
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
}

/** Runs one of PostgreSQL's programs as user `postgres`, to completion. */
function run(program: string, args: string[]): Promise<void> {
  const [command, argv] = asPostgres(join(PG_BIN, program), args);
  return new Promise((resolve, reject) => {
    execFile(command, argv, (error, _stdout, stderr) => {
      if (error) reject(new Error(`${program}: ${error.message}\n${stderr}`));
      else resolve();
    });
  });
}

/** A `postgres` serving `directory`, on a free port of the range. */
async function serveDirectory(
  directory: string,
  root: string,
): Promise<ClusterServer> {
  const sockets = join(root, `sockets-${directory.split("/").pop()}`);
  if (!existsSync(sockets)) mkdirSync(sockets);
  givePostgres(sockets);
  let port = 0;
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  let log = "";
  const start = async () => {
    const [command, args] = asPostgres(join(PG_BIN, "postgres"), [
      "-D",
      directory,
      "-p",
      String(port),
      "-c",
      "listen_addresses=127.0.0.1",
      "-c",
      `unix_socket_directories=${sockets}`,
      "-c",
      "fsync=off",
      "-c",
      "shared_buffers=16MB",
      "-c",
      "max_connections=60",
    ]);
    const started = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
    started.stdout!.on("data", (data) => log += data);
    started.stderr!.on("data", (data) => log += data);
    child = started;
    exited = new Promise((resolve) => started.once("exit", () => resolve()));
    await waitFor(async () => {
      if (started.exitCode !== null) {
        throw new Error(`postgres exited:\n${log}`);
      }
      const sql = postgres(`postgres://postgres@127.0.0.1:${port}/postgres`, {
        max: 1,
        connect_timeout: 1,
        onnotice: () => {},
      });
      try {
        await sql`SELECT 1`;
        return true;
      } catch {
        return false;
      } finally {
        await sql.end({ timeout: 1 });
      }
    }, `postgres on ${directory}`);
  };
  for (let attempt = 0;; attempt++) {
    port = await freePortInRange();
    try {
      await start();
      break;
    } catch (error) {
      if (attempt >= 4 || !/already in use/i.test(log)) throw error;
      log = "";
    }
  }
  return {
    port,
    url: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`,
    async stop() {
      if (child && child.exitCode === null && child.signalCode === null) {
        child.kill("SIGINT");
      }
      await exited;
    },
    async crash() {
      if (child && child.exitCode === null && child.signalCode === null) {
        child.kill("SIGQUIT");
      }
      await exited;
    },
    start,
    output: () => log,
  };
}

/** Polls `ready` every 100 ms for up to 30 s. */
async function waitFor(
  ready: () => Promise<boolean>,
  what: string,
): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error(`Timed out: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
