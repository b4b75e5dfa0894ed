/**
 * The mock's data: the real handler over a {@linkcode MemoryStore} seeded from
 * fixtures, with a way back to those fixtures and typed helpers that add
 * records from a test. Shared by the MSW handlers and the standalone server.
 *
 * @module
 */
import {
  type CallFixture,
  type Fixtures,
  type FixturesInput,
  type FlowFixture,
  type IntegrationFixture,
  parseFixtures,
  type ProjectFixture,
  type TokenFixture,
} from "../src/store/fixtures.ts";
import {
  createHandler,
  type ErrorLogger,
  type Handler,
} from "../src/handler.ts";
import { MemoryStore } from "../src/store/memory_store.ts";
import { type Fault, type FaultRule, FaultSet } from "./faults.ts";
import { instrument } from "./instrument.ts";
import { type JournalEntry, RequestJournal } from "./journal.ts";
import type { Role, Trigger } from "../src/store/store.ts";
import { parseUuid } from "../src/validation/mod.ts";

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

/** A project to add; the id is generated when left out. */
export interface NewProject {
  /** The project's id (UUID). Default: a random one. */
  project_id?: string;
  /** The project's name. Default: `Project`. */
  name?: string;
}

/** A token to add. Default: a random token with the owner role. */
export interface NewToken {
  /**
   * The token as clients send it after `Bearer `. Default: `mock_` and 32
   * random hex digits.
   */
  token?: string;
  /** Default: the mock's default project. */
  project_id?: string;
  /** The token's role within its project. Default: `owner`. */
  role?: Role;
}

/** A call to add; the id is generated and `created_at` is now by default. */
export interface NewCall {
  /** The call's id (UUID). Default: a random one. */
  call_id?: string;
  /** Default: the mock's default project. */
  project_id?: string;
  /** ISO 8601 with an offset. */
  created_at?: string;
  /** The transcript's messages, in order. Default: none. */
  messages?: Record<string, unknown>[];
}

/** An MCP integration to add, with its tool cache. */
export interface NewMcpIntegration {
  /** Marks an MCP integration. */
  kind: "mcp";
  /** The integration's id (UUID). Default: a random one. */
  integration_id?: string;
  /** Default: the mock's default project. */
  project_id?: string;
  /** The integration's name. Default: `mcp integration`. */
  name?: string;
  /** The cached tools, each any JSON object. Default: none. */
  cached_tools?: Record<string, unknown>[];
}

/** An HTTP integration to add, with its HTTP tools. */
export interface NewHttpIntegration {
  /** Marks an HTTP integration. */
  kind: "http";
  /** The integration's id (UUID). Default: a random one. */
  integration_id?: string;
  /** Default: the mock's default project. */
  project_id?: string;
  /** The integration's name. Default: `http integration`. */
  name?: string;
  /** The HTTP tools, each with a random id unless given one. Default: none. */
  tools?: { tool_id?: string; name: string }[];
}

/** An integration of either kind to add. */
export type NewIntegration = NewMcpIntegration | NewHttpIntegration;

/** A workflow to add. */
export interface NewFlow {
  /** The workflow's id (UUID). Default: a random one. */
  flow_id?: string;
  /** Default: the mock's default project. */
  project_id?: string;
  /** The workflow's name. Default: `Flow`. */
  name?: string;
  /** What starts the workflow; `{ type: "EMPTY" }` for nothing. */
  trigger: Trigger;
}

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
export function createMockState(options: MockStateOptions = {}): MockState {
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

  /** Runs changes one after another; requests wait for all of them. */
  function change<T>(apply: () => Promise<T>): Promise<T> {
    const result = pending.then(apply);
    pending = result.then(() => undefined, () => undefined);
    return result;
  }

  /**
   * Upserts one record (the store checks it, its project included) and
   * returns it in canonical form.
   */
  function add<K extends keyof Fixtures>(
    key: K,
    entry: Fixtures[K][number],
  ): Promise<Fixtures[K][number]> {
    return change(async () => {
      const document: FixturesInput = { [key]: [entry] };
      await store.seed(document);
      // The store has checked the project: parse again for canonical form.
      const project = parseUuid(entry.project_id);
      const added = parseFixtures(document, {
        knownProjectIds: project.ok && key !== "projects" ? [project.uuid] : [],
      })[key][0]!;
      if (key === "tokens") {
        const token = added as TokenFixture;
        tokens.set(token.token, token);
      }
      return added;
    });
  }

  const inner = createHandler({
    store,
    ...(options.now === undefined ? {} : { now: options.now }),
    ...(options.logError === undefined ? {} : { logError: options.logError }),
  });

  const handler = instrument(
    async (request) => {
      await pending;
      return inner(request);
    },
    journal,
    faults,
  );

  return {
    store,
    handler,
    get requests() {
      return journal.entries();
    },
    clearRequests: () => journal.clear(),
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
    replaceFixtures: (input) => {
      let next: Fixtures;
      try {
        next = withDefaultProject(parseFixtures(input));
      } catch (error) {
        return Promise.reject(error);
      }
      return change(async () => {
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

function withDefaultProject(fixtures: Fixtures): Fixtures {
  return fixtures.projects.length > 0
    ? fixtures
    : { ...fixtures, projects: [DEFAULT_PROJECT] };
}
