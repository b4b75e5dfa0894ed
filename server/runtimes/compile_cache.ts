/**
 * Node's module compile cache, turned on by the program entries (`npm
 * start`, the bin) before they load the server: a later start of the same
 * files reads their stripped TypeScript and V8's compiled code from disk
 * instead of stripping and compiling them again (Node 22.1 and later; the
 * stripped TypeScript since Node 23.10 and 22.15). The cache is Node's
 * default, `<os.tmpdir()>/node-compile-cache`, or `NODE_COMPILE_CACHE`
 * when set; `NODE_DISABLE_COMPILE_CACHE=1` turns it off. Deno and Bun keep
 * their own caches: there this does nothing. Node writes the cache when the
 * process exits; the servers also write it a second after they listen
 * ({@link flushCompileCacheSoon}), so that one killed later leaves it too.
 *
 * @module
 */
import module from "node:module";

/**
 * Turns on Node's compile cache for the modules loaded from now on; never
 * throws (a cache that cannot be written is only slower).
 *
 * @returns The cache directory, or `undefined` when it is not on (another
 * runtime, an old Node, `NODE_DISABLE_COMPILE_CACHE`, a directory that
 * cannot be written).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { enableCompileCache } from "./compile_cache.ts";
 *
 * const directory = enableCompileCache();
 * assert.ok(directory === undefined || directory.length > 0);
 * ```
 */
export function enableCompileCache(): string | undefined {
  if ("Deno" in globalThis || "Bun" in globalThis) return undefined;
  try {
    return module.enableCompileCache?.()?.directory;
  } catch {
    return undefined;
  }
}

/**
 * Writes Node's compile cache a moment from now, once the start's modules
 * are compiled. Node writes it only when the process exits, so a server
 * killed (SIGKILL, a crash, a stop that timed out) would leave no cache and
 * its next start would strip and compile everything again. The timer does
 * not keep the process alive; a failed write is only a slower next start.
 *
 * @param delayMs When to write. Default 1000 ms: after a start's first
 * answer, not within it.
 * @returns Whether a write was scheduled: on Node with the cache on.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { enableCompileCache, flushCompileCacheSoon } from "./compile_cache.ts";
 *
 * // Scheduled exactly when the cache is on: on Node, never on Deno or Bun.
 * const directory = enableCompileCache();
 * assert.equal(flushCompileCacheSoon(0), directory !== undefined);
 * ```
 */
export function flushCompileCacheSoon(delayMs = 1000): boolean {
  if ("Deno" in globalThis || "Bun" in globalThis) return false;
  if (module.getCompileCacheDir?.() === undefined) return false;
  const timer = setTimeout(() => {
    try {
      module.flushCompileCache?.();
    } catch {
      // Not written: the next start compiles again.
    }
  }, delayMs);
  timer.unref?.();
  return true;
}
