/**
 * The MSW entry, `@callflow/api/mock/msw`: `createMockApi`, the real API
 * handler over an in-memory store as MSW request handlers (MSW 2 or 3, which
 * the project installs), with the helpers a test needs to shape its data,
 * the request journal, fault injection and state snapshots. Everything else
 * of the mock (fixtures types, `createMockServer`) is in
 * `@callflow/api/mock`, which does not need MSW.
 *
 * @example Node, Deno or Bun with MSW 2
 * ```ts ignore
 * import { setupServer } from "msw/node";
 * import { createMockApi } from "@callflow/api/mock/msw";
 *
 * const api = createMockApi({ baseUrl: "https://api.example.com" });
 * const server = setupServer(...api.handlers);
 * server.listen({ onUnhandledRequest: "error" });
 * ```
 *
 * @module
 */
import {
  createMockState,
  extendMockState,
  type MockState,
  type MockStateOptions,
} from "./mock_state.ts";
import { createMswHandlers, type MswHandler } from "./msw_handlers.ts";

export type { MswHandler } from "./msw_handlers.ts";
export type { Har, HarEntry, HarPair } from "./har.ts";
export type { JournalRow, JournalRows } from "./journal_rows.ts";

/** Options of {@linkcode createMockApi}. */
export interface MockApiOptions extends MockStateOptions {
  /**
   * Where the API is mocked, e.g. `https://api.example.com`: every request
   * under it goes to the mock. A path in it (`https://example.com/api`) is
   * the API's root. In a browser a path alone (`/api`) is relative to the page.
   */
  baseUrl: string;
}

/** A mocked API: its MSW handlers, its state and the helpers to change it. */
export interface MockApi extends MockState {
  /** The MSW handlers: `setupServer(...api.handlers)`. */
  readonly handlers: MswHandler[];
  /** The base URL the handlers answer under, without a trailing slash. */
  readonly baseUrl: string;
}

/**
 * Mocks the API with MSW, backed by the real handler over an in-memory store
 * seeded with `fixtures`. It behaves like the service: a deleted integration
 * stays deleted until `reset()`, a bulk download returns a real ZIP, and
 * validation errors are the real ones.
 *
 * `createMockApi` checks the fixtures at once (throwing `FixturesError` on bad
 * ones); the handlers wait for the store to be seeded, and for every helper
 * call made before the request, so the result can be used straight away.
 *
 * @param options The base URL, the fixtures, and optionally a clock.
 * @returns The handlers, the store, `reset()` and the helpers.
 * @throws {FixturesError} when the fixtures break the format.
 *
 * @example With MSW's setupServer under Node, Deno or Bun
 * ```ts ignore
 * import assert from "node:assert/strict";
 * import { setupServer } from "msw/node";
 * import { createMockApi } from "@callflow/api/mock/msw";
 *
 * const api = createMockApi({ baseUrl: "https://api.example.com" });
 * const server = setupServer(...api.handlers);
 * server.listen();
 *
 * const { token } = await api.addToken({ role: "owner" });
 * const { call_id } = await api.addCall({ messages: [{ text: "Hello" }] });
 * const response = await fetch(
 *   `https://api.example.com/v1/call/${call_id}/message`,
 *   { headers: { authorization: `Bearer ${token}` } },
 * );
 * assert.deepEqual(await response.json(), [{ text: "Hello" }]);
 *
 * await api.reset();
 * server.close();
 * ```
 */
export function createMockApi(options: MockApiOptions): MockApi {
  const state = createMockState(options);
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const handlers = createMswHandlers(baseUrl, state.handler);
  return extendMockState(state, { handlers, baseUrl });
}
