/**
 * A package's default export, as ES module packages are imported here.
 *
 * @module
 */

/**
 * `imported`, the default export of a package, or, where a bundle handed
 * over the package's module namespace in its place, that namespace's
 * `default`. Bun's CommonJS bundles (the bin's and the start build's for
 * Bun, CommonJS for their bytecode) turn `import x from "pkg"` of an ES
 * module package into `require("pkg")`, whose namespace then stands where
 * the default export should: `x.default` is postgres.js's `postgres`, or
 * p-limit's `pLimit`.
 *
 * @param imported What `import x from "pkg"` gave.
 * @returns The default export itself.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { defaultExport } from "./default_export.ts";
 *
 * const pLimit = () => "limit";
 * assert.equal(defaultExport(pLimit), pLimit);
 *
 * // What Bun's CommonJS bundle hands over: the namespace, tagged "Module".
 * const namespace = Object.freeze(Object.assign(Object.create(null), {
 *   default: pLimit,
 *   [Symbol.toStringTag]: "Module",
 * }));
 * assert.equal(defaultExport(namespace as typeof pLimit), pLimit);
 * ```
 */
export function defaultExport<T>(imported: T): T {
  if (typeof imported !== "object" || imported === null) return imported;
  const namespace = imported as { default?: T; [Symbol.toStringTag]?: unknown };
  return namespace[Symbol.toStringTag] === "Module" &&
      namespace.default !== undefined
    ? namespace.default
    : imported;
}
