/**
 * Mocking the API in your tests: the real handler over an in-memory store,
 * as MSW request handlers (`createMockApi`, for MSW 2 and 3 under Node, Deno,
 * Bun and browsers) or as a standalone server's handler with a control API
 * and CORS (`createMockServer`; the `mock` command serves it).
 *
 * Because the mock is the real handler, it behaves like the service: a
 * deleted integration stays deleted, a bulk download returns a real ZIP of the
 * seeded transcripts, validation errors are the real ones.
 *
 * @example Node, Deno or Bun with MSW
 * ```ts ignore
 * import { setupServer } from "msw/node";
 * import { createMockApi } from "@callflow/api/mock";
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
  createMockApi,
  type MockApi,
  type MockApiOptions,
} from "./create_mock_api.ts";
export { CONTROL_PREFIX } from "./control_api.ts";
export { createMockServer, type MockServer } from "./mock_server.ts";
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
} from "./mock_state.ts";
export type { MswHandler } from "./msw_handlers.ts";
export {
  type CallFixture,
  type Fixtures,
  FixturesError,
  type FixturesInput,
  type FlowFixture,
  type IntegrationFixture,
  type ProjectFixture,
  type TokenFixture,
} from "../src/fixtures.ts";
export type { Role, Trigger } from "../src/store.ts";
