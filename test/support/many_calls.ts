/**
 * A project with many calls, and the bulk export request that asks for them:
 * the shape of data the export tests and the export benchmark work on.
 *
 * @module
 */
import type { FixturesInput } from "../../src/store/fixtures.ts";

/** Options of {@linkcode manyCalls}. */
export interface ManyCallsOptions {
  /** Two hex digits that start every id, so that data sets do not collide. */
  prefix: string;
  /** How many calls. */
  calls: number;
  /** How many messages each call has. */
  messages: number;
  /** The `index`-th message of call number `call`. Default: a small object. */
  message?: (call: number, index: number) => Record<string, unknown>;
}

/** One project, its owner's token and its calls. */
export interface ManyCalls {
  project: string;
  token: string;
  /** The id of call number `n` (any `n`: ids past `calls` exist nowhere). */
  call(n: number): string;
  /** Every call's id, in order. */
  callIds: string[];
  /** Projects, tokens and calls, one minute apart from 2026-01-01. */
  fixtures: FixturesInput;
}

/**
 * Makes a project with `calls` calls of `messages` messages each.
 *
 * @example
 * ```ts
 * import { manyCalls } from "./many_calls.ts";
 *
 * const { fixtures, callIds } = manyCalls({ prefix: "ab", calls: 500, messages: 3 });
 * ```
 */
export function manyCalls(options: ManyCallsOptions): ManyCalls {
  const { prefix, calls, messages } = options;
  const message = options.message ?? ((call, index) => ({ index, of: call }));
  const project = `${prefix}000000-0000-4000-8000-000000000000`;
  const token = `${prefix}-owner`;
  const call = (n: number) =>
    `${prefix}000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
  const callIds = Array.from({ length: calls }, (_, i) => call(i));
  return {
    project,
    token,
    call,
    callIds,
    fixtures: {
      projects: [{ project_id: project, name: `Project ${prefix}` }],
      tokens: [{ token, project_id: project, role: "owner" }],
      calls: callIds.map((callId, i) => ({
        call_id: callId,
        project_id: project,
        created_at: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
        messages: Array.from({ length: messages }, (_, m) => message(i, m)),
      })),
    },
  };
}

/**
 * A `POST /v1/call/message/bulk` request for `callIds` with `token`.
 *
 * @example
 * ```ts
 * import { bulkExportRequest } from "./many_calls.ts";
 *
 * const request = bulkExportRequest("secret", ["5d1f8a8e-2b7c-4f3e-8f00-6a7d5c4b3a21"]);
 * ```
 */
export function bulkExportRequest(
  token: string,
  callIds: readonly string[],
): Request {
  return new Request("http://api.test/v1/call/message/bulk", {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
    },
    body: JSON.stringify({ call_ids: callIds }),
  });
}

/**
 * Text that deflates poorly (base-36 digits of a linear congruential
 * sequence), so that an export of it outgrows the sockets' buffers.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { noise } from "./many_calls.ts";
 *
 * assert.equal(noise(1, 100).length, 100);
 * assert.equal(noise(1, 100), noise(1, 100));
 * ```
 */
export function noise(seed: number, length: number): string {
  let state = seed;
  let text = "";
  while (text.length < length) {
    state = (state * 1103515245 + 12345) % 2147483648;
    text += state.toString(36);
  }
  return text.slice(0, length);
}

/**
 * Messages of `length` characters of {@linkcode noise}, each its own: for
 * `manyCalls`'s `message` option, when archives must be large.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { noisyMessages } from "./many_calls.ts";
 *
 * const message = noisyMessages(6, 4000);
 * assert.equal(message(2, 1).of, 2);
 * assert.notEqual(message(2, 1).text, message(2, 0).text);
 * ```
 */
export function noisyMessages(
  messages: number,
  length: number,
): (
  call: number,
  index: number,
) => { index: number; of: number; text: string } {
  return (call, index) => ({
    index,
    of: call,
    text: noise(call * messages + index + 1, length),
  });
}
