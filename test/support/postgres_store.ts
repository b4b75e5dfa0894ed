/**
 * Postgres stores for tests: one migrated database per test file, and a fresh
 * store on it per test, holding exactly the fixtures it was given.
 *
 * @module
 */
import type { Sql } from "postgres";
import type { Fixtures, FixturesInput } from "../../src/store/fixtures.ts";
import {
  connectPostgres,
  type ConnectPostgresOptions,
  migrate,
  PostgresStore,
  type PostgresStoreOptions,
} from "../../postgres/mod.ts";
import { createTestDatabase, type TestDatabase } from "./postgres.ts";

/** The options of a test store: its pool's and its own. */
export type StoreOptions = ConnectPostgresOptions & PostgresStoreOptions;

/** A migrated test database and how to make stores on it. */
export interface PostgresHarness {
  db: TestDatabase;
  /** A pool on the database, for inspecting its tables. */
  sql: Sql;
  /** A store on a pool of its own, on the database as it is. */
  openStore(
    options?: StoreOptions,
  ): { store: PostgresStore; close(): Promise<void> };
  /**
   * Empties every table, then returns a store on a pool of its own holding
   * exactly `fixtures`.
   */
  freshStore(
    fixtures: FixturesInput | Fixtures,
    options?: StoreOptions,
  ): Promise<{ store: PostgresStore; close(): Promise<void> }>;
  /** Ends the pool and drops the database. */
  close(): Promise<void>;
}

/**
 * Creates and migrates a test database.
 *
 * @example
 * ```ts ignore
 * import { after, before } from "node:test";
 * import { openHarness, type PostgresHarness } from "./support/postgres_store.ts";
 *
 * let harness: PostgresHarness;
 * before(async () => harness = await openHarness());
 * after(() => harness.close());
 * ```
 */
export async function openHarness(): Promise<PostgresHarness> {
  const db = await createTestDatabase();
  const sql = connectPostgres(db.url, { max: 1 });
  try {
    await migrate(sql);
  } catch (error) {
    await sql.end();
    await db.drop();
    throw error;
  }
  const openStore = (options: StoreOptions = {}) => {
    const store = new PostgresStore(
      connectPostgres(db.url, { max: db.max, ...options }),
      options,
    );
    return { store, close: () => store.close() };
  };
  return {
    db,
    sql,
    openStore,
    async freshStore(fixtures, options = {}) {
      await sql`TRUNCATE projects CASCADE`;
      const opened = openStore(options);
      try {
        await opened.store.seed(fixtures);
      } catch (error) {
        await opened.close();
        throw error;
      }
      return opened;
    },
    async close() {
      await sql.end();
      await db.drop();
    },
  };
}
