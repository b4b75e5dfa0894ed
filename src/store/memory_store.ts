/**
 * The in-memory store: the embedded default, and the mock server's state.
 *
 * @module
 */
import {
  checkFixtures,
  type Fixtures,
  type FixturesInput,
  resolveFixtures,
  type SeedOptions,
  type TokenFixture,
  type ToolFixture,
} from "./fixtures.ts";
import type {
  CallSummary,
  Flow,
  Grant,
  Store,
  TranscriptChunk,
} from "./store.ts";
import { hashToken } from "./sha256.ts";

interface StoredCall {
  projectId: string;
  createdAt: string;
  /** Each message as JSON text. */
  messages: string[];
}

interface StoredIntegration {
  projectId: string;
  kind: "mcp" | "http";
  name: string;
}

/** What an integration holds besides itself; both empty once it is deleted. */
export interface IntegrationTools {
  /** The HTTP tools of an HTTP integration. */
  tools: ToolFixture[];
  /** The tool cache of an MCP integration. */
  cachedTools: Record<string, unknown>[];
}

/**
 * A {@linkcode Store} held in memory, seeded from fixtures. Tools and the MCP
 * tool cache live in their own tables, keyed to their integration, so that a
 * delete really cascades.
 *
 * @example Serving the API from memory
 * ```ts
 * import { createHandler, MemoryStore } from "../../mod.ts";
 *
 * const store = new MemoryStore();
 * await store.seed({
 *   projects: [{ project_id: "0b6f1c2e-8d3a-4c55-9a57-3e3c2d1f0a11", name: "Acme" }],
 *   tokens: [{
 *     token: "secret",
 *     project_id: "0b6f1c2e-8d3a-4c55-9a57-3e3c2d1f0a11",
 *     role: "owner",
 *   }],
 * });
 * const handler = createHandler({ store });
 * ```
 */
export class MemoryStore implements Store {
  #projects = new Map<string, string>();
  #grants = new Map<string, Grant>();
  #calls = new Map<string, StoredCall>();
  #integrations = new Map<string, StoredIntegration>();
  #httpTools = new Map<string, ToolFixture & { integrationId: string }>();
  #mcpToolCache = new Map<string, string[]>();
  #flows = new Map<string, Flow>();

