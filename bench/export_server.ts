/**
 * A server for the export benchmark, on the runtime running it: the handler
 * over a MemoryStore seeded with the bench data (`memory`), or over a
 * PostgresStore on `BENCH_DATABASE_URL`, already seeded (`postgres`). The
 * export deflates as the API's servers have it
 * (`server/gzip_pool/mod.ts`), or with the runtime's own
 * `CompressionStream` when `BENCH_COMPRESSION=runtime`. Listens on
 * `BENCH_PORT` (default: any free port); prints its URL once ready; stops on
 * SIGTERM.
 *
 * @module
 */
import process from "node:process";
import { createHandler } from "../src/handler.ts";
import { MemoryStore } from "../src/store/memory_store.ts";
import { connectPostgres, PostgresStore } from "../postgres/mod.ts";
import { exportCompression } from "../server/gzip_pool/mod.ts";
import { serve } from "../server/runtimes/mod.ts";
import type { Store } from "../src/store/store.ts";
import { benchData } from "./export_data.ts";

let store: Store;
if (process.argv[2] === "postgres") {
  store = new PostgresStore(connectPostgres(process.env.BENCH_DATABASE_URL!));
  await store.findGrant("warm-up: open a connection first");
} else {
  const memory = new MemoryStore();
  await memory.seed(benchData().fixtures);
  store = memory;
}
// As the API's servers do, unless BENCH_COMPRESSION=runtime: then the
// runtime's own CompressionStream on the main thread, 64 KiB read ahead.
const compression = process.env.BENCH_COMPRESSION === "runtime"
  ? undefined
  : (await exportCompression()).compression;
const handler = createHandler({
  store,
  logError: console.error,
  ...(compression === undefined ? {} : { exportCompression: compression }),
});
const server = await serve(handler, {
  port: Number(process.env.BENCH_PORT ?? 0),
  hostname: "127.0.0.1",
});
// Collect the seeding's garbage, so the idle RSS is the data's own.
(globalThis as { gc?: () => void }).gc?.();
(globalThis as { Bun?: { gc(force: boolean): void } }).Bun?.gc(true);
console.log(server.url);
process.on("SIGTERM", () => void server.close().then(() => process.exit(0)));
