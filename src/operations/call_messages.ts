/**
 * `GET /v1/call/{call_id}/message`: one call's message list.
 *
 * @module
 */
import { authenticate, authorize } from "../auth.ts";
import { HttpError } from "../http_error.ts";
import { parsePathUuid } from "../validation/mod.ts";
import { jsonText } from "../responses.ts";
import type { OperationContext } from "./context.ts";

/**
 * Answers with the call's messages as a JSON array (`[]` when it has none),
 * or 404 `CALL_NOT_FOUND`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { callMessages } from "./call_messages.ts";
 * import { MemoryStore } from "../store/memory_store.ts";
 *
 * await assert.rejects(
 *   callMessages({
 *     request: new Request("http://x/v1/call/abc/message"),
 *     params: { call_id: "abc" },
 *     store: new MemoryStore(),
 *     now: () => new Date(),
 *     reportError: console.error,
 *   }),
 *   (error: { status: number }) => error.status === 401, // no token
 * );
 * ```
 */
export async function callMessages(
  { request, params, store, headers }: OperationContext,
): Promise<Response> {
  const grant = await authenticate(request, store);
  const callId = parsePathUuid("call_id", params.call_id!);
  authorize(grant, "transcripts:read");

  const messages = await store.callMessages(grant.projectId, callId);
  if (messages === undefined) {
    return HttpError.respond(
      404,
      "CALL_NOT_FOUND",
      `Call ${callId} not found`,
      headers,
    );
  }
  return jsonText(`[${messages.join(",")}]`, 200, headers);
}
