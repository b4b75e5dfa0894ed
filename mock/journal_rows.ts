/**
 * The journal as the live page's table shows it (`GET /__mock/rows`): the
 * few fields of each request a row holds, without its headers or bodies,
 * so that the page, polling while it is open, costs the mock little per
 * request; a click fetches that one request as HAR.
 *
 * @module
 */
import type { RequestJournal } from "./journal.ts";

/** One request as a row of the live page's table. */
export interface JournalRow {
  /** The request's number in the journal (a HAR entry's `_seq`). */
  seq: number;
  /** When it arrived (ISO 8601, UTC). */
  time: string;
  /** Its method. */
  method: string;
  /** Its path and query string, still percent-encoded. */
  target: string;
  /** The status answered; `null` when the connection was dropped. */
  status: number | null;
  /** The answer's `error_code`, if any. */
  error_code: string | null;
  /** Milliseconds until the answer's status and headers were ready. */
  duration_ms: number;
  /** The API's operationId, if any. */
  operation: string | null;
  /** The fault rule applied, `prefer`, or `null`. */
  fault: string | null;
  /** The token's role, when a token was accepted. */
  role: string | null;
  /** The token's project, when a token was accepted. */
  project_id: string | null;
}

/** The rows after a number, with the journal's counters. */
export interface JournalRows {
  /** The number of the newest request so far (0: none yet). */
  seq: number;
  /** How many times the journal was cleared (a reader starts over). */
  clears: number;
  /** The rows, oldest first. */
  rows: JournalRow[];
}

/**
 * The journal's requests numbered above `after`, as rows.
 *
 * @param journal The journal.
 * @param after Only the requests numbered above this.
 * @returns The rows and the counters.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMockState } from "./mock_state.ts";
 *
 * const state = createMockState();
 * await state.handler(new Request("http://mock/healthz?x=1"));
 * const { seq, rows } = state.rows();
 * assert.equal(seq, 1);
 * assert.equal(rows[0]!.target, "/healthz?x=1");
 * ```
 */
export function journalRows(
  journal: RequestJournal,
  after = 0,
): JournalRows {
  return {
    seq: journal.seq,
    clears: journal.clears,
    rows: journal.records(after).map((record) => ({
      seq: record.seq,
      time: record.time,
      method: record.method,
      target: record.query === ""
        ? record.path
        : `${record.path}?${record.query}`,
      status: record.status,
      error_code: record.error_code,
      duration_ms: record.duration_ms,
      operation: record.operation,
      fault: record.fault,
      role: record.grant?.role ?? null,
      project_id: record.grant?.projectId ?? null,
    })),
  };
}
