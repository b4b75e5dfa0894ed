/**
 * `GET /docs` renders the reference offline: `npm start`'s server and the
 * `mock` command, each opened in headless Chromium (`/usr/bin/chromium`,
 * driven by playwright-core) that can resolve no host but 127.0.0.1 and
 * whose every request elsewhere is refused and noted. All six operations,
 * their examples and their error codes must be on the page, from the files
 * the server itself serves. `DOCS=off` and `--no-docs` switch it off.
 *
 * Run by `node --test test/browser/reference_page.ts` (a stage of
 * `npm test`); skipped without Chromium outside CI.
 *
 * @module
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Browser } from "playwright-core";
import { launchChromium, skipWithoutChromium } from "./chromium.ts";
import { openApiDocument } from "../../src/openapi/document.ts";
import { examples } from "../../src/openapi/examples.ts";
import { type RunningCli, startMockCli } from "../support/mock_cli.ts";
import { startServerMain } from "../support/server_main.ts";

const skip = skipWithoutChromium;

/** Every operationId of the document: the six operations. */
const OPERATIONS = Object.values(openApiDocument.paths).flatMap((operations) =>
  Object.values(operations).map((operation) =>
    (operation as { operationId: string }).operationId
  )
);

/** Opens `/docs` with every operation expanded; returns the page's text. */
async function renderedReference(
  browser: Browser,
  base: string,
): Promise<{ text: string; foreign: string[]; errors: string[] }> {
  const page = await browser.newPage();
  const foreign: string[] = [];
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await page.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith(`${base}/`)) return route.continue();
    foreign.push(url);
    return route.abort();
  });
  await page.goto(`${base}/docs`);
  await page.waitForSelector(".opblock", { timeout: 30_000 });
  // Open each operation, so that its responses and examples render.
  for (const summary of await page.locator(".opblock-summary").all()) {
    await summary.click();
  }
  await page.waitForSelector(".responses-table", { timeout: 30_000 });
  await page.waitForTimeout(500);
  const text = await page.locator("body").innerText();
  await page.close();
  return { text, foreign, errors };
}

function assertComplete(rendered: { text: string; foreign: string[] }) {
  const { text } = rendered;
  assert.deepEqual(rendered.foreign, [], "requests to other hosts");
  assert.match(text, /Call, Integration and Workflow API/);
  const compact = text.replace(/\s+/g, "");
  for (const operationId of OPERATIONS) {
    assert.ok(text.includes(operationId), `operation ${operationId}`);
  }
  // The examples, as Swagger UI prints them (JSON with spaces and breaks);
  // a response's first example is shown, the others are in its menu.
  for (
    const fragment of [
      String(examples.callMessages.value[0]!.text),
      '"event":"schedule.fired"',
      '"scheduled_for":"2026-11-23T08:00:00.000Z"',
      // Further examples of a response: in its examples menu.
      examples.webhookEvents.summary,
      examples.unauthorizedInvalid.summary,
      examples.emptyCallIds.value.detail[0]!.msg,
    ]
  ) {
    assert.ok(compact.includes(fragment.replace(/\s+/g, "")), fragment);
  }
  for (
    const code of [
      "UNAUTHORIZED_ROLE",
      "INTERNAL_SERVER_ERROR",
      "NO_TRANSCRIPTS_FOUND",
      "CALL_NOT_FOUND",
      "INTEGRATION_NOT_FOUND",
      "FLOW_NOT_FOUND",
      "TRIGGER_NOT_CONFIGURED",
      "PAYLOAD_TOO_LARGE",
      "METHOD_NOT_ALLOWED",
    ]
  ) {
    assert.ok(text.includes(code), `error code ${code}`);
  }
}

describe("the reference page at /docs in Chromium, offline", { skip }, () => {
  let browser: Browser;
  const stops: (() => Promise<unknown>)[] = [];

  before(async () => {
    // No name resolves but 127.0.0.1: another host is unreachable.
    browser = await launchChromium([
      "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
    ]);
  });
  after(async () => {
    await browser?.close();
    for (const stop of stops) await stop();
  });

  it("renders from npm start's server", async () => {
    const started = startServerMain({});
    stops.push(() => started.server.stop());
    assertComplete(await renderedReference(browser, await started.url));
  });

  it("renders from the mock command", async () => {
    const mock = await startMockCli(["mock", "--port", "0"]);
    stops.push(() => mock.stop());
    assertComplete(await renderedReference(browser, mock.url));
  });

  it("is switched off by DOCS=off and --no-docs", async () => {
    const started = startServerMain({ DOCS: "off" });
    stops.push(() => started.server.stop());
    const mock: RunningCli = await startMockCli([
      "mock",
      "--port",
      "0",
      "--no-docs",
    ]);
    stops.push(() => mock.stop());
    for (const base of [await started.url, mock.url]) {
      const response = await fetch(`${base}/docs`);
      assert.equal(response.status, 404, base);
      assert.equal((await response.json()).error_code, "NOT_FOUND");
      assert.equal((await fetch(`${base}/openapi.json`)).status, 200);
    }
  });
});
