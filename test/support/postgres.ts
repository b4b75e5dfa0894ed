/**
 * A fresh Postgres database for one test file. Where `DATABASE_URL` is set (CI
 * sets it), a new database is created on that server and dropped at the end;
 * elsewhere an embedded PGlite is served over TCP by
 * `@electric-sql/pglite-socket` on 127.0.0.1 and a free port, so `npm test`
 * needs no server installed; each starts from one fresh data directory that
 * the first makes and keeps in .tmp/pglite/.
 *
 * PGlite is one single-user Postgres session: pglite-socket multiplexes every
 * client connection onto it, so session state is shared and a query from one
 * connection destroys another connection's open cursor. Hence
 * {@linkcode TestDatabase.max} is 1 there (one connection per pool) and tests
 * never run a query on a second pool while a transcript stream is open.
 * PGlite also ignores startup parameters (`statement_timeout`, ...).
 *
 * @module
 */
import {
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from "node:fs";
import process from "node:process";
import postgres from "postgres";

/** A database that exists for one test file. */
export interface TestDatabase {
  /** A URL to the database. */
  url: string;
  /** Where it is served: `server` (DATABASE_URL) or `pglite`. */
  kind: "server" | "pglite";
  /** The pool size to use: 1 on PGlite, several on a real server. */
  max: number;
  /** The host and port it listens on, for putting a proxy in front. */
  host: string;
  port: number;
  /** The same database reached through another port on 127.0.0.1. */
  urlThrough(port: number): string;
  /** Drops the database (or stops PGlite): nothing is left behind. */
  drop(): Promise<void>;
}

/**
 * Creates a fresh, empty database.
 *
 * @returns The database and how to reach it.
 *
 * @example
 * ```ts ignore
 * import { after, before } from "node:test";
 * import { createTestDatabase, type TestDatabase } from "./support/postgres.ts";
 *
 * let db: TestDatabase;
 * before(async () => db = await createTestDatabase());
 * after(() => db.drop());
 * ```
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const serverUrl = process.env.DATABASE_URL;
  return serverUrl ? await onServer(serverUrl) : await onPglite();
}

async function onServer(serverUrl: string): Promise<TestDatabase> {
  const name = `callflow_test_${crypto.randomUUID().replaceAll("-", "")}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.href,
    kind: "server",
    max: 4,
    host: url.hostname,
    port: Number(url.port || 5432),
    urlThrough(port) {
      const through = new URL(url);
      through.hostname = "127.0.0.1";
      through.port = String(port);
      return through.href;
    },
    async drop() {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

async function onPglite(): Promise<TestDatabase> {
  const { PGlite } = await import("@electric-sql/pglite");
  const { PGLiteSocketServer } = await import("@electric-sql/pglite-socket");
  const db = await PGlite.create({ loadDataDir: await freshDataDir(PGlite) });
  const server = new PGLiteSocketServer({
    db,
    host: "127.0.0.1",
    port: 0,
    maxConnections: 32,
  });
  await server.start();
  const port = Number(server.getServerConn().split(":").at(-1));
  const urlThrough = (port: number) =>
    `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    url: urlThrough(port),
    kind: "pglite",
    max: 1,
    host: "127.0.0.1",
    port,
    urlThrough,
    async drop() {
      await server.stop();
      await db.close();
    },
  };
}

/**
 * Makes the fresh PGlite data directory that each embedded database starts
 * from, unless it is made already: `npm test` runs this while it packs the
 * package, so that the test files starting at once do not each run initdb.
 *
 * @example
 * ```ts ignore
 * import { preparePglite } from "./support/postgres.ts";
 * await preparePglite();
 * ```
 */
export async function preparePglite(): Promise<void> {
  const { PGlite } = await import("@electric-sql/pglite");
  await freshDataDir(PGlite);
}

/** Where the fresh data directory is kept, one file per PGlite version. */
const DATA_DIRS = new URL("../../.tmp/pglite/", import.meta.url);

/**
 * A freshly initialised PGlite data directory, as the tar PGlite dumps: made
 * once by `PGlite.create()` (which runs initdb, 2.5-4 s of CPU) and kept in
 * .tmp/pglite/, so that each further database loads it (0.5 s). Files that
 * make one at the same time each write their own and rename it into place.
 */
async function freshDataDir(
  PGlite: typeof import("@electric-sql/pglite").PGlite,
): Promise<Blob> {
  const { version } = JSON.parse(readFileSync(
    new URL(
      "../../node_modules/@electric-sql/pglite/package.json",
      import.meta.url,
    ),
    "utf8",
  )) as { version: string };
  const file = new URL(`fresh-${version}.tar`, DATA_DIRS);
  if (existsSync(file)) return new Blob([readFileSync(file)]);
  const db = await PGlite.create();
  try {
    const dump = await db.dumpDataDir("none");
    mkdirSync(DATA_DIRS, { recursive: true });
    const partial = new URL(`${file.pathname}.${crypto.randomUUID()}`, file);
    writeFileSync(partial, new Uint8Array(await dump.arrayBuffer()));
    renameSync(partial, file);
    return dump;
  } finally {
    await db.close();
  }
}

/**
 * How many rows a table of the database holds (e.g. `tokens`), read on a
 * connection of its own.
 *
 * @param url The database's URL.
 * @param table A table of the schema.
 * @returns The row count.
 */
export async function countRows(url: string, table: string): Promise<number> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql<{ count: number }[]>`
      SELECT count(*)::int AS count FROM ${sql(table)}`;
    return row!.count;
  } finally {
    await sql.end({ timeout: 5 });
  }
}