  /**
   * Adds or replaces the records of a fixtures document (checked whole first:
   * a bad document changes nothing; fixtures from `parseFixtures` are not
   * parsed again). Entries may refer to projects the store already holds.
   * The document is the truth for the tokens of the projects it declares:
   * their other tokens are revoked (see {@linkcode SeedOptions}).
   *
   * @param input Fixtures, any list left out.
   * @param options `keepOtherTokens: true` revokes nothing.
   * @throws {FixturesError} naming the first offending path.
   */
  async seed(
    input: FixturesInput | Fixtures,
    options: SeedOptions = {},
  ): Promise<void> {
    const fixtures = resolveFixtures(
      checkFixtures(input),
      (projectId) => this.#projects.has(projectId),
    );
    const tokenHashes = await Promise.all(
      fixtures.tokens.map(({ token }) => hashToken(token)),
    );
    for (const project of fixtures.projects) {
      this.#projects.set(project.project_id, project.name);
    }
    if (!options.keepOtherTokens) {
      const declared = new Set(fixtures.projects.map((p) => p.project_id));
      for (const [hash, grant] of this.#grants) {
        if (declared.has(grant.projectId)) this.#grants.delete(hash);
      }
    }
    fixtures.tokens.forEach((token, i) => {
      this.#grants.set(tokenHashes[i]!, {
        projectId: token.project_id,
        role: token.role,
      });
    });
    for (const call of fixtures.calls) {
      this.#calls.set(call.call_id, {
        projectId: call.project_id,
        createdAt: call.created_at,
        messages: call.messages.map((message) => JSON.stringify(message)),
      });
    }
    for (const integration of fixtures.integrations) {
      this.#removeIntegration(integration.integration_id);
      this.#integrations.set(integration.integration_id, {
        projectId: integration.project_id,
        kind: integration.kind,
        name: integration.name,
      });
      if (integration.kind === "http") {
        for (const tool of integration.tools) {
          this.#httpTools.set(tool.tool_id, {
            ...tool,
            integrationId: integration.integration_id,
          });
        }
      } else {
        this.#mcpToolCache.set(
          integration.integration_id,
          integration.cached_tools.map((tool) => JSON.stringify(tool)),
        );
      }
    }
    for (const flow of fixtures.flows) {
      this.#flows.set(flow.flow_id, {
        flowId: flow.flow_id,
        projectId: flow.project_id,
        name: flow.name,
        // The store's own copy, as for every other record.
        trigger: { ...flow.trigger },
      });
    }
  }

  /** Forgets everything. */
  clear(): void {
    for (
      const table of [
        this.#projects,
        this.#grants,
        this.#calls,
        this.#integrations,
        this.#httpTools,
        this.#mcpToolCache,
        this.#flows,
      ]
    ) table.clear();
  }

  /**
   * Appends messages to an existing call's transcript.
   *
   * @param callId The call, in canonical (lowercase hyphenated) form.
   * @param messages JSON objects, appended in order.
   * @throws {Error} when the call does not exist.
   */
  appendMessages(callId: string, messages: Record<string, unknown>[]): void {
    const call = this.#calls.get(callId);
    if (call === undefined) {
      throw new Error(`Cannot append messages: call "${callId}" not found`);
    }
    for (const message of messages) call.messages.push(JSON.stringify(message));
  }

  /**
   * What an integration holds: its HTTP tools and its MCP tool cache, looked
   * up in their own tables (so both are empty after a delete).
   */
  integrationTools(integrationId: string): IntegrationTools {
    const tools = [...this.#httpTools.values()]
      .filter((tool) => tool.integrationId === integrationId)
      .map(({ tool_id, name }) => ({ tool_id, name }));
    const cachedTools = (this.#mcpToolCache.get(integrationId) ?? []).map(
      (tool) => JSON.parse(tool) as Record<string, unknown>,
    );
    return { tools, cachedTools };
  }

  /**
   * Whether the store holds a project.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { MemoryStore } from "./memory_store.ts";
   *
   * const store = new MemoryStore();
   * const project_id = "0b6f1c2e-8d3a-4c55-9a57-3e3c2d1f0a11";
   * await store.seed({ projects: [{ project_id, name: "Acme" }] });
   * assert.equal(store.hasProject(project_id), true);
   * ```
   */
  hasProject(projectId: string): boolean {
    return this.#projects.has(projectId);
  }

  /** Whether the store holds an integration, whatever its project. */
  hasIntegration(integrationId: string): boolean {
    return this.#integrations.has(integrationId);
  }

  /** Looks up a token's grant in memory by the token's SHA-256 hex digest. */
  findGrant(tokenHash: string): Promise<Grant | undefined> {
    return Promise.resolve(this.#grants.get(tokenHash));
  }

  /** A copy of a call's messages as JSON texts, or `undefined`. */
  callMessages(
    projectId: string,
    callId: string,
  ): Promise<string[] | undefined> {
    const call = this.#call(projectId, callId);
    return Promise.resolve(call && [...call.messages]);
  }

  /** Yields one chunk per requested call that has messages, in order. */
  async *transcripts(
    projectId: string,
    callIds: readonly string[],
  ): AsyncIterable<TranscriptChunk> {
    for (const callId of callIds) {
      const call = this.#call(projectId, callId);
      if (call !== undefined && call.messages.length > 0) {
        yield { callId, messages: [...call.messages] };
      }
    }
  }

  /** Deletes the integration with its HTTP tools and its MCP tool cache. */
  deleteIntegration(
    projectId: string,
    integrationId: string,
  ): Promise<boolean> {
    const integration = this.#integrations.get(integrationId);
    if (integration?.projectId !== projectId) return Promise.resolve(false);
    this.#removeIntegration(integrationId);
    return Promise.resolve(true);
  }

  /** A workflow of the project, or `undefined`. */
  findFlow(projectId: string, flowId: string): Promise<Flow | undefined> {
    const flow = this.#flows.get(flowId);
    return Promise.resolve(flow?.projectId === projectId ? flow : undefined);
  }

  /** The project's most recent calls, newest first, then by call id. */
  recentCalls(projectId: string, limit: number): Promise<CallSummary[]> {
    const calls: CallSummary[] = [];
    for (const [callId, call] of this.#calls) {
      if (call.projectId === projectId) {
        calls.push({
          callId,
          createdAt: call.createdAt,
          messageCount: call.messages.length,
        });
      }
    }
    calls.sort((a, b) =>
      b.createdAt.localeCompare(a.createdAt) || a.callId.localeCompare(b.callId)
    );
    return Promise.resolve(calls.slice(0, limit));
  }

  /** Always ready: memory needs no connection. */
  ping(): Promise<void> {
    return Promise.resolve();
  }

  /**
   * The store's records as a fixtures document that {@linkcode seed} would
   * restore, in insertion order. The store keeps only tokens' hashes, so the
   * caller supplies the tokens in clear.
   *
   * @param tokens The tokens to list.
   * @returns Every project, call, integration (with its tools) and flow.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { MemoryStore } from "./memory_store.ts";
   *
   * const store = new MemoryStore();
   * const project_id = "0b6f1c2e-8d3a-4c55-9a57-3e3c2d1f0a11";
   * await store.seed({ projects: [{ project_id, name: "Acme" }] });
   * assert.deepEqual(store.snapshot([]).projects, [{ project_id, name: "Acme" }]);
   * ```
   */
  snapshot(tokens: readonly TokenFixture[]): Fixtures {
    return {
      projects: [...this.#projects].map(([project_id, name]) => ({
        project_id,
        name,
      })),
      tokens: tokens.map((token) => ({ ...token })),
      calls: [...this.#calls].map(([call_id, call]) => ({
        call_id,
        project_id: call.projectId,
        created_at: call.createdAt,
        messages: call.messages.map((text) =>
          JSON.parse(text) as Record<string, unknown>
        ),
      })),
      integrations: [...this.#integrations].map(([integration_id, stored]) => {
        const base = {
          integration_id,
          project_id: stored.projectId,
          name: stored.name,
        };
        const { tools, cachedTools } = this.integrationTools(integration_id);
        return stored.kind === "http"
          ? { ...base, kind: "http" as const, tools }
          : { ...base, kind: "mcp" as const, cached_tools: cachedTools };
      }),
      flows: [...this.#flows.values()].map((flow) => ({
        flow_id: flow.flowId,
        project_id: flow.projectId,
        name: flow.name,
        trigger: flow.trigger,
      })),
    };
  }

  #call(projectId: string, callId: string): StoredCall | undefined {
    const call = this.#calls.get(callId);
    return call?.projectId === projectId ? call : undefined;
  }

  #removeIntegration(integrationId: string): void {
    this.#integrations.delete(integrationId);
    this.#mcpToolCache.delete(integrationId);
    for (const [toolId, tool] of this.#httpTools) {
      if (tool.integrationId === integrationId) this.#httpTools.delete(toolId);
    }
  }
}
