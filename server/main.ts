/**
 * The API server: `npm start`, `npm run start:deno`, `npm run start:bun`.
 *
 * Settings from the environment: `PORT` (default 8787), `HOST` (default
 * 127.0.0.1), `FIXTURES` (a fixtures file, or `demo`; default: the built-in
 * demo set in memory, nothing on Postgres), `DATABASE_URL` (serve from
 * Postgres instead of memory), `DATABASE_DIRECT_URL` (migrate and seed past
 * a pooler), `DATABASE_READ_URL` (a read replica),
 * `DATABASE_POOL_SIZE` (default 10), `MAX_CONCURRENT_EXPORTS` (default 16),
 * `MAX_EXPORTS_PER_PROJECT` (default half of it), `EXPORT_STALL_TIMEOUT`
 * (seconds, default 60), `SHUTDOWN_TIMEOUT` (seconds, default 30),
 * `LOG_LEVEL` and `LOG_FORMAT` (the access log), and OpenTelemetry's
 * `OTEL_*` variables (off when unset). Stops gracefully on SIGINT
 * and SIGTERM: `/readyz` answers 503, requests in flight finish, then it
 * exits 0.
 *
 * @module
 */
import "./runtimes/require_supported_runtime.ts";
import process from "node:process";
import { enableCompileCache } from "./runtimes/compile_cache.ts";

/** Reads the settings and serves; the exit code. */
async function main(): Promise<number> {
  const { runServer } = await import("./run_server.ts");
  const { readServerSettings } = await import("./settings/settings.ts");
  const { stdoutIsTerminal } = await import("./observability/log_lines.ts");
  return await runServer(readServerSettings(process.env, stdoutIsTerminal()));
}

// Before the server's modules load, so that Node caches them. No top-level
// await: Bun's bytecode is for CommonJS only (see build/start_build.ts).
enableCompileCache();
main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
