/**
 * The JSON responses the operations answer with.
 *
 * @module
 */
/**
 * A JSON response.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { json } from "./responses.ts";
 *
 * const response = json({ events: [] }, 200, { "x-request-id": "r1" });
 * assert.equal(response.headers.get("content-type"), "application/json");
 * assert.equal(response.headers.get("x-request-id"), "r1");
 * assert.equal(await response.text(), '{"events":[]}');
 * ```
 */
export function json(
  body: unknown,
  status = 200,
  headers?: Readonly<Record<string, string>>,
): Response {
  return jsonText(JSON.stringify(body), status, headers);
}

/**
 * A response whose body is JSON text already serialised.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { jsonText } from "./responses.ts";
 *
 * const response = jsonText("[]", 201);
 * assert.equal(response.status, 201);
 * assert.equal(response.headers.get("content-type"), "application/json");
 * assert.deepEqual(await response.json(), []);
 * ```
 */
export function jsonText(
  text: string,
  status = 200,
  headers?: Readonly<Record<string, string>>,
): Response {
  return new Response(text, {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}
