/**
 * The standalone mock server's Fetch handler: the real API over an in-memory
 * store, the control API under `/__mock/`, permissive CORS for the API, and
 * the guards that keep a mock on a laptop safe from web pages.
 *
 * @module
 */
import type { Middleware } from "../src/http/mod.ts";
import { controlApi, type ControlApiOptions } from "./control_api.ts";
import { allowCors } from "./cors.ts";
import { faultsOnTheWire } from "./drop_connection.ts";
import { guardHosts, type GuardOptions } from "./guard.ts";
import {
  createMockState,
  extendMockState,
  type MockState,
  type MockStateOptions,
} from "./mock_state.ts";

/** Options of {@linkcode createMockServer}. */
export interface MockServerOptions
  extends MockStateOptions, ControlApiOptions, GuardOptions {
  /**
   * Serve the live page at `/__mock/` (the journal, the state and the
   * faults, in a browser). Default: true.
   */
  ui?: boolean;
  /**
   * Steps the runtime's server adds ahead of the mock's own, as to
   * `createHandler` (the `mock` command: its runtime's steps, e.g. on Node
   * the one that says a request came without a body, `context.bodyless`,
   * and the `/docs` reference page). Default: none.
   */
  middleware?: readonly Middleware[];
}

/** The standalone mock: a Fetch handler, with the state it serves. */
export interface MockServer extends MockState {
  /**
   * The handler to serve: API, control API, CORS and guards. Its optional
   * second argument is the server's (e.g. @hono/node-server's `{ incoming }`),
   * used to drop a connection when a fault says so. A fault that drops or
   * cuts a connection is noted in one `console.info` line (Deno prints it
   * itself, on stderr), never with a stack trace.
   */
  readonly fetch: (request: Request, env?: unknown) => Promise<Response>;
}

/**
 * Creates the standalone mock server's handler (it does not listen: serve
 * `fetch` with the runtime's server, or use the `mock` command). Requests
 * under `/__mock/` control the state (see `GET /__mock/openapi.json`); every
 * other request goes to the real API handler. API responses allow any
 * origin; the control API only the mock's own origin and pages on localhost;
 * a `Host` the mock does not answer to (a loopback name, or one of
 * `allowedHosts`) is refused, by the API too unless `allowAnyHost`.
 *
 * @param options Fixtures, clock, error logger, journal size, fixtures size
 * limit, the names answered beside the loopback ones, and whether the API
 * answers any `Host`.
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
export function createMockServer(options: MockServerOptions = {}): MockServer {
  const state = createMockState(options, (state) => [
    ...options.middleware ?? [],
    faultsOnTheWire,
    guardHosts(options),
    allowCors(),
    controlApi(state, { ...options, ui: options.ui ?? true }),
  ]);
  return extendMockState(state, {
    fetch: (request: Request, env?: unknown) => state.handler(request, env),
  });
}
