/**
 * A real PgBouncer (`/usr/sbin/pgbouncer`, Debian's `pgbouncer` package) in
 * transaction mode in front of a test database's server, with every other
 * setting at its default but `stats_users` (for `SHOW STATS`):
 * `ignore_startup_parameters` included, so a startup parameter it does not
 * know is refused as in production. It runs
 * in the foreground as user `postgres` when the test runs as root (PgBouncer
 * refuses root), and is stopped by its PID.
 *
 * @module
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import postgres from "postgres";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { asPostgres, givePostgres } from "./as_postgres.ts";
import { freePortInRange } from "./port_range.ts";
import type { TestDatabase } from "./postgres.ts";

/** Where Debian installs PgBouncer. */
export const PGBOUNCER = "/usr/sbin/pgbouncer";

/** A running PgBouncer. */
export interface PgBouncer {
  /** The test database through PgBouncer, `?prepare=false` included. */
  url: string;
  port: number;
  /** PgBouncer's output, for failure messages. */
  output(): string;
  /**
   * How many bytes PgBouncer has received from clients for the test database
   * so far (`SHOW STATS`, `total_received`). Unlike its transaction and
   * query counts, which count statements pipelined on one connection as one,
   * every statement adds its text and parameters to it.
   */
  receivedBytes(): Promise<number>;
  /**
   * Points it at another server, as a failover manager does: its
   * `[databases]` entry rewritten, then `RELOAD`, `KILL` and `RESUME` of the
   * test database on its console, so that no connection to the old server
   * (in use, idle or still connecting) is kept: its clients are cut, and new
   * ones reach the new server. KILL and RESUME are sent together (see
   * below), so that no login falls between them.
   */
  retarget(host: string, port: number): Promise<void>;
  /** Stops it (SIGTERM to its PID) and removes its files. */
  stop(): Promise<void>;
}

/**
 * Starts PgBouncer in transaction mode on a free port of its range, in front
 * of `db`'s server, and resolves once it accepts connections.
 *
 * @param db A database on a real server (not PGlite).
 * @returns The running PgBouncer.
 *
 * @example
 * ```ts ignore
 * import { startPgBouncer } from "./support/pgbouncer.ts";
 *
 * const bouncer = await startPgBouncer(db);
 * // DATABASE_URL=bouncer.url ...
 * await bouncer.stop();
 * ```
 */
export async function startPgBouncer(db: TestDatabase): Promise<PgBouncer> {
  const user = decodeURIComponent(new URL(db.url).username || "postgres");
  const dir = mkdtempSync(join(tmpdir(), "pgbouncer-"));
  writeFileSync(join(dir, "users.txt"), `"${user}" ""\n`);
  givePostgres(dir);
  const configure = (port: number, host: string, serverPort: number) =>
    writeFileSync(
      join(dir, "pgbouncer.ini"),
      [
        "[databases]",
        `* = host=${host} port=${serverPort}`,
        "[pgbouncer]",
        "listen_addr = 127.0.0.1",
        `listen_port = ${port}`,
        "unix_socket_dir =",
        "auth_type = trust",
        `auth_file = ${join(dir, "users.txt")}`,
        "pool_mode = transaction",
        `stats_users = ${user}`,
        `admin_users = ${user}`,
        "",
      ].join("\n"),
    );
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePortInRange();
    configure(port, db.host, db.port);
    const [command, args] = asPostgres(PGBOUNCER, [join(dir, "pgbouncer.ini")]);
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout!.on("data", (data) => output += data);
    child.stderr!.on("data", (data) => output += data);
    const exited = new Promise<void>((resolve) => {
      child.once("exit", () => resolve());
      child.once("error", (error) => {
        output += String(error);
        resolve();
      });
    });
    if (await listening(() => output, exited)) {
      const url = new URL(db.urlThrough(port));
      url.searchParams.set("prepare", "false");
      const console = () =>
        postgres(`postgres://${user}@127.0.0.1:${port}/pgbouncer`, {
          max: 1,
          fetch_types: false,
          onnotice: () => {},
        });
      return {
        url: url.href,
        port,
        output: () => output,
        async receivedBytes() {
          const admin = console();
          try {
            const rows = await admin.unsafe("SHOW STATS").simple();
            const name = new URL(db.url).pathname.slice(1);
            const row = rows.find((row) => row.database === name);
            return Number(row?.total_received ?? 0);
          } finally {
            await admin.end();
          }
        },
        async retarget(host, serverPort) {
          configure(port, host, serverPort);
          const admin = console();
          try {
            const name = new URL(db.url).pathname.slice(1);
            await admin.unsafe("RELOAD").simple();
            // KILL leaves the database paused until RESUME. A client
            // logging in between makes PgBouncer open a server connection
            // that the pause closes mid-login, which it takes for a failed
            // login: it opens none again for `server_login_retry` (15 s).
            // Sent together, they reach it in one read, with no login
            // handled between them.
            await Promise.all([
              admin.unsafe(`KILL ${name}`).simple(),
              admin.unsafe(`RESUME ${name}`).simple(),
            ]);
          } finally {
            await admin.end();
          }
        },
        async stop() {
          await stopChild(child, exited);
          rmSync(dir, { recursive: true, force: true });
        },
      };
    }
    await stopChild(child, exited);
    if (!/Address already in use/i.test(output)) {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`PgBouncer did not start:\n${output}`);
    }
  }
  rmSync(dir, { recursive: true, force: true });
  throw new Error("PgBouncer found no free port");
}

/** Waits until PgBouncer logs that it listens, or exits (false). */
async function listening(
  output: () => string,
  exited: Promise<void>,
): Promise<boolean> {
  let gone = false;
  void exited.then(() => gone = true);
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline && !gone) {
    if (/process up/.test(output())) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

async function stopChild(child: ChildProcess, exited: Promise<void>) {
  if (child.exitCode === null && child.signalCode === null) {
    child.kill("SIGTERM");
  }
  await exited;
}
