/**
 * The storage contract: the only way the handler touches data.
 *
 * Every method is scoped to a project, so another project's resources behave
 * exactly as if they did not exist. Messages travel as JSON text (one string
 * per message) so that a store can hand them from its storage to the response
 * without parsing them again, and transcripts are read as a stream of chunks so
 * that a bulk export never holds every message of every call at once.
 *
 * @module
 */

/** A role a token is granted within its project. */
export type Role = "owner" | "admin" | "member" | "viewer" | "billing";

/** Every role, in decreasing order of power. */
export const ROLES: readonly Role[] = [
  "owner",
  "admin",
  "member",
  "viewer",
  "billing",
];

/** What a bearer token grants: one project, one role. */
export interface Grant {
  /** The project the token belongs to (lowercase hyphenated UUID). */
  projectId: string;
  /** The token's role within that project. */
  role: Role;
}

/** A workflow trigger, as stored. `EMPTY` means not configured. */
export type Trigger =
  | { type: "EMPTY" }
  | { type: "webhook"; sample_payload: Record<string, unknown> }
  | { type: "call_ended" }
  | { type: "schedule"; cron: string; timezone: string };

/** A workflow as the trigger test needs it. */
export interface Flow {
  /** The workflow's id (lowercase hyphenated UUID). */
  flowId: string;
  /** The project the workflow belongs to (lowercase hyphenated UUID). */
  projectId: string;
  /** The workflow's name. */
  name: string;
  /** What starts the workflow. */
  trigger: Trigger;
}

/** A call as the `call_ended` trigger reports it. */
export interface CallSummary {
  /** The call's id (lowercase hyphenated UUID). */
  callId: string;
  /** ISO 8601 timestamp in UTC, e.g. `2026-01-02T03:04:05.000Z`. */
  createdAt: string;
  /** How many messages the call's transcript holds. */
  messageCount: number;
}

/**
 * A consecutive run of one call's messages, in order. A store may split one
 * call's transcript over several chunks in a row; chunks of one call are never
 * interleaved with another call's.
 */
export interface TranscriptChunk {
  /** The call the messages belong to (lowercase hyphenated UUID). */
  callId: string;
  /** Each message serialised as JSON text, in transcript order. Never empty. */
  messages: string[];
}

/**
 * What {@linkcode Store.ping} resolves with when the store serves, degraded:
 * `GET /readyz` then answers 200 `{"status": "degraded", "detail": degraded}`.
 */
export interface StoreDegraded {
  /** What is degraded, e.g. `The read replica cannot be reached (…)`. */
  degraded: string;
}

/**
 * Storage for the API. Implemented by `MemoryStore` and `PostgresStore`.
 *
 * @example Reading a transcript
 * ```ts
 * import assert from "node:assert/strict";
 * import { MemoryStore } from "./memory_store.ts";
 * import type { Store } from "./store.ts";
 *
 * const store: Store = new MemoryStore();
 * const messages = await store.callMessages(
 *   "0b6f1c2e-8d3a-4c55-9a57-3e3c2d1f0a11",
 *   "5d1f8a8e-2b7c-4f3e-8f00-6a7d5c4b3a21",
 * );
 * assert.equal(messages, undefined); // no such call
 * ```
 */
export interface Store {
  /** The grant behind a token, looked up by the token's SHA-256 hex digest. */
  findGrant(tokenHash: string): Promise<Grant | undefined>;

  /**
   * One call's messages as JSON texts (`[]` for a call without messages), or
   * `undefined` when the call does not exist in the project.
   */
  callMessages(
    projectId: string,
    callId: string,
  ): Promise<string[] | undefined>;

  /**
   * Streams the transcripts of the given calls of the project: calls follow the
   * order of `callIds`, unknown calls and calls without messages yield nothing.
   * `callIds` holds no duplicates. Breaking out of the loop releases whatever
   * the store holds for the stream.
   */
  transcripts(
    projectId: string,
    callIds: readonly string[],
  ): AsyncIterable<TranscriptChunk>;

  /**
   * Deletes an integration for good with its HTTP tools and its MCP tool
   * cache, all or nothing. Resolves `false` when the project has no such
   * integration (including when a concurrent delete won).
   */
  deleteIntegration(projectId: string, integrationId: string): Promise<boolean>;

  /** A workflow of the project, or `undefined`. */
  findFlow(projectId: string, flowId: string): Promise<Flow | undefined>;

  /** The project's most recent calls, newest first, at most `limit`. */
  recentCalls(projectId: string, limit: number): Promise<CallSummary[]>;

  /**
   * Resolves once the store answers a trivial query (for `GET /readyz`);
   * rejects when it cannot be reached. A store that serves, but not as
   * configured (e.g. reading from the primary while its read replica is
   * down), resolves with a note saying so.
   */
  ping(): Promise<void | StoreDegraded>;
}
