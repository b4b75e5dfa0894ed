/**
 * The mock's data: the real handler over a {@linkcode MemoryStore} seeded from
 * fixtures, with a way back to those fixtures and typed helpers that add
 * records from a test. Shared by the MSW handlers and the standalone server.
 *
 * @module
 */
import {
  type CallFixture,
  checkFixtures,
  type Fixtures,
  type FixturesInput,
  type FlowFixture,
  type HttpIntegrationFixture,
  type IntegrationFixture,
  type McpIntegrationFixture,
  parseFixtures,
  type ProjectFixture,
  resolveFixtures,
  type TokenFixture,
  type ToolFixture,
} from "../src/store/mod.ts";
import {
  createHandler,
  type ErrorLogger,
  type Handler,
} from "../src/handler.ts";
import { MemoryStore } from "../src/store/mod.ts";
import { type Fault, type FaultRule, FaultSet } from "./faults.ts";
import { injectFaults } from "./inject_faults.ts";
import {
  type JournalEntry,
  journalRequests,
  RequestJournal,
} from "./journal.ts";
import type { MockStep } from "./mock_context.ts";
import { type Har, journalHar } from "./har.ts";
import { type JournalRows, journalRows } from "./journal_rows.ts";

/** The project the mock adds when its fixtures hold none. */
export const DEFAULT_PROJECT: ProjectFixture = {
  project_id: "00000000-0000-4000-8000-000000000001",
  name: "Mock project",
};

/** Options of {@linkcode createMockState}. */
export interface MockStateOptions {
  /**
   * The state to start from and to go back to on `reset()`, in the public
   * fixtures format. Default: one empty project ({@linkcode DEFAULT_PROJECT}).
   */
  fixtures?: FixturesInput;
  /** The handler's clock, for schedule triggers. Default: now. */
  now?: () => Date;
  /** Where the handler reports unexpected failures. Default: console. */
  logError?: ErrorLogger;
  /** How many requests the journal keeps, oldest dropped first. Default 1000. */
  journalLimit?: number;
  /** How many bytes of each request body the journal keeps. Default 65536. */
  journalBodyLimit?: number;
}

/**
 * `T` with the keys `K` left optional: a record to add, whose helper fills in
 * what is left out.
 */
export type WithDefaults<T, K extends keyof T> =
  & Omit<T, K>
  & Partial<Pick<T, K>>;

/** A project to add. Defaults: a random `project_id`, the name `Project`. */
export type NewProject = Partial<ProjectFixture>;

/**
 * A token to add. Defaults: `mock_` and 32 random hex digits as the `token`,
 * the mock's default project, the `owner` role.
 */
export type NewToken = Partial<TokenFixture>;

/**
 * A call to add. Defaults: a random `call_id`, the mock's default project,
 * `created_at` now, no messages.
 */
export type NewCall = Partial<CallFixture>;

/**
 * An MCP integration to add, with its tool cache. Defaults: a random
 * `integration_id`, the mock's default project, the name `mcp integration`,
 * no cached tools.
 */
export type NewMcpIntegration = WithDefaults<
  McpIntegrationFixture,
  "integration_id" | "project_id" | "name" | "cached_tools"
>;

/**
 * An HTTP integration to add, with its HTTP tools. Defaults: a random
 * `integration_id`, the mock's default project, the name `http integration`,
 * no tools; each tool has a random `tool_id` unless given one.
 */
export type NewHttpIntegration = WithDefaults<
  Omit<HttpIntegrationFixture, "tools"> & {
    tools: WithDefaults<ToolFixture, "tool_id">[];
  },
  "integration_id" | "project_id" | "name" | "tools"
>;

/** An integration of either kind to add. */
export type NewIntegration = NewMcpIntegration | NewHttpIntegration;

/**
 * A workflow to add; its `trigger` is required (`{ type: "EMPTY" }` for
 * nothing). Defaults: a random `flow_id`, the mock's default project, the
 * name `Flow`.
 */
export type NewFlow = WithDefaults<
  FlowFixture,
  "flow_id" | "project_id" | "name"
>;

