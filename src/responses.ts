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
 * import { json } from "./responses.ts";
 *
 * json({ events: [] }).headers.get("content-type"); // "application/json"
 * json({}, 200, { "x-request-id": "r1" }).headers.get("x-request-id"); // "r1"
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
 * import { jsonText } from "./responses.ts";
 *
 * jsonText("[]").status; // 200
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
