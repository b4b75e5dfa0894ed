/**
 * The API's handler over the built-in demo data in memory, and the same
 * served over HTTP by the runtime running the test, for the tests that
 * check every route's answers (their ids are the README's).
 *
 * @module
 */
import { after, before } from "node:test";
import {
  type RunningServer,
  runtimeSteps,
  serve,
} from "../../server/runtimes/mod.ts";
import {
  createHandler,
  type Handler,
  type HandlerOptions,
} from "../../src/handler.ts";
import { demoFixtures } from "../../src/store/demo_fixtures.ts";
import { MemoryStore } from "../../src/store/memory_store.ts";

/** A demo call, integration and flow (the README's). */
export const DEMO = {
  call: "1f0e8d7c-6b5a-4493-8281-706f5e4d3c2b",
  integration: "6b7c8d9e-0f1a-4b2c-9d3e-4f5a6b7c8d9e",
  flow: "c2d3e4f5-a6b7-4c8d-9e9f-0a1b2c3d4e5f",
} as const;

/**
 * A fresh handler over a fresh memory store seeded with the demo data.
 *
 * @param middleware Steps of the server serving it, if any.
 */
export async function demoHandler(
  middleware: HandlerOptions["middleware"] = [],
): Promise<Handler> {
  const store = new MemoryStore();
  await store.seed(demoFixtures);
  return createHandler({ store, logError: () => {}, middleware });
}

/**
 * Serves a demo handler on 127.0.0.1 for the enclosing `describe` (started
 * in `before`, closed in `after`).
 *
 * @returns A getter for the running server.
 */
export function demoServer(): () => RunningServer {
  let server: RunningServer | undefined;
  before(async () => {
    server = await serve(await demoHandler(runtimeSteps()), {
      port: 0,
      hostname: "127.0.0.1",
    });
  });
  after(() => server?.close());
  return () => server!;
}
