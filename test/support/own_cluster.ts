/**
 * A PostgreSQL 15 cluster of the test's own, in a temporary directory, for
 * tests that restart or stop the server (never the shared one): `initdb` and
 * `pg_ctl` from Debian's PostgreSQL 15, run as the `postgres` user when the
 * test runs as root, listening on 127.0.0.1 and a free port of 42000-42999.
 *
 * @module
 */
import { execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";

const BIN = "/usr/lib/postgresql/15/bin";

/** Whether this machine has the binaries, to skip a test without them. */
export const CLUSTER_BINARIES = existsSync(join(BIN, "pg_ctl"));

/** A running cluster of the test's own. */
export interface OwnCluster {
  /** A URL to its `postgres` database, as the `postgres` user. */
  url: string;
  port: number;
  /** Restarts it (fast shutdown: sessions are terminated), waiting until it is up. */
  restart(): void;
  /** Stops it and removes its directory. */
  destroy(): void;
}

function asPostgres(command: string, args: string[]): string {
  const [file, argv] = process.getuid?.() === 0
    ? ["runuser", ["-u", "postgres", "--", join(BIN, command), ...args]]
    : [join(BIN, command), args];
  return execFileSync(file, argv, {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
}

async function freePortInRange(from: number, to: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = from + Math.floor(Math.random() * (to - from));
    const free = await new Promise<boolean>((resolve) => {
      const probe = createServer();
      probe.once("error", () => resolve(false));
      probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new Error(`Cannot find a free port in ${from}-${to}`);
}

/**
 * Creates and starts a cluster (trust authentication, 127.0.0.1 only).
 *
 * @returns The running cluster; `destroy()` it when done.
 */
export async function startOwnCluster(): Promise<OwnCluster> {
  const directory = mkdtempSync(join(tmpdir(), "own-cluster-"));
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync("id", ["-u", "postgres"]).toString());
    const gid = Number(execFileSync("id", ["-g", "postgres"]).toString());
    chownSync(directory, uid, gid);
  }
  const data = join(directory, "data");
  asPostgres("initdb", ["-D", data, "-A", "trust", "-U", "postgres"]);
  const port = await freePortInRange(42000, 42999);
  const options = `-p ${port} -k ${directory} -c listen_addresses=127.0.0.1 ` +
    "-c fsync=off";
  const log = join(directory, "log");
  asPostgres("pg_ctl", ["-D", data, "-l", log, "-o", options, "-w", "start"]);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    restart() {
      asPostgres("pg_ctl", [
        "-D",
        data,
        "-l",
        log,
        "-m",
        "fast",
        "-w",
        "restart",
      ]);
    },
    destroy() {
      try {
        asPostgres("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
      } finally {
        rmSync(directory, { recursive: true, force: true });
      }
    },
  };
}
