/**
 * The API as a server runs it, built from {@linkcode ServerSettings}: the
 * store (Postgres when a database URL is set, migrated; memory otherwise),
 * seeded from the fixtures file or the demo data, and the handler writing the
 * access log on stdout. Shared by `npm start`, the `./server` entry and
 * `callflow-api serve`.
 *
 * @module
 */
import { createAccessLog } from "../src/access_log.ts";
import { demoFixtures } from "../src/store/demo_fixtures.ts";
import type { Fixtures } from "../src/store/fixtures.ts";
import { readFixturesFile } from "./_fixtures_file.ts";
import { createHandler, type Handler } from "../src/handler.ts";
import { MemoryStore } from "../src/store/memory_store.ts";
import type { ServerSettings } from "./_settings.ts";
import { startTelemetry } from "./_telemetry.ts";
import type { Store } from "../src/store/store.ts";

/** A store the server can seed and close. */
interface ServerStore extends Store {
  seed(fixtures: Fixtures): Promise<void>;
  close?(): Promise<void>;
}

/** The API ready to serve. */
export interface ServerApp {
  /** The handler, writing the access log. */
  handler: Handler;
  /** The fixtures the store was seeded with. */
  fixtures: Fixtures;
  /** Which store serves: `postgres` or `memory`. */
  storeKind: "postgres" | "memory";
  /** Whether OpenTelemetry runs: `close()` then flushes it. */
  telemetry: boolean;
  /** A start-up summary, e.g. `memory store, demo fixtures`. */
  description: string;
  /** Closes the store (ends the Postgres pool), then flushes telemetry. */
  close(): Promise<void>;
}

/**
 * Opens and seeds the store and creates the handler.
 *
 * @param settings The settings (see `readServerSettings`).
 * @returns The app; `close()` it on shutdown.
 * @throws {FixturesError} for a bad fixtures file, or the database's error.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openServerApp } from "./_app.ts";
 * import { readServerSettings } from "./_settings.ts";
 *
 * const app = await openServerApp(readServerSettings({ LOG_LEVEL: "off" }));
 * const response = await app.handler(new Request("http://x/readyz"));
 * assert.equal(response.status, 200);
 * await app.close();
 * ```
 */
export async function openServerApp(
  settings: ServerSettings,
): Promise<ServerApp> {
  const fixtures = settings.fixturesPath === undefined
    ? demoFixtures
    : await readFixturesFile(settings.fixturesPath);
  // First: the store's and the handler's instruments come from its providers.
  const telemetry = await startTelemetry(settings.telemetry);
  let store: ServerStore | undefined;
  try {
    store = await openStore(settings);
    await store.seed(fixtures);
  } catch (error) {
    await store?.close?.();
    await telemetry?.shutdown();
    throw error;
  }
  const storeKind = settings.databaseUrl === undefined ? "memory" : "postgres";
  const handler = createHandler({
    store,
    maxConcurrentExports: settings.maxConcurrentExports,
    telemetry: telemetry !== undefined,
    onRequestFinished: createAccessLog({
      level: settings.logLevel,
      format: settings.logFormat,
    }),
  });
  return {
    handler,
    fixtures,
    storeKind,
    telemetry: telemetry !== undefined,
    description: `${storeKind} store, ${
      settings.fixturesPath === undefined
        ? "demo fixtures"
        : `fixtures ${settings.fixturesPath}`
    }${telemetry === undefined ? "" : `, ${telemetry.description}`}`,
    close: async () => {
      await store.close?.();
      await telemetry?.shutdown();
    },
  };
}

async function openStore(settings: ServerSettings): Promise<ServerStore> {
  if (settings.databaseUrl === undefined) return new MemoryStore();
  const { openPostgresStore } = await import("../postgres/mod.ts");
  return await openPostgresStore(settings.databaseUrl, {
    max: settings.poolSize,
  });
}