/** The mock's data and the helpers that change it. */
export interface MockState {
  /** The store the handler runs on (inspect it in assertions). */
  readonly store: MemoryStore;
  /** The real API handler; waits for pending changes before it answers. */
  readonly handler: Handler;
  /** The fixtures that `reset()` goes back to, in canonical form. */
  readonly fixtures: Fixtures;
  /** The project that helpers use when given no `project_id`. */
  readonly projectId: string;
  /** The requests answered so far, oldest first (the last `journalLimit`). */
  readonly requests: JournalEntry[];
  /** Forgets the requests answered so far. */
  clearRequests(): void;
  /**
   * The journal as a HAR 1.2 document (see `GET /__mock/journal.har`), once
   * the answers' bodies were read; with `after`, only the requests numbered
   * above it (each entry's `_seq`; the log's `_seq` is the newest's).
   */
  har(after?: number, limit?: number): Promise<Har>;
  /**
   * The journal's entries after `after` as the live page's table shows
   * them (see `GET /__mock/rows`): a few fields each, no headers or bodies.
   */
  rows(after?: number): JournalRows;
  /**
   * Adds a fault rule: matching requests get an error status, a delay, a
   * dropped connection or a cut body, `times` times or until cleared.
   *
   * @throws {FaultRuleError} naming the field that breaks the format.
   */
  inject(rule: FaultRule): Fault;
  /** The fault rules in force, oldest first. */
  readonly faults: Fault[];
  /** Removes one fault rule by id, or every rule; whether any was removed. */
  clearFaults(id?: string): boolean;
  /** The current state as a fixtures document (`replaceFixtures` restores it). */
  snapshot(): Promise<Fixtures>;
  /** Resolves when every change made so far has been applied. */
  ready(): Promise<void>;
  /** Back to the fixtures: drops every change, the journal and the faults. */
  reset(): Promise<void>;
  /**
   * Replaces the whole state, and what `reset()` goes back to, with new
   * fixtures. The fixtures are checked whole first: bad ones change nothing.
   *
   * @throws {FixturesError} naming the offending path.
   */
  replaceFixtures(fixtures: FixturesInput): Promise<void>;
  /** Adds a project. */
  addProject(project?: NewProject): Promise<ProjectFixture>;
  /** Adds a bearer token; use the returned `token` in `Authorization`. */
  addToken(token?: NewToken): Promise<TokenFixture>;
  /** Adds (or replaces) a call with its transcript. */
  addCall(call?: NewCall): Promise<CallFixture>;
  /** Appends messages to an existing call's transcript. */
  addMessages(
    callId: string,
    messages: Record<string, unknown>[],
  ): Promise<void>;
  /** Adds (or replaces) an integration with its tools. */
  addIntegration(integration: NewIntegration): Promise<IntegrationFixture>;
  /** Adds (or replaces) a workflow. */
  addFlow(flow: NewFlow): Promise<FlowFixture>;
}

/**
 * Creates the mock's state: validates the fixtures at once (throwing
 * `FixturesError` on bad ones) and seeds the store in the background; the
 * handler waits for the seeding, and for every later change, before it
 * answers, so nothing needs awaiting before the first request.
 *
 * @param options Fixtures, clock and error logger.
 * @param outerSteps The steps to run ahead of the journal, given the state
 *   (the standalone server's guard, CORS and control API). Default: none.
 * @returns The state, its handler and its helpers.
 * @throws {FixturesError} when the fixtures break the format.
 *
 * @example Adding a call from a test
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMockState } from "./mock_state.ts";
 *
 * const state = createMockState();
 * const { token } = await state.addToken({ role: "viewer" });
 * const { call_id } = await state.addCall({ messages: [{ text: "Hi" }] });
 * const response = await state.handler(
 *   new Request(`http://mock/v1/call/${call_id}/message`, {
 *     headers: { authorization: `Bearer ${token}` },
 *   }),
 * );
 * assert.deepEqual(await response.json(), [{ text: "Hi" }]);
 * ```
 */
