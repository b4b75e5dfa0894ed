/**
 * The API as a Cloudflare module Worker, `@callflow/api/worker`: its default
 * export is `{ fetch(request, env, ctx) }`. Bundle it with wrangler (which
 * bundles by itself):
 *
 * ```toml
 * # wrangler.toml
 * name = "callflow-api"
 * main = "node_modules/@callflow/api/dist/server/worker.js"
 * compatibility_date = "2026-11-01"
 * compatibility_flags = ["nodejs_compat"]   # for DATABASE_URL (postgres.js)
 * ```
 *
 * Settings are the Worker's environment bindings, read by the servers'
 * settings reader, which refuses the same mistakes (a request then answers
 * 500 and the Worker logs the setting at fault): `FIXTURES` (a fixtures document, as a JSON variable or
 * JSON text; default the demo data), `DATABASE_URL` (serve from Postgres,
 * already migrated and seeded with `callflow-api migrate`; `FIXTURES` is
 * then ignored), `MAX_CONCURRENT_EXPORTS`, `MAX_EXPORTS_PER_PROJECT`,
 * `EXPORT_STALL_TIMEOUT`, `LOG_LEVEL` and `LOG_FORMAT` (the access log,
 * written with `console.log`). The memory store lives in one isolate: each
 * isolate has its own copy. The export slots are counted per isolate too,
 * across its requests, whichever store serves them.
 *
 * OpenTelemetry: the `OTEL_*` bindings are ignored here and no SDK is loaded
 * (the Node SDK's exporters need `node:http` and timers a Worker lacks). For
 * traces from a Worker, build your own module on `createHandler({ store,
 * telemetry: true })` under a Workers OpenTelemetry SDK that registers the
 * global providers of `@opentelemetry/api` (e.g. `@microlabs/otel-cf-workers`):
 * the handler's spans, and the Postgres store's, then go through it.
 *
 * @example Re-exporting it from your Worker's own module
 * ```ts ignore
 * export { default } from "@callflow/api/worker";
 * ```
 *
 * @module
 */
import { createAccessLog } from "../src/telemetry/mod.ts";
import { ExportSlots } from "../src/operations/mod.ts";
import { FailedAuthLimiter } from "../src/auth/mod.ts";
import { demoFixtures } from "../src/store/mod.ts";
import { parseFixtures } from "../src/store/mod.ts";
import { createHandler, type Handler } from "../src/handler.ts";
import { MemoryStore } from "../src/store/mod.ts";
import type { Store } from "../src/store/mod.ts";
import { HttpError } from "../src/http/mod.ts";
import {
  readServerSettings,
  type ServerSettings,
  SettingsError,
} from "./settings/settings.ts";

/** The bindings the Worker reads; all optional. */
export interface WorkerEnv {
  /** A fixtures document (object or JSON text) to seed the memory store. */
  FIXTURES?: unknown;
  /** Serve from this Postgres database (migrated ahead) instead of memory. */
  DATABASE_URL?: string;
  /** Bulk exports streaming at once in this isolate (default 16). */
  MAX_CONCURRENT_EXPORTS?: string | number;
  /** One project's share of them (default half). */
  MAX_EXPORTS_PER_PROJECT?: string | number;
  /** Seconds an export's client may read nothing before it is cut (60). */
  EXPORT_STALL_TIMEOUT?: string | number;
  /** The access log's level: debug, info (default), warn, error, off. */
  LOG_LEVEL?: string;
  /** The access log's format: json (default) or pretty. */
  LOG_FORMAT?: string;
}

/** The part of the Workers `ExecutionContext` the Worker uses. */
export interface WorkerContext {
  /** Keeps the isolate alive until the promise settles. */
  waitUntil(promise: Promise<unknown>): void;
}

/** A module Worker. */
export interface ModuleWorker {
  /** Answers one request. */
  fetch(
    request: Request,
    env: WorkerEnv,
    context: WorkerContext,
  ): Promise<Response>;
}

/** The memory store of this isolate, seeded on its first request. */
let memoryStore: Promise<MemoryStore> | undefined;

async function seededMemoryStore(env: WorkerEnv): Promise<MemoryStore> {
  const store = new MemoryStore();
  const fixtures = env.FIXTURES === undefined || env.FIXTURES === ""
    ? demoFixtures
    : parseFixtures(
      typeof env.FIXTURES === "string"
        ? JSON.parse(env.FIXTURES)
        : env.FIXTURES,
    );
  await store.seed(fixtures);
  return store;
}

