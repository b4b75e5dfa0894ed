/**
 * What the handler needs from the runtime, checked once when it is created,
 * so an unsupported runtime is refused at start-up rather than failing at the
 * first request that needs the missing piece (Node 20 lacks `JSON.rawJSON`,
 * which a bulk export's validation uses).
 *
 * @module
 */

/** The runtimes known to provide everything, as named in refusals. */
export const SUPPORTED_RUNTIMES =
  "Node.js 22 or later, Deno 2 or later, Bun 1.4 or later, or an edge runtime with JSON.rawJSON (Cloudflare Workers, Vercel Edge)";

/**
 * The Web and ECMAScript features the handler uses that some runtimes still
 * lack, by name; empty when the runtime has them all.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { missingRuntimeFeatures } from "./runtime_support.ts";
 *
 * assert.deepEqual(missingRuntimeFeatures(), []);
 * ```
 */
export function missingRuntimeFeatures(): string[] {
  const json = JSON as unknown as Record<string, unknown>;
  const needed: [string, boolean][] = [
    ["JSON.rawJSON", typeof json.rawJSON === "function"],
    ["JSON.isRawJSON", typeof json.isRawJSON === "function"],
    ["crypto.subtle", typeof globalThis.crypto?.subtle?.digest === "function"],
    ["crypto.randomUUID", typeof globalThis.crypto?.randomUUID === "function"],
    ["ReadableStream", typeof globalThis.ReadableStream === "function"],
    ["Response", typeof globalThis.Response === "function"],
  ];
  return needed.filter(([, present]) => !present).map(([name]) => name);
}

/**
 * Throws when the runtime lacks something the handler needs, naming what is
 * missing and the runtimes that have it.
 *
 * @throws {Error} `Cannot run @callflow/api on this runtime: ...`.
 *
 * @example
 * ```ts
 * import { assertRuntimeSupport } from "./runtime_support.ts";
 *
 * assertRuntimeSupport(); // passes on Node 22+, Deno, Bun
 * ```
 */
export function assertRuntimeSupport(): void {
  const missing = missingRuntimeFeatures();
  if (missing.length === 0) return;
  throw new Error(
    `Cannot run @callflow/api on this runtime: it lacks ${
      missing.join(", ")
    }; use ${SUPPORTED_RUNTIMES}`,
  );
}