export function createMockState(
  options: MockStateOptions = {},
  outerSteps: (state: MockState) => MockStep[] = () => [],
): MockState {
  const store = new MemoryStore();
  let fixtures = withDefaultProject(parseFixtures(options.fixtures ?? {}));
  let pending: Promise<void> = store.seed(fixtures);
  /** The tokens in clear (the store keeps hashes), for `snapshot()`. */
  let tokens = new Map(fixtures.tokens.map((token) => [token.token, token]));
  const journal = new RequestJournal({
    ...(options.journalLimit === undefined
      ? {}
      : { limit: options.journalLimit }),
    ...(options.journalBodyLimit === undefined
      ? {}
      : { bodyLimit: options.journalBodyLimit }),
  });
  const faults = new FaultSet();

  // How many changes are queued or running: with none, a request skips the
  // wait on `pending` (a turn of the microtask queue per request).
  let changing = 1;
  pending = pending.finally(() => changing -= 1);

  /** Runs changes one after another; requests wait for all of them. */
  function change<T>(apply: () => Promise<T>): Promise<T> {
    changing += 1;
    const result = pending.then(apply);
    pending = result.then(() => undefined, () => undefined).finally(() =>
      changing -= 1
    );
    return result;
  }

  /**
   * Upserts one record, checked once (its project against the store's), and
   * returns it in canonical form.
   */
  function add<K extends keyof Fixtures>(
    key: K,
    entry: Fixtures[K][number],
  ): Promise<Fixtures[K][number]> {
    return change(async () => {
      const fixtures = resolveFixtures(
        checkFixtures({ [key]: [entry] }),
        (projectId) => store.hasProject(projectId),
      );
      // One record added: a project added again keeps its tokens.
      await store.seed(fixtures, { keepOtherTokens: true });
      const added = fixtures[key][0]!;
      if (key === "tokens") {
        const token = added as TokenFixture;
        tokens.set(token.token, token);
      }
      return added;
    });
  }

  const state: MockState = {
    store,
    get handler() {
      return handler;
    },
    get requests() {
      return journal.entries();
    },
    clearRequests: () => journal.clear(),
    har: (after = 0, limit = Infinity) =>
      journalHar({
        records: journal.records(after, limit),
        seq: journal.seq,
        clears: journal.clears,
        bodyLimit: journal.bodyLimit,
      }),
    rows: (after = 0) => journalRows(journal, after),
    inject: (rule) => faults.add(rule),
    get faults() {
      return faults.list();
    },
    clearFaults: (id) => faults.clear(id),
    snapshot: () =>
      change(() => Promise.resolve(store.snapshot([...tokens.values()]))),
    get fixtures() {
      return fixtures;
    },
    get projectId() {
      return fixtures.projects[0]!.project_id;
    },
    ready: () => change(() => Promise.resolve()),
    reset: () => {
      journal.clear();
      faults.clear();
      return change(async () => {
        store.clear();
        tokens = new Map(fixtures.tokens.map((token) => [token.token, token]));
        await store.seed(fixtures);
      });
    },
    // Async, so that bad fixtures reject the promise rather than throw.
    replaceFixtures: async (input) => {
      const next = withDefaultProject(parseFixtures(input));
      await change(async () => {
        fixtures = next;
        tokens = new Map(next.tokens.map((token) => [token.token, token]));
        store.clear();
        await store.seed(next);
      });
    },
    addProject: (project = {}) =>
      add("projects", {
        project_id: project.project_id ?? crypto.randomUUID(),
        name: project.name ?? "Project",
      }),
    addToken: (token = {}) =>
      add("tokens", {
        token: token.token ?? `mock_${crypto.randomUUID().replaceAll("-", "")}`,
        project_id: token.project_id ?? fixtures.projects[0]!.project_id,
        role: token.role ?? "owner",
      }),
    addCall: (call = {}) =>
      add("calls", {
        call_id: call.call_id ?? crypto.randomUUID(),
        project_id: call.project_id ?? fixtures.projects[0]!.project_id,
        created_at: call.created_at ?? new Date().toISOString(),
        messages: call.messages ?? [],
      }),
    addMessages: (callId, messages) =>
      change(() => {
        store.appendMessages(callId, messages);
        return Promise.resolve();
      }),
    addIntegration: (integration) => {
      const base = {
        integration_id: integration.integration_id ?? crypto.randomUUID(),
        project_id: integration.project_id ?? fixtures.projects[0]!.project_id,
        name: integration.name ?? `${integration.kind} integration`,
      };
      return add(
        "integrations",
        integration.kind === "mcp"
          ? {
            ...base,
            kind: "mcp",
            cached_tools: integration.cached_tools ?? [],
          }
          : {
            ...base,
            kind: "http",
            tools: (integration.tools ?? []).map((tool) => ({
              tool_id: tool.tool_id ?? crypto.randomUUID(),
              name: tool.name,
            })),
          },
      );
    },
    addFlow: (flow) =>
      add("flows", {
        flow_id: flow.flow_id ?? crypto.randomUUID(),
        project_id: flow.project_id ?? fixtures.projects[0]!.project_id,
        name: flow.name ?? "Flow",
        trigger: flow.trigger,
      }),
  };
  // The API answers once the changes queued before the request are made.
  const settled: MockStep = (_context, next) =>
    changing === 0 ? next() : pending.then(next);
  const handler = createHandler({
    store,
    middleware: [
      ...outerSteps(state),
      journalRequests(journal),
      injectFaults(faults),
      settled,
    ],
    ...(options.now === undefined ? {} : { now: options.now }),
    ...(options.logError === undefined ? {} : { logError: options.logError }),
  });
  return state;
}

/**
 * The state with more properties, its `fixtures` and `projectId` kept live (a
 * spread would copy their values once).
 *
 * @param state The mock's state.
 * @param extra What to add, e.g. `handlers`.
 * @returns One object with both.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMockState, extendMockState } from "./mock_state.ts";
 *
 * const state = createMockState();
 * const mock = extendMockState(state, { name: "mock" });
 * assert.equal(mock.name, "mock");
 * assert.equal(mock.projectId, state.projectId);
 * ```
 */
export function extendMockState<T extends object>(
  state: MockState,
  extra: T,
): MockState & T {
  return {
    ...state,
    get fixtures() {
      return state.fixtures;
    },
    get projectId() {
      return state.projectId;
    },
    get requests() {
      return state.requests;
    },
    get faults() {
      return state.faults;
    },
    ...extra,
  };
}

/**
 * The fixtures, or the default project alone when they hold no project (then
 * they hold nothing: every entry belongs to a project of the document).
 */
function withDefaultProject(fixtures: Fixtures): Fixtures {
  return fixtures.projects.length > 0
    ? fixtures
    : parseFixtures({ projects: [DEFAULT_PROJECT] });
}
