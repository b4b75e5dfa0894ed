/**
 * Mocking the API in your tests: the real handler over an in-memory store,
 * as a standalone server's handler with a control API and CORS
 * (`createMockServer`; the `mock` command serves it), with the request
 * journal, fault injection and state snapshots. This entry imports nothing
 * from MSW; the MSW handlers (`createMockApi`, for MSW 2 and 3) are in
 * `@callflow/api/mock/msw`.
 *
 * Because the mock is the real handler, it behaves like the service: a
 * deleted integration stays deleted, a bulk download returns a real ZIP of the
 * seeded transcripts, validation errors are the real ones.
 *
 * @example Node, Deno or Bun with MSW
 * ```ts ignore
 * import { setupServer } from "msw/node";
 * import { createMockApi } from "@callflow/api/mock/msw";
 *
 * const api = createMockApi({
 *   baseUrl: "https://api.example.com",
 *   fixtures: JSON.parse(await Deno.readTextFile("fixtures.json")),
 * });
 * const server = setupServer(...api.handlers);
 * server.listen({ onUnhandledRequest: "error" });
 * ```
 *
 * @module
 */
export {
  CONTROL_PREFIX,
  type ControlApiOptions,
  DEFAULT_FIXTURES_LIMIT,
  MAX_FIXTURES_DEPTH,
} from "./control_api.ts";
export { controlOpenApiDocument } from "./control_openapi.ts";
export { type Fault, type FaultRule, FaultRuleError } from "./faults.ts";
export { type Har, type HarEntry, type HarPair } from "./har.ts";
export { type JournalRow, type JournalRows } from "./journal_rows.ts";
export {
  type GuardOptions,
  isAllowedHost,
  isAllowedOrigin,
  isLoopbackHost,
} from "./guard.ts";
export {
  DEFAULT_JOURNAL_BODY_LIMIT,
  DEFAULT_JOURNAL_LIMIT,
  type JournalEntry,
} from "./journal.ts";
export {
  createMockServer,
  type MockServer,
  type MockServerOptions,
} from "./mock_server.ts";
export {
  DEFAULT_PROJECT,
  type MockState,
  type MockStateOptions,
  type NewCall,
  type NewFlow,
  type NewHttpIntegration,
  type NewIntegration,
  type NewMcpIntegration,
  type NewProject,
  type NewToken,
  type WithDefaults,
} from "./mock_state.ts";
export {
  type CallFixture,
  type Fixtures,
  FixturesError,
  type FixturesInput,
  type FlowFixture,
  type HttpIntegrationFixture,
  type IntegrationFixture,
  type McpIntegrationFixture,
  type ProjectFixture,
  type TokenFixture,
  type ToolFixture,
} from "../src/store/mod.ts";
export type { Role, Trigger } from "../src/store/mod.ts";
