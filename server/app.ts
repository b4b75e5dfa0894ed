/**
 * The API as a server runs it, built from {@linkcode ServerSettings}: the
 * store (Postgres when a database URL is set, migrated; memory otherwise),
 * seeded as {@linkcode startFixtures} decides, and the handler writing the
 * access log on stdout. Shared by `npm start`, the `./server` entry and
 * `callflow-api serve`.
 *
 * @module
 */
import { createAccessLog } from "../src/telemetry/mod.ts";
import { FailedAuthLimiter } from "../src/auth/mod.ts";
import { clientAddressOf } from "./runtimes/client_address.ts";
import { runtimeSteps } from "./runtimes/mod.ts";
import { Drain } from "./runtimes/drain.ts";
import { referencePage } from "./files/reference_page.ts";
import { demoFixtures } from "../src/store/mod.ts";
import type { Fixtures } from "../src/store/mod.ts";
import { readFixturesFile, requireLongTokens } from "./files/fixtures_file.ts";
import { batchedLines, stdoutSink } from "./observability/log_lines.ts";
import { createHandler, type Handler } from "../src/handler.ts";
import { exportCompression } from "./gzip_pool/mod.ts";
import { MemoryStore } from "../src/store/mod.ts";
import type { ServerSettings } from "./settings/settings.ts";
import { startTelemetry } from "./observability/telemetry_sdk.ts";
import type { Store } from "../src/store/mod.ts";

/** A store the server can seed and close. */
interface ServerStore extends Store {
  seed(fixtures: Fixtures): Promise<void>;
  close?(): Promise<void>;
}

/** The API ready to serve. */
export interface ServerApp {
  /** The handler, writing the access log. */
  handler: Handler;
  /** The fixtures the store was seeded with; none for Postgres by default. */
  fixtures: Fixtures | undefined;
  /** Which store serves: `postgres` or `memory`. */
  storeKind: "postgres" | "memory";
  /** A start-up summary, e.g. `memory store, demo fixtures`. */
  description: string;
  /**
   * Its requests, counted by its pipeline's draining step for a graceful
   * shutdown (see `shutDown`).
   */
  drain: Drain;
  /** Makes `GET /readyz` answer 503 from now on: the server is draining. */
  beginShutdown(): void;
  /** Writes the access log's last lines, closes the store, flushes telemetry. */
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
 * import { openServerApp } from "./app.ts";
 * import { readServerSettings } from "./settings/settings.ts";
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
  const storeKind = settings.databaseUrl === undefined ? "memory" : "postgres";
  const start = await loadStartFixtures(
    settings.fixturesPath,
    storeKind,
    settings.allowShortTokens,
  );
  const { fixtures } = start;
  // First: the store's and the handler's instruments come from its providers.
  const telemetry = await startTelemetry(settings.telemetry);
  const store = await openStore(settings).catch(async (error: unknown) => {
    await telemetry?.shutdown();
    throw error;
  });
  if (fixtures !== undefined) {
    try {
      await store.seed(fixtures);
    } catch (error) {
      await store.close?.();
      await telemetry?.shutdown();
      throw error;
    }
  }
  // Lines go out in one stdout write a tick; at `off` nothing is installed.
  const log = batchedLines(stdoutSink());
  const shutdown = new AbortController();
  const drain = new Drain();
  // Exports deflate off the main thread: node:zlib, or Deno's workers.
  const compression = await exportCompression();
  const handler = createHandler({
    store,
    maxConcurrentExports: settings.maxConcurrentExports,
    telemetry: telemetry !== undefined,
    maxExportsPerProject: settings.maxExportsPerProject,
    exportStallTimeoutMs: settings.exportStallTimeout * 1000,
    exportMinBytesPerSecond: settings.exportMinRate,
    clientAddress: clientAddressOf(settings.trustProxy),
    failedAuthLimiter: new FailedAuthLimiter({
      limit: settings.authFailureLimit,
      windowMs: settings.authFailureWindow * 1000,
    }),
    shutdownSignal: shutdown.signal,
    exportCompression: compression.compression,
    middleware: [
      ...runtimeSteps(drain),
      ...(settings.docs ? [referencePage()] : []),
    ],
    ...(settings.logLevel === "off" ? {} : {
      onRequestFinished: createAccessLog({
        level: settings.logLevel,
        format: settings.logFormat,
        write: log.write,
      }),
    }),
  });
  return {
    handler,
    fixtures,
    storeKind,
    description: `${storeKind} store, ${start.description}${
      telemetry === undefined ? "" : `, ${telemetry.description}`
    }`,
    drain,
    beginShutdown: () => shutdown.abort(),
    close: async () => {
      await log.flush();
      compression.close();
      await store.close?.();
      await telemetry?.shutdown();
    },
  };
}

