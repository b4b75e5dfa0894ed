/**
 * What the access log costs per request at handler level: the same small
 * `GET /v1/call/{id}/message` on the demo data, with and without
 * `onRequestFinished: createAccessLog(...)` (lines kept in memory, not
 * printed), three rounds of 20,000 requests each.
 *
 * ```sh
 * node bench/access_log.ts; deno run -A bench/access_log.ts; bun bench/access_log.ts
 * ```
 *
 * @module
 */
import {
  createAccessLog,
  createHandler,
  demoFixtures,
  type Handler,
  MemoryStore,
} from "../mod.ts";
import { runtimeName } from "../server/runtimes/mod.ts";

const store = new MemoryStore();
await store.seed(demoFixtures);
const plain = createHandler({ store });
let kept = 0;
const logged = createHandler({
  store,
  onRequestFinished: createAccessLog({ write: (line) => kept += line.length }),
});
const url = `http://x/v1/call/${demoFixtures.calls[0]!.call_id}/message`;
const init = { headers: { authorization: "Bearer demo-viewer" } };

async function microsPerRequest(handler: Handler, n: number): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < n; i++) {
    await (await handler(new Request(url, init))).arrayBuffer();
  }
  return (performance.now() - started) / n * 1000;
}

await microsPerRequest(plain, 3000);
await microsPerRequest(logged, 3000);
for (let round = 1; round <= 3; round++) {
  const without = await microsPerRequest(plain, 20_000);
  const withLog = await microsPerRequest(logged, 20_000);
  console.log(
    `${runtimeName()} round ${round}: ${without.toFixed(1)} µs without, ` +
      `${withLog.toFixed(1)} µs with the access log`,
  );
}
if (kept === 0) throw new Error("no line written");
