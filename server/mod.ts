/**
 * The deploy entry, `@callflow/api/server`: a module whose default export is
 * `{ fetch }`, the shape `deno serve`, Deno Deploy and `bun <file>` serve by
 * themselves. It is built from the environment on import, with the settings
 * of `npm start`: `DATABASE_URL` selects Postgres (migrated on start, seeded
 * only from `FIXTURES`), otherwise a memory store seeded from `FIXTURES` or
 * the demo data; the
 * access log goes to stdout (`LOG_LEVEL`, `LOG_FORMAT`).
 *
 * ```sh
 * deno serve --allow-net --allow-env --allow-read --port 8787 npm:@callflow/api/server
 * bun node_modules/@callflow/api/dist/server/mod.js      # PORT, HOST as usual
 * node node_modules/@callflow/api/dist/server/mod.js     # @hono/node-server
 * ```
 *
 * Run directly by Node (`node server.js`), it listens by itself through the
 * Node adapter, as `callflow-api serve` does.
 *
 * A memory store lives in one process, worker or isolate: `deno serve
 * --parallel` gives each worker its own. Postgres is the shared store.
 *
 * On SIGTERM or SIGINT it shuts down gracefully under every runtime, as
 * `npm start` does: `/readyz` answers 503, requests in flight finish, then
 * the process exits 0, within `SHUTDOWN_TIMEOUT` seconds.
 *
 * The server is server/runtimes/deploy_entry.ts. Under Deno, from the
 * sources, this module runs its build instead, `dist/deno_serve/`
 * (`npm run build` or `build:deno`; build/deno_serve_build.ts), while every
 * source that build holds has the modification time and size it had when
 * built: a start with an empty `DENO_DIR` then transpiles no TypeScript and
 * compiles a handful of modules, not about 70. An edit takes effect at the
 * next start; without `--allow-read`, the sources run.
 *
 * @example Serving it from your own module under Deno or Bun
 * ```ts ignore
 * export { default } from "@callflow/api/server";
 * ```
 *
 * @module
 */
import type { ServerEntry } from "./runtimes/deploy_entry.ts";

export type { ServerEntry } from "./runtimes/deploy_entry.ts";

/** The part of Deno's global the build's check reads. */
interface DenoFiles {
  Deno?: {
    readTextFileSync(url: URL): string;
    statSync(url: URL): { mtime: Date | null; size: number };
  };
}

/**
 * Under Deno, from the sources, the build's entry while every source it
 * holds (`sources.json`: `[path, mtime in whole ms, size]`) is as it was;
 * otherwise undefined. Its import is not analyzable: Deno builds no graph
 * of it at start.
 */
function builtEntry():
  | Promise<typeof import("./runtimes/deploy_entry.ts")>
  | undefined {
  const { Deno } = globalThis as DenoFiles;
  if (Deno === undefined || !import.meta.url.endsWith(".ts")) return undefined;
  const root = new URL("../", import.meta.url);
  const build = new URL("dist/deno_serve/", root);
  try {
    const { sources } = JSON.parse(
      Deno.readTextFileSync(new URL("sources.json", build)),
    ) as { sources: [string, number, number][] };
    const fresh = sources.length > 0 &&
      sources.every(([path, mtimeMs, size]) => {
        const now = Deno.statSync(new URL(path, root));
        return now.mtime?.getTime() === mtimeMs && now.size === size;
      });
    return fresh ? import(new URL("deploy_entry.js", build).href) : undefined;
  } catch {
    // No build, a source gone, or no read permission: the sources it is.
    return undefined;
  }
}

const { openEntry } =
  await (builtEntry() ?? import("./runtimes/deploy_entry.ts"));
/** The API, served from the environment's settings. */
const entry: ServerEntry = await openEntry(import.meta.url);
export default entry;
