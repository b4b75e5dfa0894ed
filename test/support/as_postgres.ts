/**
 * Running PostgreSQL's and PgBouncer's programs as user `postgres`: both
 * refuse to run as root, which CI is. As another user, they run as that user.
 *
 * @module
 */
import { execFileSync } from "node:child_process";
import { chownSync } from "node:fs";
import process from "node:process";

const AS_ROOT = process.getuid?.() === 0;

/**
 * The command line that runs `command` with `args` as user `postgres` when
 * this process is root (through util-linux's `setpriv`, which execs: the
 * PID is the program's own), else as it is.
 *
 * @example
 * ```ts ignore
 * import { spawn } from "node:child_process";
 * import { asPostgres } from "./support/as_postgres.ts";
 *
 * const [command, args] = asPostgres("/usr/sbin/pgbouncer", ["pgbouncer.ini"]);
 * spawn(command, args);
 * ```
 */
export function asPostgres(
  command: string,
  args: readonly string[],
): [string, string[]] {
  return AS_ROOT
    ? ["setpriv", [
      "--reuid=postgres",
      "--regid=postgres",
      "--init-groups",
      command,
      ...args,
    ]]
    : [command, [...args]];
}

/**
 * Hands `path` to user `postgres` when this process is root, so that the
 * programs {@linkcode asPostgres} starts can write there.
 *
 * @example
 * ```ts ignore
 * import { mkdtempSync } from "node:fs";
 * import { givePostgres } from "./support/as_postgres.ts";
 *
 * givePostgres(mkdtempSync("/tmp/cluster-"));
 * ```
 */
export function givePostgres(path: string): void {
  if (!AS_ROOT) return;
  const id = (flag: string) =>
    Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }));
  chownSync(path, id("-u"), id("-g"));
}
