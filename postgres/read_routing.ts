/**
 * Where the store's reads go: to a read replica while it can be reached, to
 * the primary while it cannot, and back to the replica once a probe finds it
 * answering again.
 *
 * @module
 */
import type { Sql } from "postgres";
import { PostgresTimeoutError, withDeadline } from "./deadline.ts";
import { isLostConnection } from "./retry.ts";

/** The longest a probe of the replica may take before it counts as down. */
const PROBE_DEADLINE_MS = 10_000;

/** Options of {@linkcode ReadRouting}. */
export interface ReadRoutingOptions {
  /**
   * While the replica is down, the least time between two probes of it
   * (`SELECT 1`, in the background: reads never wait for a probe), in
   * milliseconds. Default 2000.
   */
  replicaProbeInterval?: number;
  /**
   * Called when the replica goes down (with the reason, as readyz reports
   * it) and when it is back (with `undefined`), once per change: for a log
   * line.
   */
  onReplicaChange?: (degraded: string | undefined) => void;
}

/**
 * A read's failure that says the replica cannot serve it, while the primary
 * may: a lost connection or one that could not open (`isLostConnection`), a
 * login it refuses (SQLSTATE class 28), no connection slot left (53300), or
 * the store's deadline passed.
 */
function isUnreachable(error: unknown): boolean {
  if (error instanceof PostgresTimeoutError || isLostConnection(error)) {
    return true;
  }
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^(28...|53300)$/.test(code);
}

/**
 * The replica's statement was cancelled by the replay of a change it
 * conflicts with (SQLSTATE 40001 on a hot standby): the same read on the
 * primary succeeds, and the replica itself is fine.
 */
function isRecoveryConflict(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "40001";
}

/**
 * Routes reads to a replica with the primary as fallback. Without a replica,
 * every read goes to the primary and nothing is ever degraded.
 *
 * @example Reading from a replica, falling back to the primary
 * ```ts ignore
 * import assert from "node:assert/strict";
 * import { connectPostgres } from "./connect.ts";
 * import { ReadRouting } from "./read_routing.ts";
 *
 * const primary = connectPostgres("postgres://postgres@10.0.0.1:5432/app");
 * const replica = connectPostgres("postgres://postgres@10.0.0.2:5432/app");
 * const reads = new ReadRouting(primary, replica);
 * const [row] = await reads.read((sql) => sql`SELECT pg_is_in_recovery() AS r`);
 * assert.equal(row!.r, reads.degraded === undefined); // true on the replica
 * ```
 */
export class ReadRouting {
  readonly #primary: Sql;
  readonly #replica: Sql | undefined;
  readonly #probeInterval: number;
  readonly #onChange: (degraded: string | undefined) => void;
  #degraded: string | undefined;
  #nextProbe = 0;
  #probing: Promise<void> | undefined;

  /**
   * Routes reads to `replica`, or to `primary` while it is down; sends no
   * query.
   *
   * @param primary The pool that writes go to, and reads when the replica
   *   cannot serve them.
   * @param replica The pool on the read replica; `undefined` for none.
   * @param options The probe interval and a change listener.
   */
  constructor(
    primary: Sql,
    replica: Sql | undefined,
    options: ReadRoutingOptions = {},
  ) {
    this.#primary = primary;
    this.#replica = replica;
    this.#probeInterval = options.replicaProbeInterval ?? 2000;
    this.#onChange = options.onReplicaChange ?? (() => {});
  }

  /**
   * Why reads go to the primary although a replica is configured (e.g.
   * `The read replica cannot be reached (ECONNREFUSED): reading from the
   * primary`), or `undefined` while the replica serves (or there is none).
   */
  get degraded(): string | undefined {
    return this.#degraded;
  }

  /**
   * Runs `read` on the replica; on the primary instead while the replica is
   * down, or when this read finds it unreachable (the replica is then marked
   * down) or cancelled by a recovery conflict. Any other failure is thrown.
   *
   * @param read Runs the read on the pool it is given.
   * @returns What `read` resolves to.
   */
  read<T>(read: (sql: Sql) => Promise<T>): Promise<T> {
    const replica = this.#replica;
    if (replica === undefined) return this.#onPrimary(read);
    if (this.#degraded !== undefined) {
      this.#probeWhenDue();
      return this.#onPrimary(read);
    }
    return this.#onReplica(read, replica);
  }

  /** `read` on the primary, a synchronous throw as a rejection. */
  #onPrimary<T>(read: (sql: Sql) => Promise<T>): Promise<T> {
    try {
      return read(this.#primary);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  async #onReplica<T>(
    read: (sql: Sql) => Promise<T>,
    replica: Sql,
  ): Promise<T> {
    try {
      return await read(replica);
    } catch (error) {
      if (isUnreachable(error)) this.#markDown(error);
      else if (!isRecoveryConflict(error)) throw error;
      return await read(this.#primary);
    }
  }

  /**
   * Asks the replica for `SELECT 1` (for readyz), waiting at most
   * `patience` ms: an answer marks it up, an unreachable replica down. A
   * probe still running after `patience` goes on, and settles the state when
   * it ends.
   *
   * @param patience The longest to wait for the probe, in milliseconds.
   * @returns {@linkcode ReadRouting.degraded} after the probe, or as it was
   *   when the probe took longer.
   */
  async check(patience: number): Promise<string | undefined> {
    if (this.#replica === undefined) return undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      this.#probe(),
      new Promise((resolve) => timer = setTimeout(resolve, patience)),
    ]);
    clearTimeout(timer);
    return this.#degraded;
  }

  #probeWhenDue(): void {
    if (Date.now() >= this.#nextProbe) void this.#probe();
  }

  /** One probe at a time; never rejects. */
  #probe(): Promise<void> {
    const replica = this.#replica!;
    this.#nextProbe = Date.now() + this.#probeInterval;
    this.#probing ??= withDeadline(replica`SELECT 1`, PROBE_DEADLINE_MS)
      .then(() => this.#markUp(), (error: unknown) => {
        if (isUnreachable(error)) this.#markDown(error);
      })
      .finally(() => this.#probing = undefined);
    return this.#probing;
  }

  #markDown(error: unknown): void {
    const reason = (error as { code?: unknown } | null)?.code ??
      (error as Error).message;
    const wasUp = this.#degraded === undefined;
    this.#degraded =
      `The read replica cannot be reached (${reason}): reading from the primary`;
    this.#nextProbe = Date.now() + this.#probeInterval;
    if (wasUp) this.#onChange(this.#degraded);
  }

  #markUp(): void {
    if (this.#degraded === undefined) return;
    this.#degraded = undefined;
    this.#onChange(undefined);
  }
}
