/**
 * Bounding failed authentication per client address: past a number of
 * unknown tokens in a window, the address is answered 429 until the window
 * ends, without asking the store (no database query while it is limited).
 * Tokens are guessed one request at a time; this makes a guess cost time,
 * per address. Addresses are counted in a fixed window each, in memory, in
 * one process: a gateway in front sees every instance (see
 * docs/operating.md, "Security").
 *
 * @module
 */
import { HttpError } from "../http/mod.ts";

/** How many failures an address may have in a window: 20. */
export const DEFAULT_AUTH_FAILURE_LIMIT = 20;

/** The window failures are counted in: 60 s. */
export const DEFAULT_AUTH_FAILURE_WINDOW_MS = 60_000;

/** How many addresses are remembered at once, at most. */
const MAX_CLIENTS = 10_000;

/** Options of {@linkcode FailedAuthLimiter}. */
export interface FailedAuthOptions {
  /**
   * How many unknown tokens an address may send in a window; the next
   * request of a route that needs a token is answered 429 until the window
   * ends. Default {@linkcode DEFAULT_AUTH_FAILURE_LIMIT}.
   */
  limit?: number;
  /**
   * The window, in ms, from an address's first failure. Default
   * {@linkcode DEFAULT_AUTH_FAILURE_WINDOW_MS}.
   */
  windowMs?: number;
  /** The clock, in ms. Default `performance.now()`. */
  now?: () => number;
}

/** One address's failures in its current window. */
interface Window {
  start: number;
  failures: number;
}

/**
 * The failures of each client address, in a fixed window from its first
 * failure. At most 10,000 addresses are remembered: past that, expired
 * windows go first, then the oldest. IPv6 addresses count per /64, the
 * block one subscriber usually holds.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FailedAuthLimiter } from "./failed_auth.ts";
 *
 * let time = 0;
 * const limiter = new FailedAuthLimiter({ limit: 2, windowMs: 1000, now: () => time });
 * assert.equal(limiter.empty, true);
 * limiter.fail("192.0.2.1");
 * limiter.fail("192.0.2.1");
 * assert.equal(limiter.empty, false);
 * assert.throws(() => limiter.check("192.0.2.1"), { status: 429 });
 * limiter.check("192.0.2.2"); // another address: unaffected
 * time = 1000;
 * limiter.check("192.0.2.1"); // the window is over
 * assert.equal(limiter.empty, true); // and so is every other
 * ```
 */
export class FailedAuthLimiter {
  readonly #limit: number;
  readonly #windowMs: number;
  readonly #now: () => number;
  readonly #windows = new Map<string, Window>();
  /** When the newest window started: all are over a window after it. */
  #lastStart = 0;

  /**
   * Creates the limiter.
   *
   * @param options The limit, the window and the clock.
   */
  constructor(options: FailedAuthOptions = {}) {
    this.#limit = options.limit ?? DEFAULT_AUTH_FAILURE_LIMIT;
    this.#windowMs = options.windowMs ?? DEFAULT_AUTH_FAILURE_WINDOW_MS;
    this.#now = options.now ?? (() => performance.now());
    if (!Number.isInteger(this.#limit) || this.#limit < 1) {
      throw new RangeError(
        `Cannot limit failed authentication: limit must be an integer from 1, got ${this.#limit}`,
      );
    }
  }

  /**
   * Whether no address has a failure in a window still open (the windows
   * are all forgotten once the newest is over):
   * {@linkcode FailedAuthLimiter.check} then refuses no address, so a
   * caller may skip finding the client's address until a token fails.
   */
  get empty(): boolean {
    if (this.#windows.size === 0) return true;
    if (this.#now() - this.#lastStart < this.#windowMs) return false;
    this.#windows.clear();
    return true;
  }

  /**
   * Refuses an address that has used up its failures in its window.
   *
   * @param address The client's address.
   * @throws {HttpError} 429 `TOO_MANY_FAILED_AUTHENTICATIONS` with
   * `Retry-After` (whole seconds to the window's end).
   */
  check(address: string): void {
    const window = this.#current(clientKey(address));
    if (window === undefined || window.failures < this.#limit) return;
    const seconds = Math.max(
      1,
      Math.ceil((window.start + this.#windowMs - this.#now()) / 1000),
    );
    throw new HttpError(
      429,
      "TOO_MANY_FAILED_AUTHENTICATIONS",
      `Too many requests with an unknown token from this address; retry in ${seconds} s`,
      { headers: { "retry-after": String(seconds) } },
    );
  }

  /**
   * Counts a failure (an unknown token) of an address.
   *
   * @param address The client's address.
   */
  fail(address: string): void {
    const key = clientKey(address);
    const window = this.#current(key);
    if (window !== undefined) {
      window.failures += 1;
      return;
    }
    if (this.#windows.size >= MAX_CLIENTS) this.#evict();
    this.#lastStart = this.#now();
    this.#windows.set(key, { start: this.#lastStart, failures: 1 });
  }

  /** The address's window, unless it is over (then it is forgotten). */
  #current(key: string): Window | undefined {
    const window = this.#windows.get(key);
    if (window === undefined) return undefined;
    if (this.#now() - window.start < this.#windowMs) return window;
    this.#windows.delete(key);
    return undefined;
  }

  /** Makes room: expired windows first, else the oldest one. */
  #evict(): void {
    const now = this.#now();
    for (const [key, window] of this.#windows) {
      if (now - window.start >= this.#windowMs) this.#windows.delete(key);
    }
    if (this.#windows.size >= MAX_CLIENTS) {
      this.#windows.delete(this.#windows.keys().next().value!);
    }
  }
}

/**
 * The key an address is counted under: itself for IPv4 (an IPv4-mapped IPv6
 * address as its IPv4 one), its /64 for IPv6.
 *
 * @param address An IPv4 or IPv6 address (or any other client name).
 * @returns The key.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { clientKey } from "./failed_auth.ts";
 *
 * assert.equal(clientKey("192.0.2.1"), "192.0.2.1");
 * assert.equal(clientKey("::ffff:192.0.2.1"), "192.0.2.1");
 * assert.equal(clientKey("2001:db8:1:2:a::1"), "2001:db8:1:2::/64");
 * assert.equal(clientKey("2001:db8::1"), "2001:db8:0:0::/64");
 * ```
 */
export function clientKey(address: string): string {
  const lower = address.toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (mapped !== null) return mapped[1]!;
  if (!lower.includes(":")) return lower;
  const [head = "", tail] = lower.split("::");
  const left = head === "" ? [] : head.split(":");
  const right = tail === undefined || tail === "" ? [] : tail.split(":");
  const groups = tail === undefined
    ? left
    : [...left, ...Array(8 - left.length - right.length).fill("0"), ...right];
  return `${
    groups.slice(0, 4).map((group) => group.replace(/^0+(?=.)/, "")).join(":")
  }::/64`;
}
