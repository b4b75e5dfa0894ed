/// <reference lib="dom" />
/**
 * The browser side of the Service Worker test, bundled for the page: starts
 * MSW's `setupWorker` with the mock's handlers, calls each operation with
 * plain `fetch` and publishes what it saw on `globalThis.mockResult`.
 *
 * @module
 */
import { setupWorker } from "msw/browser";
import { createMockApi } from "../../mock/msw.ts";
import {
  apiFixtures,
  CALLS,
  FIRST_MESSAGES,
  FLOWS,
  INTEGRATIONS,
  TOKENS,
} from "../support/api_fixtures.ts";

/** What the page reports back to the test. */
export interface PageResult {
  controlled: boolean;
  bulk: { status: number; type: string | null; base64: string };
  messages: { status: number; matches: boolean };
  deleted: number[];
  trigger: { status: number; events: unknown };
  validation: { status: number; type: string };
  afterReset: number;
}

const owner = { authorization: `Bearer ${TOKENS.owner}` };

async function main(): Promise<PageResult> {
  const api = createMockApi({ baseUrl: "/api", fixtures: apiFixtures });
  const worker = setupWorker(...api.handlers);
  await worker.start({
    serviceWorker: { url: "/mockServiceWorker.js" },
    onUnhandledRequest: "error",
    quiet: true,
  });

  const bulk = await fetch("/api/v1/call/message/bulk", {
    method: "POST",
    headers: { ...owner, "content-type": "application/json" },
    body: JSON.stringify({
      call_ids: [CALLS.first, CALLS.second, CALLS.silent],
    }),
  });
  const zip = new Uint8Array(await bulk.arrayBuffer());

  const messages = await fetch(`/api/v1/call/${CALLS.first}/message`, {
    headers: owner,
  });
  const list = await messages.json();

  const remove = () =>
    fetch(`/api/v1/integration/${INTEGRATIONS.http}`, {
      method: "DELETE",
      headers: owner,
    }).then((response) => response.status);
  const deleted = [await remove(), await remove()];

  const trigger = await fetch(
    `/api/v1/workflow/${FLOWS.webhook}/trigger/test`,
    {
      method: "POST",
      headers: owner,
    },
  );

  const invalid = await fetch("/api/v1/call/message/bulk", {
    method: "POST",
    headers: { ...owner, "content-type": "application/json" },
    body: JSON.stringify({ call_ids: [] }),
  });

  await api.reset();
  const afterReset = await remove();

  return {
    controlled: navigator.serviceWorker.controller !== null,
    bulk: {
      status: bulk.status,
      type: bulk.headers.get("content-type"),
      base64: btoa(String.fromCharCode(...zip)),
    },
    messages: {
      status: messages.status,
      matches: JSON.stringify(list) === JSON.stringify(FIRST_MESSAGES),
    },
    deleted,
    trigger: { status: trigger.status, events: (await trigger.json()).events },
    validation: {
      status: invalid.status,
      type: (await invalid.json()).detail[0].type,
    },
    afterReset,
  };
}

const scope = globalThis as { mockResult?: unknown };
main().then(
  (result) => (scope.mockResult = result),
  (error: unknown) => (scope.mockResult = { error: String(error) }),
);
