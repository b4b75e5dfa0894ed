/**
 * An edge function as the README shows it (Vercel Edge Functions, Netlify
 * Edge Functions and the like): a default export `(request) => Response`
 * over a memory store seeded with the demo data, writing the access log.
 * test/deploy/edge_runtime.ts bundles it with a `fetch` event listener and
 * runs it under Vercel's `edge-runtime`.
 *
 * @module
 */
import {
  createAccessLog,
  createHandler,
  demoFixtures,
  MemoryStore,
} from "../../mod.ts";

const store = new MemoryStore();
const seeded = store.seed(demoFixtures);
const handler = createHandler({
  store,
  onRequestFinished: createAccessLog({ level: "off" }),
});

/** The edge function. */
export default async function api(request: Request): Promise<Response> {
  await seeded;
  return await handler(request);
}

// The edge-runtime package dispatches `fetch` events, as a Service Worker.
const scope = globalThis as unknown as {
  addEventListener?: (
    type: "fetch",
    listener: (event: {
      request: Request;
      respondWith(response: Promise<Response>): void;
    }) => void,
  ) => void;
};
scope.addEventListener?.("fetch", (event) => {
  event.respondWith(api(event.request));
});
