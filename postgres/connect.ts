/**
 * Opening a postgres.js pool with the bounds a request-serving process needs:
 * nothing waits for the database longer than a few seconds, and a pool whose
 * server went away heals by itself once it is back.
 *
 * @module
 */
import postgresExport from "postgres";
import type { Sql } from "postgres";
import { defaultExport } from "./default_export.ts";
import type { SocketFactory } from "./silent_peer.ts";

/** postgres.js's `postgres`, also from a Bun bundle (see default_export.ts). */
const postgres = defaultExport(postgresExport);

/**
 * A Postgres array literal of `values`, each element quoted: what the array
 * parameters of our statements (ids, names, ISO timestamps) are sent as.
 */
function arrayLiteral(values: readonly unknown[]): string {
  const elements = values.map((value) =>
    value === null || value === undefined
      ? "NULL"
      : `"${String(value).replace(/["\\]/g, "\\$&")}"`
  );
  return `{${elements.join(",")}}`;
}

/**
 * The array types our statements bind, by OID: uuid[], text[], int4[],
 * timestamptz[]. A statement binding another array type must add it here.
 */
const ARRAY_TYPES = Object.fromEntries(
  [
    ["uuid_array", 2951],
    ["text_array", 1009],
    ["int4_array", 1007],
    ["timestamptz_array", 1185],
  ].map(
    ([name, oid]) => [name, {
      to: oid as number,
      from: [] as number[],
      serialize: arrayLiteral,
      parse: (text: string) => text,
    }],
  ),
);

/** Options of {@linkcode connectPostgres}. */
export interface ConnectPostgresOptions {
  /** How many connections the pool may open. Default 10. */
  max?: number;
  /** Seconds to wait for a connection to open before failing. Default 5. */
  connectTimeout?: number;
  /** Seconds a connection may sit unused before it is closed. Default 30. */
  idleTimeout?: number;
  /** Called with each statement as it is sent: for logging or counting. */
  onQuery?: (query: string, parameters: readonly unknown[]) => void;
  /**
   * Opens the pool's sockets (postgres.js's `socket` option), e.g.
   * `watchedSockets(3000)` to replace connections whose server fell silent.
   * Default: postgres.js's own.
   */
  socket?: SocketFactory | undefined;
}

/**
 * Creates a postgres.js pool for `url` (connections open lazily, on the first
 * query). Settings given in the URL's query string (`?connect_timeout=10`,
 * `?sslmode=require`, `?prepare=false`, ...) win over these options'
 * defaults; any other query parameter (`?statement_timeout=5000`) is sent as a
 * startup parameter, which a direct connection takes and PgBouncer refuses.
 * Only `application_name` is sent by default, so the pool works through
 * PgBouncer in transaction mode (`?prepare=false`) as it comes.
 *
 * @param url A `postgres://user:password@host:port/database` URL.
 * @param options Pool size, timeouts and a query hook.
 * @returns The pool; end it with `sql.end()`.
 *
 * @example
 * ```ts ignore
 * import assert from "node:assert/strict";
 * import { connectPostgres } from "./connect.ts";
 *
 * const sql = connectPostgres("postgres://postgres@127.0.0.1:5432/app", {
 *   max: 4,
 * });
 * assert.deepEqual([...await sql`SELECT 1 AS one`], [{ one: 1 }]);
 * await sql.end();
 * ```
 */
export function connectPostgres(
  url: string,
  options: ConnectPostgresOptions = {},
): Sql {
  const inUrl = new URLSearchParams(url.split("?")[1] ?? "");
  const unlessInUrl = <T>(key: string, value: T) =>
    inUrl.has(key) ? {} : { [key]: value };
  const onQuery = options.onQuery;
  return postgres(url, {
    max: options.max ?? 10,
    // Statements a connection takes while one runs, before it counts as
    // full (postgres.js's default is 100). With the store letting no more
    // than the pool's capacity at it (admission.ts), a saturated pool keeps
    // its connections full and its queues short: see docs/postgres-js.md.
    ...unlessInUrl("max_pipeline", 3),
    // postgres.js runs a catalog query of array types first on every new
    // connection and drops its promise: a connection killed during that query
    // rejects it with no handler, an unhandled rejection that ends Node and
    // Deno processes (porsager/postgres#1192, #1205, #1223). Backends killed
    // while connections reconnect hit it within seconds. Off, and the array
    // types our statements send are serialised by ARRAY_TYPES instead.
    fetch_types: false,
    types: ARRAY_TYPES,
    ...unlessInUrl("connect_timeout", options.connectTimeout ?? 5),
    ...unlessInUrl("idle_timeout", options.idleTimeout ?? 30),
    // No session settings at connect: transaction poolers refuse startup
    // parameters they do not know (PgBouncer's default keeps only
    // application_name and a few more); transactions set their timeouts with
    // SET LOCAL instead (session_settings.ts).
    connection: { application_name: "callflow-api" },
    // Seconds before reconnecting after a failed attempt. postgres.js's own
    // grows to 20 s, which queries wait out: during an outage, requests would
    // take that long to fail. The store's retry (retry.ts) spaces its
    // attempts itself, so this stays short: at most 0.2 s, part of the one
    // attempt a caller may wait for past the retry window.
    backoff: (retries: number) => Math.min(0.05 * retries, 0.2),
    onnotice: () => {},
    ...(options.socket && { socket: options.socket }),
    ...(onQuery && {
      debug: (_connection: number, query: string, parameters: unknown[]) =>
        onQuery(query, parameters),
    }),
  });
}
