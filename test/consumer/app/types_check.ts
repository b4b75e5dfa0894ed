// Type-checked in the consumer project with tsc against the published .d.ts
// files (through the exports map's `types` conditions); never run.
import { setupServer } from "msw/node";
import {
  createAccessLog,
  createHandler,
  demoFixtures,
  type FinishedRequest,
  MemoryStore,
} from "@callflow/api";
import type { ServerEntry } from "@callflow/api/server";
import type { ModuleWorker, WorkerEnv } from "@callflow/api/worker";
import {
  type CallFixture,
  createMockServer,
  type FaultRule,
  type FixturesInput,
  type JournalEntry,
} from "@callflow/api/mock";
import { createMockApi, type MockApi } from "@callflow/api/mock/msw";

const fixtures: FixturesInput = demoFixtures;
const api: MockApi = createMockApi({
  baseUrl: "https://api.example.com",
  fixtures,
});
setupServer(...api.handlers);

export async function shapes(): Promise<string> {
  const call: CallFixture = await api.addCall({ messages: [{ text: "hi" }] });
  const { token } = await api.addToken({ role: "viewer" });
  await api.addIntegration({ kind: "http", tools: [{ name: "lookup" }] });
  await api.addFlow({ trigger: { type: "call_ended" } });
  // @ts-expect-error: a role the API does not know.
  await api.addToken({ role: "root" });
  const response: Response = await createMockServer({ fixtures }).fetch(
    new Request("http://127.0.0.1:4010/__mock/reset", { method: "POST" }),
  );
  const rule: FaultRule = { operation: "testTrigger", status: 503, times: 1 };
  api.inject(rule);
  const entries: JournalEntry[] = api.requests;
  // @ts-expect-error: a fault rule takes a number of times, not a string.
  api.inject({ operation: "testTrigger", status: 503, times: "1" });
  const handler = createHandler({ store: new MemoryStore() });
  return `${call.call_id} ${token} ${response.status} ${typeof handler} ${entries.length}`;
}

export async function deployShapes(
  entry: ServerEntry,
  worker: ModuleWorker,
): Promise<number> {
  const env: WorkerEnv = { LOG_LEVEL: "info" };
  const fromWorker = await worker.fetch(new Request("http://x/healthz"), env, {
    waitUntil: () => {},
  });
  const lines: FinishedRequest[] = [];
  const handler = createHandler({
    store: new MemoryStore(),
    onRequestFinished: (finished) => lines.push(finished),
    readinessTimeout: 500,
  });
  createAccessLog({ level: "debug", format: "pretty" });
  // @ts-expect-error: not a log level.
  createAccessLog({ level: "verbose" });
  const fromEntry = await entry.fetch(new Request("http://x/readyz"));
  await handler(new Request("http://x/healthz"));
  return fromWorker.status + fromEntry.status + entry.port + lines.length;
}