/** The settings of this isolate, read from its first request's bindings. */
let isolate: {
  settings: ServerSettings;
  exportSlots: ExportSlots;
  failedAuthLimiter: FailedAuthLimiter;
} | undefined;

/**
 * The isolate's settings, read by the servers' settings reader (so a bad
 * `LOG_LEVEL` is refused as `npm start` refuses it), and its export slots: a
 * counter at module scope, shared by every request of the isolate (Workers
 * forbid sharing I/O across requests, not plain state), so the export bounds
 * hold whichever store serves; the failed-authentication counts likewise. Wrangler's variables may be numbers: they are
 * read as text. `FIXTURES` is a document here, not a file, and the `OTEL_*`
 * bindings are ignored: neither goes to the reader.
 */
function isolateState(env: WorkerEnv) {
  if (isolate === undefined) {
    const text: Record<string, string> = {};
    for (const [name, value] of Object.entries(env)) {
      if (name === "FIXTURES" || name.startsWith("OTEL_")) continue;
      if (typeof value === "string" || typeof value === "number") {
        text[name] = String(value);
      }
    }
    const settings = readServerSettings(text);
    isolate = {
      settings,
      exportSlots: new ExportSlots(
        settings.maxConcurrentExports,
        settings.maxExportsPerProject,
      ),
      failedAuthLimiter: new FailedAuthLimiter({
        limit: settings.authFailureLimit,
        windowMs: settings.authFailureWindow * 1000,
      }),
    };
  }
  return isolate;
}

function handlerOptions(env: WorkerEnv) {
  const { settings, exportSlots, failedAuthLimiter } = isolateState(env);
  return {
    exportSlots,
    failedAuthLimiter,
    // Set by Cloudflare's edge for every request; a client cannot forge it.
    clientAddress: (request: Request) =>
      request.headers.get("cf-connecting-ip") ?? undefined,
    exportStallTimeoutMs: settings.exportStallTimeout * 1000,
    exportMinBytesPerSecond: settings.exportMinRate,
    log: createAccessLog({
      level: settings.logLevel,
      format: settings.logFormat,
    }),
  };
}

/** The memory-store handler of this isolate. */
let memoryHandler: Handler | undefined;

/**
 * Answers with the request's store. Workers forbid sharing a connection
 * between requests, so with `DATABASE_URL` each request opens its own
 * one-connection postgres.js client (through `cloudflare:sockets`) and ends
 * it once the response is over.
 */
async function answer(
  request: Request,
  env: WorkerEnv,
  context: WorkerContext,
): Promise<Response> {
  let databaseUrl;
  try {
    databaseUrl = isolateState(env).settings.databaseUrl;
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error;
    // Refused, as the servers refuse to start: every request says so.
    console.error(`Cannot serve: ${error.message}`);
    return new HttpError(
      500,
      "INTERNAL_SERVER_ERROR",
      "The Worker's settings are invalid (see its log)",
    ).toResponse();
  }
  if (databaseUrl === undefined) {
    if (memoryHandler === undefined) {
      memoryStore ??= seededMemoryStore(env).catch((error) => {
        memoryStore = undefined;
        throw error;
      });
      const store: Store = await memoryStore;
      const { log, ...options } = handlerOptions(env);
      memoryHandler ??= createHandler({
        store,
        ...options,
        onRequestFinished: log,
      });
    }
    return await memoryHandler(request);
  }
  // The pool and the store only: migrations read files, which a Worker has not.
  const [{ connectPostgres }, { PostgresStore }] = await Promise.all([
    import("../postgres/connect.ts"),
    import("../postgres/postgres_store.ts"),
  ]);
  const sql = connectPostgres(databaseUrl, { max: 1 });
  const { log, ...options } = handlerOptions(env);
  const handler = createHandler({
    store: new PostgresStore(sql),
    ...options,
    onRequestFinished: (finished) => {
      log(finished);
      context.waitUntil(sql.end({ timeout: 5 }));
    },
  });
  return await handler(request);
}

/** The API as a module Worker. */
const worker: ModuleWorker = {
  fetch: answer,
};

export default worker;
