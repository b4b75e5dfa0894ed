/**
 * Imported first by every program entry (`npm start`, the `./server` entry,
 * the bin): on a runtime that cannot run the API (Node.js below 22, or any
 * runtime lacking what the handler needs), prints why and exits 1 before
 * anything else is loaded, instead of failing at the first bulk export.
 *
 * @module
 */
import process from "node:process";
// Not src/http/mod.ts: the bin and server/main.ts import this module before
// they turn Node's compile cache on, and the barrel loads the HTTP layer.
import {
  missingRuntimeFeatures,
  SUPPORTED_RUNTIMES,
} from "../../src/http/runtime_support.ts";

/** The oldest Node.js major version the API runs on. */
export const MINIMUM_NODE_MAJOR = 22;

/**
 * Why this runtime cannot run the API, or `undefined` when it can.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { unsupportedRuntimeReason } from "./require_supported_runtime.ts";
 *
 * assert.equal(unsupportedRuntimeReason(), undefined);
 * ```
 */
export function unsupportedRuntimeReason(): string | undefined {
  const isNode = !("Deno" in globalThis) && !("Bun" in globalThis);
  const nodeVersion = process.versions?.node;
  if (isNode && nodeVersion !== undefined) {
    const major = Number(nodeVersion.split(".")[0]);
    if (major < MINIMUM_NODE_MAJOR) {
      return `Cannot start @callflow/api: it needs Node.js ${MINIMUM_NODE_MAJOR} or later, this is Node.js v${nodeVersion}`;
    }
  }
  const missing = missingRuntimeFeatures();
  if (missing.length > 0) {
    return `Cannot start @callflow/api: this runtime lacks ${
      missing.join(", ")
    }; use ${SUPPORTED_RUNTIMES}`;
  }
  return undefined;
}

const reason = unsupportedRuntimeReason();
if (reason !== undefined) {
  console.error(reason);
  process.exit(1);
}
