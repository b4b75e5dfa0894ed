/**
 * Grants read from the database, kept for a short while so that a request
 * whose token was seen a moment ago costs one round trip (its operation's
 * statement), not two.
 *
 * @module
 */
import type { Grant } from "../src/store/mod.ts";

/** One digest's grant, or the read that will tell it. */
type Entry =
  | { grant: Grant; expires: number }
  | { pending: Promise<Grant | undefined> };

/**
 * A bounded map from a token's digest to its grant, each kept for `ttl`
 * milliseconds counted from when its read was sent: a token revoked (or its
 * role changed) in the database stops working on every instance at most
 * `ttl` after the change commits. Only grants are kept, never "no such
 * token" (a new token works at once) and never a failure (a store that
 * cannot answer fails every request that misses the cache). Concurrent
 * misses of one digest share one read.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { GrantCache } from "./grant_cache.ts";
 *
 * const cache = new GrantCache({ ttl: 1000 });
 * let reads = 0;
 * const read = () => {
 *   reads += 1;
 *   return Promise.resolve({ projectId: "p", role: "viewer" as const });
 * };
 * await cache.get("digest", read);
 * assert.deepEqual(await cache.get("digest", read), {
 *   projectId: "p",
 *   role: "viewer",
 * });
 * assert.equal(reads, 1);
 * ```
 */
export class GrantCache {
  readonly #ttl: number;
  readonly #capacity: number;
  readonly #entries = new Map<string, Entry>();

  /**
   * @param options `ttl`: how long a grant is kept, in milliseconds (0 keeps
   *   none); `capacity`: how many digests at most (default 10000), the
   *   oldest dropped first.
   */
  constructor(options: { ttl: number; capacity?: number }) {
    this.#ttl = options.ttl;
    this.#capacity = options.capacity ?? 10_000;
  }

  /**
   * The grant of `digest`: the one kept, while it is fresh, else what `read`
   * resolves to (kept when it is a grant).
   *
   * @param digest The token's SHA-256 hex digest.
   * @param read Reads the grant from the database.
   * @returns The grant, or `undefined` for a token the database does not
   *   hold.
   * @throws what `read` throws.
   */
  get(
    digest: string,
    read: () => Promise<Grant | undefined>,
  ): Promise<Grant | undefined> {
    if (this.#ttl <= 0) return read();
    const entry = this.#entries.get(digest);
    if (entry !== undefined) {
      if ("pending" in entry) return entry.pending;
      if (performance.now() < entry.expires) {
        return Promise.resolve(entry.grant);
      }
    }
    const sent = performance.now();
    const pending = read().then(
      (grant) => {
        this.#settle(
          digest,
          pending,
          grant && { grant, expires: sent + this.#ttl },
        );
        return grant;
      },
      (error: unknown) => {
        this.#settle(digest, pending, undefined);
        throw error;
      },
    );
    this.#set(digest, { pending });
    return pending;
  }

  /** Forgets every grant (after a seed, which may revoke tokens). */
  clear(): void {
    this.#entries.clear();
  }

  /** Replaces the pending read of `digest` by its outcome, if still there. */
  #settle(
    digest: string,
    pending: Promise<Grant | undefined>,
    kept: Entry | undefined,
  ): void {
    const entry = this.#entries.get(digest);
    if (
      entry === undefined || !("pending" in entry) || entry.pending !== pending
    ) {
      return;
    }
    if (kept === undefined) this.#entries.delete(digest);
    else this.#set(digest, kept);
  }

  #set(digest: string, entry: Entry): void {
    this.#entries.delete(digest);
    this.#entries.set(digest, entry);
    if (this.#entries.size > this.#capacity) {
      this.#entries.delete(this.#entries.keys().next().value!);
    }
  }
}
