/**
 * Hardening headers (OWASP REST Security Cheat Sheet): every answer carries
 * `X-Content-Type-Options: nosniff`, and every answer of a route that needs
 * a token (JSON, ZIP, 204 and refusals alike) `Cache-Control: no-store`: from
 * the handler, the Worker, the mock (its control API too), and over HTTP on
 * the runtime running this file.
 *
 * @module
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMockServer } from "../mock/mock_server.ts";
import worker from "../server/worker.ts";
import type { Handler } from "../src/handler.ts";
import { openApiDocument } from "../src/openapi/document.ts";
import { demoFixtures } from "../src/store/demo_fixtures.ts";
import { DEMO, demoHandler, demoServer } from "./support/demo_handler.ts";

const { call: CALL, integration: INTEGRATION, flow: FLOW } = DEMO;

/** Requests without a token, each built afresh. */
const PUBLIC: Array<[string, () => Request]> = [
  ["GET /healthz", () => new Request("http://x/healthz")],
  ["GET /readyz", () => new Request("http://x/readyz")],
  ["GET /openapi.json", () => new Request("http://x/openapi.json")],
  ["GET /nowhere (404)", () => new Request("http://x/nowhere")],
  [
    "DELETE /healthz (405)",
    () => new Request("http://x/healthz", { method: "DELETE" }),
  ],
];

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Requests to routes that need a token: answers and refusals. */
const PRIVATE: Array<[string, () => Request]> = [
  ["messages (JSON)", () =>
    new Request(`http://x/v1/call/${CALL}/message`, {
      headers: bearer("demo-viewer"),
    })],
  ["bulk export (ZIP)", () =>
    new Request("http://x/v1/call/message/bulk", {
      method: "POST",
      headers: { ...bearer("demo-viewer"), "content-type": "application/json" },
      body: JSON.stringify({ call_ids: [CALL] }),
    })],
  [
    "trigger test",
    () =>
      new Request(`http://x/v1/workflow/${FLOW}/trigger/test`, {
        method: "POST",
        headers: bearer("demo-member"),
      }),
  ],
  [
    "integration delete (204)",
    () =>
      new Request(`http://x/v1/integration/${INTEGRATION}`, {
        method: "DELETE",
        headers: bearer("demo-admin"),
      }),
  ],
  ["no token (401)", () => new Request(`http://x/v1/call/${CALL}/message`)],
  [
    "a role that may not (403)",
    () =>
      new Request(`http://x/v1/workflow/${FLOW}/trigger/test`, {
        method: "POST",
        headers: bearer("demo-viewer"),
      }),
  ],
  ["a bad id (422)", () =>
    new Request("http://x/v1/call/not-a-uuid/message", {
      headers: bearer("demo-viewer"),
    })],
];

async function check(
  handler: Handler,
  name: string,
  request: Request,
  noStore: boolean,
): Promise<void> {
  const response = await handler(request);
  await response.arrayBuffer();
  assert.equal(
    response.headers.get("x-content-type-options"),
    "nosniff",
    `${name}: ${response.status}`,
  );
  if (noStore) {
    assert.equal(
      response.headers.get("cache-control"),
      "no-store",
      `${name}: ${response.status}`,
    );
  }
}

/** Runs every check against a fresh handler from `make`. */
function suite(make: () => Promise<Handler>, rewrite = (r: Request) => r) {
  for (const [name, request] of PUBLIC) {
    it(`${name}: nosniff`, async () => {
      await check(await make(), name, rewrite(request()), false);
    });
  }
  for (const [name, request] of PRIVATE) {
    it(`${name}: nosniff and no-store`, async () => {
      await check(await make(), name, rewrite(request()), true);
    });
  }
}

describe("the handler", () => suite(demoHandler));

describe("the Worker", () => {
  const context = { waitUntil: () => {} };
  suite(() =>
    Promise.resolve((request: Request) =>
      worker.fetch(request, { LOG_LEVEL: "off" }, context)
    )
  );
});

describe("the mock", () => {
  const local = (request: Request) =>
    new Request(request.url.replace("http://x/", "http://127.0.0.1:4010/"), {
      method: request.method,
      headers: request.headers,
      body: request.body,
      duplex: "half",
    } as RequestInit);
  suite(
    () => Promise.resolve(createMockServer({ fixtures: demoFixtures }).fetch),
    local,
  );
  const control: Array<[string, string, string]> = [
    ["control API: state", "GET", "/__mock/state"],
    ["control API: reset", "POST", "/__mock/reset"],
    ["control API: unknown route (404)", "GET", "/__mock/nowhere"],
  ];
  for (const [name, method, path] of control) {
    it(`${name}: nosniff and no-store`, async () => {
      const mock = createMockServer({ fixtures: demoFixtures });
      await check(
        mock.fetch,
        name,
        new Request(`http://127.0.0.1:4010${path}`, { method }),
        true,
      );
    });
  }
  it("a refused Host: nosniff", async () => {
    const mock = createMockServer({ fixtures: demoFixtures });
    const request = new Request("http://evil.example/__mock/state");
    await check(mock.fetch, "refused Host", request, false);
  });
});

describe("over HTTP on this runtime's server", () => {
  const running = demoServer();

  const overHttp = (request: Request) =>
    fetch(request.url.replace("http://x", running().url), {
      method: request.method,
      headers: request.headers,
      body: request.body,
      duplex: "half",
    } as RequestInit);
  for (const [name, request] of [...PUBLIC, ...PRIVATE]) {
    it(`${name}: the headers reach the client`, async () => {
      await check(overHttp, name, request(), PRIVATE.some(([n]) => n === name));
    });
  }
});

describe("the OpenAPI document", () => {
  it("declares the hardening headers, 413 and 429 on every operation", () => {
    const { paths, components } = openApiDocument;
    assert.ok(components.headers.XContentTypeOptions);
    for (const [path, operations] of Object.entries(paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const { security, responses } = operation as {
          security?: unknown[];
          responses: Record<string, { headers?: Record<string, unknown> }>;
        };
        const needsToken = security === undefined;
        for (const [status, response] of Object.entries(responses)) {
          const where = `${method} ${path} ${status}`;
          assert.ok(response.headers?.["X-Content-Type-Options"], where);
          assert.equal(
            response.headers?.["Cache-Control"] !== undefined,
            needsToken,
            where,
          );
        }
        if (needsToken) {
          assert.ok(responses["413"], `${method} ${path} 413`);
          assert.ok(
            responses["429"]?.headers?.["Retry-After"],
            `${method} ${path} 429`,
          );
        }
      }
    }
  });
});