/**
 * Reads what {@linkcode startFixtures} chose, before anything is opened (a
 * bad file changes nothing), and prints its warning, if any, on stderr.
 *
 * @param fixturesSetting The `FIXTURES` setting, if set.
 * @param storeKind The store being seeded.
 * @param allowShortTokens Whether a file may put tokens shorter than
 * `MIN_TOKEN_LENGTH` into a database (`ALLOW_SHORT_TOKENS`, for tests).
 * @returns The choice, with the fixtures read (none for `none`).
 * @throws {FixturesError} for a file that cannot be read or breaks the
 * format, or that would put a short token into a database.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadStartFixtures } from "./app.ts";
 *
 * const start = await loadStartFixtures(undefined, "memory");
 * assert.ok(start.fixtures?.tokens.some(({ token }) => token === "demo-owner"));
 * assert.equal((await loadStartFixtures(undefined, "postgres")).fixtures, undefined);
 * ```
 */
export async function loadStartFixtures(
  fixturesSetting: string | undefined,
  storeKind: "postgres" | "memory",
  allowShortTokens = false,
): Promise<StartFixtures & { fixtures: Fixtures | undefined }> {
  const start = startFixtures(fixturesSetting, storeKind);
  if (start.warning !== undefined) console.warn(start.warning);
  const fixtures = start.source === "file"
    ? await readFixturesFile(fixturesSetting!)
    : start.source === "demo"
    ? demoFixtures
    : undefined;
  // The demo data, asked for by name, is public whatever its length.
  if (
    start.source === "file" && storeKind === "postgres" && !allowShortTokens
  ) {
    requireLongTokens(fixtures!);
  }
  return { ...start, fixtures };
}

/** The `FIXTURES` value that names the built-in demo data. */
const DEMO_FIXTURES = "demo";

/** What a server seeds its store with at start, and how it says so. */
export interface StartFixtures {
  /** A fixtures file, the built-in demo data, or nothing. */
  source: "file" | "demo" | "none";
  /** For the start-up line, e.g. `demo fixtures`. */
  description: string;
  /** A line to print on stderr before serving, if any. */
  warning?: string;
}

/**
 * Decides what `FIXTURES` (or `--fixtures`) seeds. The demo data, whose
 * tokens are public, belongs to the memory store: it is the default there,
 * while a database is seeded only from a file `FIXTURES` names, or with the
 * demo data when `FIXTURES=demo` says so (with a warning). `demo` always
 * means the demo data: name a file called so `./demo`.
 *
 * @param fixturesSetting The `FIXTURES` setting, if set.
 * @param storeKind The store being opened.
 * @returns The source, its description and a warning to print, if any.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { startFixtures } from "./app.ts";
 *
 * assert.equal(startFixtures(undefined, "memory").source, "demo");
 * assert.equal(startFixtures(undefined, "postgres").source, "none");
 * assert.match(startFixtures("demo", "postgres").warning!, /public/);
 * assert.equal(startFixtures("seed.json", "postgres").source, "file");
 * ```
 */
export function startFixtures(
  fixturesSetting: string | undefined,
  storeKind: "postgres" | "memory",
): StartFixtures {
  if (fixturesSetting === DEMO_FIXTURES) {
    return {
      source: "demo",
      description: "demo fixtures",
      ...(storeKind === "postgres" && {
        warning:
          "Warning: FIXTURES=demo seeds the demo data into the database: its tokens (demo-owner, ...) are public. Never use it on a database that matters.",
      }),
    };
  }
  if (fixturesSetting !== undefined) {
    return { source: "file", description: `fixtures ${fixturesSetting}` };
  }
  return storeKind === "memory"
    ? { source: "demo", description: "demo fixtures" }
    : { source: "none", description: "nothing seeded (FIXTURES unset)" };
}

async function openStore(settings: ServerSettings): Promise<ServerStore> {
  if (settings.databaseUrl === undefined) return new MemoryStore();
  const { openPostgresStore } = await import("../postgres/mod.ts");
  return await openPostgresStore(settings.databaseUrl, {
    max: settings.poolSize,
    directUrl: settings.databaseDirectUrl,
    readUrl: settings.databaseReadUrl,
    onReplicaChange: (degraded) =>
      console.warn(
        degraded ?? "The read replica answers again: reading from it",
      ),
  });
}
