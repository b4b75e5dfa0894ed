// Type-checked in the consumer project with tsc against the published .d.ts
// files (through the exports map's `types` conditions); never run.
import { setupServer } from "msw/node";
import { createHandler, demoFixtures, MemoryStore } from "@callflow/api";
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
