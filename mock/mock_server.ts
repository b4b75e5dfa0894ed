/**
 * The standalone mock server's Fetch handler: the real API over an in-memory
 * store, the control API under `/__mock/`, and permissive CORS.
 *
 * @module
 */
import type { Handler } from "../src/handler.ts";
import { withControlApi } from "./control_api.ts";
import { withCors } from "./cors.ts";
import {
  createMockState,
  extendMockState,
  type MockState,
  type MockStateOptions,
} from "./mock_state.ts";

/** The standalone mock: a Fetch handler, with the state it serves. */
export interface MockServer extends MockState {
  /** The handler to serve: API, control API and CORS. */
  readonly fetch: Handler;
}

/**
 * Creates the standalone mock server's handler (it does not listen: serve
 * `fetch` with the runtime's server, or use the `mock` command). Requests to
 * `/__mock/reset` and `/__mock/fixtures` control the state; every other
 * request goes to the real API handler; every response allows any origin.
 *
 * @param options Fixtures, clock and error logger.
 * @returns The handler and the state's helpers.
 * @throws {FixturesError} when the fixtures break the format.
 *
 * @example Serving the mock under Deno
 * ```ts ignore
 * import { createMockServer } from "@callflow/api/mock";
 *
 * const fixtures = JSON.parse(await Deno.readTextFile("fixtures.json"));
 * Deno.serve({ port: 4010 }, createMockServer({ fixtures }).fetch);
 * ```
 */
export function createMockServer(options: MockStateOptions = {}): MockServer {
  const state = createMockState(options);
  return extendMockState(state, { fetch: withCors(withControlApi(state)) });
}
