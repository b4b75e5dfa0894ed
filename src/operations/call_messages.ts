/**
 * `GET /v1/call/{call_id}/message`: one call's message list.
 *
 * @module
 */
import { authorize } from "../auth/mod.ts";
import { HttpError } from "../http/mod.ts";
import { parsePathUuid } from "../validation/mod.ts";
import type { Store } from "../store/mod.ts";
import type { GrantedContext, Operation } from "../http/mod.ts";

/**
 * The operation that answers with the call's messages as a JSON array (`[]`
 * when it has none), or 404 `CALL_NOT_FOUND`.
 *
 * @param store Where the calls are.
 * @returns The operation.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Context } from "../http/context.ts";
 * import { callMessages } from "./call_messages.ts";
 * import type { GrantedContext } from "../http/context.ts";
 * import { MemoryStore } from "../store/memory_store.ts";
 *
 * const callId = "5d1f8a8e-2b7c-4f3e-8f00-6a7d5c4b3a21";
 * const context = new Context(new Request(`http://x/v1/call/${callId}/message`));
 * context.route = { pattern: "/v1/call/{call_id}/message", params: { call_id: callId } };
 * context.grant = { projectId: "p", role: "viewer" };
 * await assert.rejects(
 *   callMessages(new MemoryStore())(context as GrantedContext),
 *   { status: 404, errorCode: "CALL_NOT_FOUND" },
 * );
 * ```
 */
export function callMessages(store: Store): Operation<GrantedContext> {
  return async (context) => {
    const { params, grant } = context;
    const callId = parsePathUuid("call_id", params.call_id!);
    authorize(grant, "transcripts:read");

    const messages = await store.callMessages(grant.projectId, callId);
    if (messages === undefined) {
      throw new HttpError(404, "CALL_NOT_FOUND", `Call ${callId} not found`);
    }
    return context.jsonText(`[${messages.join(",")}]`);
  };
}
