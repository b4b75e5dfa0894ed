/**
 * The built-in demo data the server starts with when no `FIXTURES` file is
 * given: two projects (so tenant isolation can be tried), a token per role,
 * calls with and without messages, one integration of each kind and one flow
 * per trigger kind. Ids are fixed so the README's curl examples work.
 *
 * @module
 */
import { type Fixtures, markChecked } from "./fixtures.ts";

const ACME = "7d3c1a52-0b8e-4f2a-9c61-2e5d8b4a7f10";
const GLOBEX = "c2a9e5f4-6b1d-4e7a-8f3c-9d0b1a2e3f45";

/**
 * Demo fixtures. Tokens are `demo-<role>` for Acme and `demo-globex-owner`.
 * Canonical already, so seeding does not check them again (`markChecked`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { demoFixtures } from "./demo_fixtures.ts";
 *
 * assert.deepEqual(demoFixtures.tokens.map((t) => t.token), [
 *   "demo-owner",
 *   "demo-admin",
 *   "demo-member",
 *   "demo-viewer",
 *   "demo-billing",
 *   "demo-globex-owner",
 * ]);
 * ```
 */
export const demoFixtures: Fixtures = markChecked({
  projects: [
    { project_id: ACME, name: "Acme" },
    { project_id: GLOBEX, name: "Globex" },
  ],
  tokens: [
    ...(["owner", "admin", "member", "viewer", "billing"] as const).map((
      role,
    ) => ({ token: `demo-${role}`, project_id: ACME, role })),
    { token: "demo-globex-owner", project_id: GLOBEX, role: "owner" },
  ],
  calls: [
    {
      call_id: "1f0e8d7c-6b5a-4493-8281-706f5e4d3c2b",
      project_id: ACME,
      created_at: "2026-11-20T09:15:00.000Z",
      messages: [
        { role: "agent", text: "Thanks for calling Acme, how can I help?" },
        { role: "customer", text: "My order hasn't arrived yet." },
        { role: "agent", text: "Let me look that up for you." },
      ],
    },
    {
      call_id: "2a3b4c5d-6e7f-4801-9a2b-3c4d5e6f7a8b",
      project_id: ACME,
      created_at: "2026-11-21T14:02:30.000Z",
      messages: [
        { role: "customer", text: "I'd like to change my plan." },
        { role: "agent", text: "Sure, which plan would you like?" },
      ],
    },
    {
      call_id: "3c4d5e6f-7a8b-49c0-8d1e-2f3a4b5c6d7e",
      project_id: ACME,
      created_at: "2026-11-21T16:45:00.000Z",
      messages: [],
    },
    {
      call_id: "4e5f6a7b-8c9d-4e0f-a1b2-c3d4e5f6a7b8",
      project_id: GLOBEX,
      created_at: "2026-11-19T11:00:00.000Z",
      messages: [{ role: "agent", text: "Globex support, hello." }],
    },
  ],
  integrations: [
    {
      integration_id: "5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d",
      project_id: ACME,
      kind: "mcp",
      name: "Knowledge base (MCP)",
      cached_tools: [
        { name: "search_articles", description: "Full-text article search" },
        { name: "get_article", description: "One article by id" },
      ],
    },
    {
      integration_id: "6b7c8d9e-0f1a-4b2c-9d3e-4f5a6b7c8d9e",
      project_id: ACME,
      kind: "http",
      name: "Order service (HTTP)",
      tools: [
        { tool_id: "7c8d9e0f-1a2b-4c3d-8e4f-5a6b7c8d9e0f", name: "get_order" },
        {
          tool_id: "8d9e0f1a-2b3c-4d4e-9f5a-6b7c8d9e0f1a",
          name: "cancel_order",
        },
      ],
    },
  ],
  flows: [
    {
      flow_id: "9e0f1a2b-3c4d-4e5f-8a6b-7c8d9e0f1a2b",
      project_id: ACME,
      name: "Draft flow",
      trigger: { type: "EMPTY" },
    },
    {
      flow_id: "a0b1c2d3-e4f5-4a6b-9c7d-8e9f0a1b2c3d",
      project_id: ACME,
      name: "Order webhook",
      trigger: {
        type: "webhook",
        sample_payload: { order_id: "ord_123", status: "shipped" },
      },
    },
    {
      flow_id: "b1c2d3e4-f5a6-4b7c-8d8e-9f0a1b2c3d4e",
      project_id: ACME,
      name: "After each call",
      trigger: { type: "call_ended" },
    },
    {
      flow_id: "c2d3e4f5-a6b7-4c8d-9e9f-0a1b2c3d4e5f",
      project_id: ACME,
      name: "Weekday digest",
      trigger: {
        type: "schedule",
        cron: "0 9 * * 1-5",
        timezone: "Europe/Paris",
      },
    },
  ],
});
