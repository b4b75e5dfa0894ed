/**
 * The API server: `npm start`, `npm run start:deno`, `npm run start:bun`.
 *
 * Settings from the environment: `PORT` (default 8787), `HOST` (default
 * 127.0.0.1), `FIXTURES` (a fixtures file; default: the built-in demo set),
 * `DATABASE_URL` (serve from Postgres instead of memory),
 * `DATABASE_POOL_SIZE` (default 10) and `MAX_CONCURRENT_EXPORTS` (default 16).
 * Stops gracefully on SIGINT and SIGTERM.
 *
 * @module
 */
import process from "node:process";
import { demoFixtures } from "./demo_fixtures.ts";
import type { Fixtures } from "./fixtures.ts";
import { describeTokens, readFixturesFile } from "./fixtures_file.ts";
import { createHandler } from "./handler.ts";
import { MemoryStore } from "./memory_store.ts";
import { runtimeName, serve } from "./serve.ts";
import type { Store } from "./store.ts";

/** A store the server can seed and close. */
interface ServerStore extends Store {
  seed(fixtures: Fixtures): Promise<void>;
  close?(): Promise<void>;
}

async function openStore(env: NodeJS.ProcessEnv): Promise<ServerStore> {
  const url = env.DATABASE_URL;
  if (url === undefined || url === "") return new MemoryStore();
  const { openPostgresStore } = await import("./postgres/mod.ts");
  return await openPostgresStore(url, {
    max: Number(env.DATABASE_POOL_SIZE ?? 10),
  });
}

/** `PORT` as a port number, or a clear refusal. */
function portSetting(value: string | undefined): number {
  if (value === undefined) return 8787;
  const port = Number(value);
  if (
    value.trim() === "" || !Number.isInteger(port) || port < 0 || port > 65535
  ) {
    throw new Error(
      `Cannot start: PORT must be an integer from 0 to 65535, got ${
        JSON.stringify(value)
      }`,
    );
  }
  return port;
}

async function main(): Promise<void> {
  const env = process.env;
  const port = portSetting(env.PORT);
  const hostname = env.HOST ?? "127.0.0.1";
  const fixtures = env.FIXTURES
    ? await readFixturesFile(env.FIXTURES)
    : demoFixtures;

  const store = await openStore(env);
  await store.seed(fixtures);
  const handler = createHandler({
    store,
    ...(env.MAX_CONCURRENT_EXPORTS &&
      { maxConcurrentExports: Number(env.MAX_CONCURRENT_EXPORTS) }),
  });
  const server = await serve(handler, { port, hostname })
    .catch((error: unknown) => {
      throw new Error(
        `Cannot listen on ${hostname}:${port}: ${(error as Error).message}`,
      );
    });

  console.log(
    `API listening on ${server.url} (${runtimeName()}, ${
      env.DATABASE_URL ? "postgres" : "memory"
    } store, ${env.FIXTURES ? `fixtures ${env.FIXTURES}` : "demo fixtures"})`,
  );
  console.log(`Tokens (token, role, project):\n${describeTokens(fixtures)}`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: shutting down`);
    await server.close();
    await store.close?.();
    process.exit(0);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
