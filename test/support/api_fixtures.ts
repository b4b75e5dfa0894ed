/**
 * The fixtures the API suite runs on: two projects, a token per role, calls
 * with and without messages, integrations of both kinds, one flow per
 * trigger kind, and the same kinds of things in the other project.
 *
 * @module
 */
import type { FixturesInput } from "../../src/store/fixtures.ts";

export const PROJECT = "11111111-1111-4111-8111-111111111111";
export const OTHER_PROJECT = "22222222-2222-4222-8222-222222222222";

export const TOKENS = {
  owner: "tok-owner",
  admin: "tok-admin",
  member: "tok-member",
  viewer: "tok-viewer",
  billing: "tok-billing",
  otherOwner: "tok-other-owner",
} as const;

export const CALLS = {
  /** Three messages, oldest call. */
  first: "aaaaaaaa-0000-4000-8000-000000000001",
  /** Two messages. */
  second: "aaaaaaaa-0000-4000-8000-000000000002",
  /** No messages. */
  silent: "aaaaaaaa-0000-4000-8000-000000000003",
  /** One message, newest call. */
  latest: "aaaaaaaa-0000-4000-8000-000000000004",
  /** One message, oldest of all. */
  oldest: "aaaaaaaa-0000-4000-8000-000000000005",
  /** The other project's call. */
  foreign: "bbbbbbbb-0000-4000-8000-000000000001",
  /** No call has this id. */
  unknown: "cccccccc-0000-4000-8000-000000000001",
} as const;

export const INTEGRATIONS = {
  mcp: "dddddddd-0000-4000-8000-000000000001",
  http: "dddddddd-0000-4000-8000-000000000002",
  foreign: "dddddddd-0000-4000-8000-000000000003",
  unknown: "dddddddd-0000-4000-8000-0000000000ff",
} as const;

export const TOOLS = {
  lookup: "eeeeeeee-0000-4000-8000-000000000001",
  cancel: "eeeeeeee-0000-4000-8000-000000000002",
  foreign: "eeeeeeee-0000-4000-8000-000000000003",
} as const;

export const FLOWS = {
  empty: "ffffffff-0000-4000-8000-000000000001",
  webhook: "ffffffff-0000-4000-8000-000000000002",
  callEnded: "ffffffff-0000-4000-8000-000000000003",
  schedule: "ffffffff-0000-4000-8000-000000000004",
  foreign: "ffffffff-0000-4000-8000-000000000005",
  /** `call_ended` in the other project, which has one call. */
  foreignCallEnded: "ffffffff-0000-4000-8000-000000000006",
  unknown: "ffffffff-0000-4000-8000-0000000000ff",
} as const;

/** The clock the suite's handler runs on. */
export const NOW = new Date("2026-03-10T12:34:56.000Z");

export const FIRST_MESSAGES = [
  { speaker: "agent", text: "Hello, Acme support.", at: 0 },
  {
    speaker: "customer",
    text: "Bonjour, j'ai une question — ça coûte combien ?",
  },
  { speaker: "agent", text: "It's 42 €. 👍", nested: { z: 1, a: [1, 2] } },
];

export const apiFixtures: FixturesInput = {
  projects: [
    { project_id: PROJECT, name: "Acme" },
    { project_id: OTHER_PROJECT, name: "Globex" },
  ],
  tokens: [
    { token: TOKENS.owner, project_id: PROJECT, role: "owner" },
    { token: TOKENS.admin, project_id: PROJECT, role: "admin" },
    { token: TOKENS.member, project_id: PROJECT, role: "member" },
    { token: TOKENS.viewer, project_id: PROJECT, role: "viewer" },
    { token: TOKENS.billing, project_id: PROJECT, role: "billing" },
    { token: TOKENS.otherOwner, project_id: OTHER_PROJECT, role: "owner" },
  ],
  calls: [
    {
      call_id: CALLS.first,
      project_id: PROJECT,
      created_at: "2026-03-01T10:00:00Z",
      messages: FIRST_MESSAGES,
    },
    {
      call_id: CALLS.second,
      project_id: PROJECT,
      created_at: "2026-03-02T10:00:00Z",
      messages: [{ speaker: "customer", text: "Hi" }, {
        speaker: "agent",
        text: "Hey",
      }],
    },
    {
      call_id: CALLS.silent,
      project_id: PROJECT,
      created_at: "2026-03-03T10:00:00Z",
      messages: [],
    },
    {
      call_id: CALLS.latest,
      project_id: PROJECT,
      created_at: "2026-03-04T10:00:00+02:00",
      messages: [{ speaker: "agent", text: "Latest" }],
    },
    {
      call_id: CALLS.oldest,
      project_id: PROJECT,
      created_at: "2026-01-01T00:00:00Z",
      messages: [{ speaker: "agent", text: "Oldest" }],
    },
    {
      call_id: CALLS.foreign,
      project_id: OTHER_PROJECT,
      created_at: "2026-03-05T10:00:00Z",
      messages: [{ speaker: "agent", text: "Globex only" }],
    },
  ],
  integrations: [
    {
      integration_id: INTEGRATIONS.mcp,
      project_id: PROJECT,
      kind: "mcp",
      name: "Docs MCP",
      cached_tools: [{ name: "search" }, { name: "fetch_page" }],
    },
    {
      integration_id: INTEGRATIONS.http,
      project_id: PROJECT,
      kind: "http",
      name: "Orders HTTP",
      tools: [
        { tool_id: TOOLS.lookup, name: "lookup_order" },
        { tool_id: TOOLS.cancel, name: "cancel_order" },
      ],
    },
    {
      integration_id: INTEGRATIONS.foreign,
      project_id: OTHER_PROJECT,
      kind: "http",
      name: "Globex HTTP",
      tools: [{ tool_id: TOOLS.foreign, name: "globex_tool" }],
    },
  ],
  flows: [
    {
      flow_id: FLOWS.empty,
      project_id: PROJECT,
      name: "Draft",
      trigger: { type: "EMPTY" },
    },
    {
      flow_id: FLOWS.webhook,
      project_id: PROJECT,
      name: "Webhook",
      trigger: {
        type: "webhook",
        sample_payload: { order: { id: 7, items: ["a", "b"] }, ok: true },
      },
    },
    {
      flow_id: FLOWS.callEnded,
      project_id: PROJECT,
      name: "After calls",
      trigger: { type: "call_ended" },
    },
    {
      flow_id: FLOWS.schedule,
      project_id: PROJECT,
      name: "Weekdays 9:00 Paris",
      trigger: {
        type: "schedule",
        cron: "0 9 * * 1-5",
        timezone: "Europe/Paris",
      },
    },
    {
      flow_id: FLOWS.foreign,
      project_id: OTHER_PROJECT,
      name: "Globex webhook",
      trigger: { type: "webhook", sample_payload: { globex: true } },
    },
    {
      flow_id: FLOWS.foreignCallEnded,
      project_id: OTHER_PROJECT,
      name: "Globex calls",
      trigger: { type: "call_ended" },
    },
  ],
};
