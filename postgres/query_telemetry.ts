/**
 * What the Postgres store reports to OpenTelemetry, through
 * `@opentelemetry/api` (a no-op until an SDK is registered): a client span
 * per query, nested under the request's span, and the connections the
 * store's queries hold or wait for.
 *
 * postgres.js keeps no pool statistics, so the connection figures are
 * counted here, around the store's queries: a query in flight holds a
 * connection while fewer than the pool's `max` are in flight; beyond that it
 * waits (in the store's admission queue, or pipelined behind another query
 * on a busy connection).
 * Idle connections are not reported: postgres.js opens and closes them
 * lazily, and does not say how many are open.
 *
 * @module
 */
import {
  type Context,
  context,
  metrics,
  type ObservableResult,
  type ObservableUpDownCounter,
  SpanKind,
  SpanStatusCode,
  trace,
  type Tracer,
} from "@opentelemetry/api";

/** The instrumentation scope of the store's spans and metrics. */
const SCOPE = "@callflow/api/postgres";

/** A query's name for its span: the operation and the table, e.g. `SELECT tokens`. */
export interface QueryName {
  /** `db.operation.name`, e.g. `SELECT`. */
  operation: string;
  /** `db.collection.name`, e.g. `tokens`; none for `SELECT 1`. */
  table?: string;
}

/** Which pool: its name, the database and the pool's size. */
export interface PoolFacts {
  /** `db.client.connection.pool.name`, e.g. `primary` or `replica`. */
  name: string;
  /** `db.namespace`: the database's name. */
  database: string;
  /** The pool's size (postgres.js `max`). */
  max: number;
}

/**
 * Spans and connection counts of one store. {@linkcode QueryTelemetry.run}
 * wraps each query; {@linkcode QueryTelemetry.close} unregisters the
 * connection gauges.
 *
 * @example Counting queries in flight on a pool of one (no SDK: no span)
 * ```ts
 * import assert from "node:assert/strict";
 * import { QueryTelemetry } from "./query_telemetry.ts";
 *
 * const telemetry = new QueryTelemetry({
 *   name: "primary",
 *   database: "app",
 *   max: 1,
 * });
 * const answers: (() => void)[] = [];
 * const query = () =>
 *   telemetry.run(
 *     { operation: "SELECT", table: "tokens" },
 *     () => new Promise<void>((done) => answers.push(done)),
 *   );
 * const queries = [query(), query()];
 * assert.deepEqual(telemetry.connections(), { used: 1, waiting: 1 });
 * for (const answer of answers) answer();
 * await Promise.all(queries);
 * assert.deepEqual(telemetry.connections(), { used: 0, waiting: 0 });
 * telemetry.close();
 * ```
 */
export class QueryTelemetry {
  readonly #tracer: Tracer;
  readonly #pool: PoolFacts;
  readonly #used: ObservableUpDownCounter;
  readonly #pending: ObservableUpDownCounter;
  #inFlight = 0;

  /** @param pool The pool's name, the database's and the pool's size. */
  constructor(pool: PoolFacts) {
    this.#pool = pool;
    this.#tracer = trace.getTracer(SCOPE);
    const meter = metrics.getMeter(SCOPE);
    this.#used = meter.createObservableUpDownCounter(
      "db.client.connection.count",
      {
        description: "Pool connections running the store's queries",
        unit: "{connection}",
      },
    );
    this.#pending = meter.createObservableUpDownCounter(
      "db.client.connection.pending_requests",
      {
        description: "Store queries waiting for a pool connection",
        unit: "{request}",
      },
    );
    this.#used.addCallback(this.#observeUsed);
    this.#pending.addCallback(this.#observePending);
  }

  /** The connections in use and the queries waiting for one, now. */
  connections(): { used: number; waiting: number } {
    return {
      used: Math.min(this.#inFlight, this.#pool.max),
      waiting: Math.max(this.#inFlight - this.#pool.max, 0),
    };
  }

  /**
   * Runs a query, counted in flight until it settles (once, whoever it
   * serves), under a client span in each of the contexts `parent` gives
   * where a request's span is active (no orphan spans): a statement that
   * serves several requests at once shows in the trace of each.
   *
   * @param name The operation and table, for the span.
   * @param query Sends the query.
   * @param parent The context to nest under, or the contexts of every
   *   request the query serves. Default: the active one.
   * @returns What `query` resolves.
   */
  run<T>(
    name: QueryName,
    query: () => Promise<T>,
    parent: Context | readonly Context[] = context.active(),
  ): Promise<T> {
    this.#inFlight += 1;
    let running: Promise<T>;
    try {
      const traced = tracedParents(parent);
      running = traced === undefined
        ? query()
        : this.#traced(name, query, traced);
    } catch (error) {
      this.#inFlight -= 1;
      return Promise.reject(error);
    }
    // Counted down beside the caller's chain, not in it: an untraced query
    // (no SDK, or no request span) costs no promise of its own here.
    running.then(this.#settled, this.#settled);
    return running;
  }

  /** Unregisters the connection gauges (the store is closing). */
  close(): void {
    this.#used.removeCallback(this.#observeUsed);
    this.#pending.removeCallback(this.#observePending);
  }

  async #traced<T>(
    { operation, table }: QueryName,
    query: () => Promise<T>,
    parents: readonly Context[],
  ): Promise<T> {
    const spans = parents.map((parent) =>
      this.#tracer.startSpan(
        table === undefined ? operation : `${operation} ${table}`,
        {
          kind: SpanKind.CLIENT,
          attributes: {
            "db.system": "postgresql",
            "db.system.name": "postgresql",
            "db.namespace": this.#pool.database,
            "db.operation.name": operation,
            ...(table === undefined ? {} : { "db.collection.name": table }),
          },
        },
        parent,
      )
    );
    try {
      return await query();
    } catch (error) {
      const type = (error as { code?: unknown }).code !== undefined
        ? String((error as { code: unknown }).code)
        : (error as Error).name ?? "Error";
      for (const span of spans) {
        span.setStatus({ code: SpanStatusCode.ERROR });
        span.setAttribute("error.type", type);
      }
      throw error;
    } finally {
      for (const span of spans) span.end();
    }
  }

  #settled = (): void => {
    this.#inFlight -= 1;
  };

  #observeUsed = (result: ObservableResult): void => {
    result.observe(this.connections().used, this.#attributes("used"));
  };

  #observePending = (result: ObservableResult): void => {
    result.observe(this.connections().waiting, this.#attributes());
  };

  #attributes(state?: "used") {
    return {
      "db.client.connection.pool.name": this.#pool.name,
      ...(state === undefined ? {} : { "db.client.connection.state": state }),
    };
  }
}

/**
 * The contexts of `parent` in which a request's span is active, or
 * `undefined` when there is none (an untraced query, the common case,
 * allocates nothing).
 */
function tracedParents(
  parent: Context | readonly Context[],
): readonly Context[] | undefined {
  if (!Array.isArray(parent)) {
    return trace.getSpan(parent as Context) === undefined
      ? undefined
      : [parent as Context];
  }
  const traced = (parent as readonly Context[]).filter((each) =>
    trace.getSpan(each) !== undefined
  );
  return traced.length === 0 ? undefined : traced;
}
