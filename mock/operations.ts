/**
 * The API's operations as its OpenAPI document declares them: which
 * `operationId` a request is for, and which statuses that operation defines
 * (from mock/operation_table.ts, generated from the document).
 *
 * @module
 */
import { OPERATION_TABLE } from "./operation_table.ts";

/** An operation of the API's OpenAPI document. */
export interface OperationInfo {
  /** The OpenAPI `operationId`, e.g. `listCallMessages`. */
  operationId: string;
  /** The HTTP method, upper case. */
  method: string;
  /** The path template, e.g. `/v1/call/{call_id}/message`. */
  path: string;
  /** Each status the operation defines, with its response's description. */
  responses: ReadonlyMap<number, string>;
}

// From the table generated from the document (build/operation_table.ts), so
// that a mock does not build the document at start.
const OPERATIONS: readonly OperationInfo[] = OPERATION_TABLE.map((
  [operationId, method, path, responses],
) => ({ operationId, method, path, responses: new Map(responses) }));

/** Every `operationId` of the API, in the document's order. */
export const OPERATION_IDS: readonly string[] = OPERATIONS.map((operation) =>
  operation.operationId
);

/**
 * The operation a request is for, by method and path, or `undefined` for
 * anything else (unknown path, wrong method, `/openapi.json`).
 *
 * @param method The request's method.
 * @param pathname The request's path.
 * @returns The operation, or `undefined`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { findOperation } from "./operations.ts";
 *
 * const operation = findOperation("GET", "/v1/call/42/message");
 * assert.equal(operation?.operationId, "listCallMessages");
 * assert.equal(findOperation("PUT", "/v1/call/42/message"), undefined);
 * ```
 */
export function findOperation(
  method: string,
  pathname: string,
): OperationInfo | undefined {
  const actual = pathname.split("/");
  return OPERATIONS.find((operation, i) =>
    operation.method === method && matchSegments(PATTERNS[i]!, actual)
  );
}

/** Each operation's path, split into segments once. */
const PATTERNS = OPERATIONS.map((operation) => operation.path.split("/"));

/**
 * Whether a path matches a pattern whose `{name}` and `*` segments match any
 * one non-empty segment and whose final `**` matches the rest of the path.
 *
 * @param pattern e.g. `/v1/call/{call_id}/message` or `/v1/**`.
 * @param pathname The request's path.
 * @returns Whether it matches.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { matchPath } from "./operations.ts";
 *
 * assert.ok(matchPath("/v1/workflow/*\/trigger/test", "/v1/workflow/7/trigger/test"));
 * assert.ok(matchPath("/v1/**", "/v1/integration/7"));
 * assert.ok(!matchPath("/v1/call/{id}/message", "/v1/call//message"));
 * ```
 */
export function matchPath(pattern: string, pathname: string): boolean {
  return matchSegments(pattern.split("/"), pathname.split("/"));
}

function matchSegments(expected: string[], actual: string[]): boolean {
  for (let i = 0; i < expected.length; i += 1) {
    const segment = expected[i]!;
    if (segment === "**" && i === expected.length - 1) return true;
    const value = actual[i];
    if (value === undefined) return false;
    const wildcard = segment === "*" ||
      (segment.startsWith("{") && segment.endsWith("}"));
    if (wildcard ? value === "" : segment !== value) return false;
  }
  return actual.length === expected.length;
}
