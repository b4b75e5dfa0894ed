/**
 * Where the data lives: the `Store` interface, the in-memory store, the
 * fixtures format and the demo fixtures; and what the data's own rules need,
 * below every other layer that reads it: cron schedules (a trigger's is
 * checked when fixtures load) and the SHA-256 by which tokens are kept.
 *
 * The door of `src/store/`: the rest of the project imports this folder
 * through this module only.
 *
 * @module
 */
export * from "./demo_fixtures.ts";
export * from "./fixtures.ts";
export * from "./memory_store.ts";
export * from "./store.ts";
export * from "./schedule.ts";
export * from "./sha256.ts";
