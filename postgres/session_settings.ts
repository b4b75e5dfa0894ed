/**
 * The server-side timeouts of the store's transactions, set with `SET LOCAL`
 * inside each one rather than as startup parameters: a transaction pooler
 * (PgBouncer, Supavisor) refuses unknown startup parameters, and a session
 * `SET` would stay on a pooled server connection for its next client.
 *
 * @module
 */
import type { TransactionSql } from "postgres";

/** The server-side timeouts of a transaction (migrating, seeding). */
export interface SessionSettings {
  /**
   * Milliseconds one statement of a transaction may run before the server
   * cancels it (`statement_timeout`); `0` leaves the role's or the server's
   * setting. Default 30000.
   */
  statementTimeout?: number;
  /**
   * Milliseconds a transaction may sit idle (its client gone mid-seed or
   * mid-migration) before the server ends the session and frees its locks
   * (`idle_in_transaction_session_timeout`); `0` leaves the role's or the
   * server's setting. Default 60000.
   */
  idleInTransactionTimeout?: number;
}

/**
 * Sets the timeouts for the rest of the transaction `tx` (as `SET LOCAL`
 * does), in one statement; a setting of `0` is left as it is. They end with
 * the transaction, so nothing stays on a pooled connection.
 *
 * @param tx The transaction, as `sql.begin` hands it.
 * @param settings The timeouts; defaults 30 s and 60 s.
 *
 * @example
 * ```ts ignore
 * import assert from "node:assert/strict";
 * import postgres from "postgres";
 * import { applySessionSettings } from "./session_settings.ts";
 *
 * const sql = postgres("postgres://postgres@127.0.0.1:5432/postgres");
 * await sql.begin(async (tx) => {
 *   await applySessionSettings(tx, { statementTimeout: 5000 });
 *   const [row] = await tx`SHOW statement_timeout`;
 *   assert.equal(row!.statement_timeout, "5s");
 * });
 * await sql.end();
 * ```
 */
export async function applySessionSettings(
  tx: TransactionSql,
  settings: SessionSettings = {},
): Promise<void> {
  const values = [
    ["statement_timeout", settings.statementTimeout ?? 30_000],
    [
      "idle_in_transaction_session_timeout",
      settings.idleInTransactionTimeout ?? 60_000,
    ],
  ].filter(([, ms]) => (ms as number) > 0);
  if (values.length === 0) return;
  const names = values.map(([name]) => String(name));
  const settingsMs = values.map(([, ms]) => `${ms}ms`);
  await tx`
    SELECT set_config(name, value, true)
    FROM unnest(${names}::text[], ${settingsMs}::text[]) AS s(name, value)`;
}
