/**
 * The mock stays safe on any address: bound to every interface (as in a
 * container), its control API still refuses a `Host` it was not told to
 * answer to and foreign `Origin`s, so a page rebound to it by DNS can
 * neither replace the fixtures nor read the state; its API keeps answering
 * any name, cross-origin.
 *
 * @module
 */
import assert from "node:assert/strict";
import { request as httpRequest } from "node:http";
import { after, before, describe, it } from "node:test";
import { createMockServer } from "../mock/mock_server.ts";
import { demoFixtures } from "../src/store/demo_fixtures.ts";
import { freePort } from "./deploy/processes.ts";
import { type RunningCli, startMockCli } from "./support/mock_cli.ts";

const FIXTURES = JSON.stringify({
  projects: [{
    project_id: "3f1c9a52-7a4b-4e2d-9c11-5b8f2e6d7a90",
    name: "Planted",
  }],
});

/** A request as a rebound page's browser sends it: its Host and Origin. */
function rebound(
  port: number,
  method: string,
  path: string,
  name = "evil.example",
): Request {
  const origin = `http://${name}:${port}`;
  return new Request(`${origin}${path}`, {
    method,
    headers: {
      host: `${name}:${port}`,
      origin,
      ...(method === "PUT" && { "content-type": "application/json" }),
    },
    ...(method === "PUT" && { body: FIXTURES }),
  });
}

describe("the mock bound to a non-loopback address (in process)", () => {
  it("refuses the rebinding request that replaced the fixtures and read the state", async () => {
    const mock = createMockServer({
      allowAnyHost: true,
      fixtures: demoFixtures,
    });
    const put = await mock.fetch(rebound(4010, "PUT", "/__mock/fixtures"));
    assert.equal(put.status, 403);
    assert.equal((await put.json()).error_code, "INVALID_HOST");
    assert.equal(put.headers.get("access-control-allow-origin"), null);
    const state = await mock.fetch(rebound(4010, "GET", "/__mock/state"));
    assert.equal(state.status, 403);
    await state.body?.cancel();
    assert.equal(mock.fixtures.tokens.length, demoFixtures.tokens.length);
  });

  it("answers the names it was told, from their own pages only", async () => {
    const mock = createMockServer({
      allowAnyHost: true,
      allowedHosts: ["mock.internal"],
    });
    const put = await mock.fetch(
      rebound(4010, "PUT", "/__mock/fixtures", "mock.internal"),
    );
    assert.equal(put.status, 204);
    const foreign = new Request("http://mock.internal:4010/__mock/state", {
      headers: { host: "mock.internal:4010", origin: "http://evil.example" },
    });
    const refused = await mock.fetch(foreign);
    assert.equal(refused.status, 403);
    assert.equal((await refused.json()).error_code, "FORBIDDEN_ORIGIN");
  });

  it("lets the API answer any Host, cross-origin", async () => {
    const mock = createMockServer({
      allowAnyHost: true,
      fixtures: demoFixtures,
    });
    const call = demoFixtures.calls[0]!;
    const response = await mock.fetch(
      new Request(`http://evil.example:4010/v1/call/${call.call_id}/message`, {
        headers: {
          host: "evil.example:4010",
          origin: "http://evil.example:4010",
          authorization: "Bearer demo-viewer",
        },
      }),
    );
    assert.equal(response.status, 200);
    assert.equal(
      response.headers.get("access-control-allow-origin"),
      "http://evil.example:4010",
    );
    await response.arrayBuffer();
  });
});

/** Sends to 127.0.0.1:port with any Host (fetch may not set one). */
function send(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest({
      host: "127.0.0.1",
      port,
      method,
      path,
      headers: {
        ...headers,
        ...(body !== undefined && {
          "content-type": "application/json",
          "content-length": String(Buffer.byteLength(body)),
        }),
      },
    }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => text += chunk);
      response.on(
        "end",
        () => resolve({ status: response.statusCode!, body: text }),
      );
    });
    request.on("error", reject);
    request.end(body);
  });
}

describe("callflow-api mock --host 0.0.0.0 --allowed-host mock.internal", () => {
  let cli: RunningCli;
  let port: number;
  before(async () => {
    port = await freePort();
    cli = await startMockCli([
      "mock",
      "--host",
      "0.0.0.0",
      "--port",
      String(port),
      "--allowed-host",
      "mock.internal",
    ]);
  });
  after(() => cli?.stop());

  it("refuses the rebinding page (403) and keeps the fixtures", async () => {
    const evil = `evil.example:${port}`;
    const headers = { host: evil, origin: `http://${evil}` };
    const put = await send(port, "PUT", "/__mock/fixtures", headers, FIXTURES);
    assert.equal(put.status, 403, put.body);
    assert.equal(JSON.parse(put.body).error_code, "INVALID_HOST");
    const state = await send(port, "GET", "/__mock/state", headers);
    assert.equal(state.status, 403, state.body);
    assert.doesNotMatch(state.body, /demo-owner/);
    const local = await send(port, "GET", "/__mock/state", {
      host: `127.0.0.1:${port}`,
    });
    assert.equal(local.status, 200);
    assert.equal(JSON.parse(local.body).projects[0].name, "Acme");
  });

  it("accepts the allowed host, and the API answers any Host", async () => {
    const named = `mock.internal:${port}`;
    const put = await send(port, "PUT", "/__mock/fixtures", {
      host: named,
      origin: `http://${named}`,
    }, FIXTURES);
    assert.equal(put.status, 204, put.body);
    const health = await send(port, "GET", "/healthz", {
      host: `evil.example:${port}`,
      origin: "http://evil.example",
    });
    assert.equal(health.status, 200, health.body);
  });
});
