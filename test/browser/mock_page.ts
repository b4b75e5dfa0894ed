/// <reference lib="dom" />
/**
 * The mock's live page at `/__mock/` in headless Chromium
 * (`/usr/bin/chromium`, driven by playwright-core), offline: requests sent
 * from outside the browser appear in its table, newest first; a click opens
 * one (the 422's validation errors, the export's ZIP entries); a fault set
 * through the page's form is applied to the next request; "Download HAR"
 * saves what the table shows; "Clear journal" empties the table and the
 * journal; "Reset state" brings a deleted integration back. On the `mock` command and on the mock
 * executable (`build/mock_executable.ts`, or `CALLFLOW_MOCK_EXECUTABLE`).
 * The run on the command draws docs/mock.md's screenshots: into
 * `docs/images/` with `UPDATE_SCREENSHOTS=1` (then commit them), else into
 * a temporary folder, so that a test run leaves the clone as it was.
 *
 * Run by `node --test test/browser/mock_page.ts` (a stage of `npm test`);
 * skipped without Chromium outside CI.
 *
 * @module
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import { launchChromium, skipWithoutChromium } from "./chromium.ts";
import { type RunningCli, startMockCli } from "../support/mock_cli.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const IMAGES = process.env["UPDATE_SCREENSHOTS"] === "1"
  ? join(ROOT, "docs", "images")
  : mkdtempSync(join(tmpdir(), "mock-page-images-"));
const TOKEN = "demo-owner";
const WEBHOOK_FLOW = "a0b1c2d3-e4f5-4a6b-9c7d-8e9f0a1b2c3d";

/** Sends an API request from outside the browser; returns its status. */
async function send(
  base: string,
  path: string,
  init: RequestInit = {},
): Promise<number> {
  const response = await fetch(`${base}${path}`, {
    ...init,
    headers: {
      authorization: `Bearer ${TOKEN}`,
      ...init.body === undefined ? {} : { "content-type": "application/json" },
      ...init.headers as Record<string, string>,
    },
  });
  await response.arrayBuffer();
  return response.status;
}

/** The table's rows as the page shows them: [path, status, fault] each. */
function rows(page: Page): Promise<string[][]> {
  return page.locator("#journal-rows tr").evaluateAll((trs) =>
    trs.map((tr) =>
      [3, 4, 9].map((i) => (tr.children[i] as HTMLElement).innerText)
    )
  );
}

/** Waits until the table's rows satisfy `check`. */
async function waitForRows(
  page: Page,
  check: (rows: string[][]) => boolean,
): Promise<string[][]> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const shown = await rows(page);
    if (check(shown)) return shown;
    if (Date.now() > deadline) {
      throw new Error(`The table never showed it: ${JSON.stringify(shown)}`);
    }
    await page.waitForTimeout(100);
  }
}

/** The whole story against one running mock; screenshots when asked. */
async function story(browser: Browser, base: string, screenshots: boolean) {
  const page = await browser.newPage({
    viewport: { width: 1400, height: 900 },
  });
  const foreign: string[] = [];
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  await page.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith(`${base}/`)) return route.continue();
    foreign.push(url);
    return route.abort();
  });
  await page.goto(`${base}/__mock/`);
  await page.waitForSelector("#fault-operation option[value=testTrigger]", {
    state: "attached",
  });
  await page.waitForSelector("#state-projects li");

  const state = await (await fetch(`${base}/__mock/state`)).json();
  const calls = state.calls.map((call: { call_id: string }) => call.call_id);
  const bulk = "/v1/call/message/bulk";
  assert.equal(await send(base, `/v1/call/${calls[0]}/message`), 200);
  assert.equal(
    await send(base, bulk, { method: "POST", body: '{"call_ids":[]}' }),
    422,
  );
  assert.equal(
    await send(base, `/v1/call/${calls[0]}/message`, {
      headers: { authorization: "Bearer wrong" },
    }),
    401,
  );
  assert.equal(
    await send(base, bulk, {
      method: "POST",
      body: JSON.stringify({ call_ids: calls.slice(0, 2) }),
    }),
    200,
  );
  // Newest first: the export on top.
  const shown = await waitForRows(page, (shown) => shown.length === 4);
  assert.deepEqual(shown.map(([path, status]) => [path, status]), [
    [bulk, "200"],
    [`/v1/call/${calls[0]}/message`, "401"],
    [bulk, "422"],
    [`/v1/call/${calls[0]}/message`, "200"],
  ]);
  assert.equal(
    await page.locator("#journal-rows tr:nth-child(2) .status").evaluate(
      (cell) => getComputedStyle(cell).color,
    ),
    "rgb(180, 83, 9)", // 4xx
  );

  // The export: its ZIP's entries.
  await page.locator("#journal-rows tr").nth(0).click();
  await page.waitForSelector("#detail table.zip");
  const zipText = await page.locator("#detail").innerText();
  assert.match(zipText, /ZIP, \d+ bytes, 2 entries/);
  assert.match(zipText, /Bearer \*\*\*/);
  assert.ok(!zipText.includes(TOKEN), "the token on the page");
  if (screenshots) {
    await page.locator("#detail").screenshot({
      path: join(IMAGES, "mock-page-zip.png"),
    });
  }
  // The 422: its validation errors.
  await page.locator("#journal-rows tr").nth(2).click();
  await page.waitForSelector("#detail table.detail");
  const invalid = await page.locator("#detail").innerText();
  assert.match(invalid, /body\.call_ids\s+List should have at least 1 item/);
  assert.match(invalid, /"type": "too_short"/);

  // A fault set through the page applies to the next request.
  await page.selectOption("#fault-operation", "testTrigger");
  await page.fill("#fault-status", "503");
  await page.fill("#fault-times", "1");
  await page.click("#fault-set");
  await page.waitForSelector("#faults li button[data-fault]");
  assert.match(
    await page.locator("#faults").innerText(),
    /fault-\d+: testTrigger → 503 \(1 left\)/,
  );
  const trigger = `/v1/workflow/${WEBHOOK_FLOW}/trigger/test`;
  assert.equal(await send(base, trigger, { method: "POST" }), 503);
  const faulted = await waitForRows(page, (shown) => shown.length === 5);
  assert.deepEqual(faulted[0]!.slice(0, 2), [trigger, "503"]);
  assert.match(faulted[0]![2]!, /^fault-\d+$/);
  assert.equal(await send(base, trigger, { method: "POST" }), 200);
  await waitForRows(page, (shown) => shown.length === 6);
  await page.waitForFunction(() =>
    document.querySelector("#faults")!.textContent!.includes("none")
  );

  // The filters.
  await page.selectOption("#filter-status", "s4xx");
  assert.deepEqual((await rows(page)).map(([, status]) => status), [
    "401",
    "422",
  ]);
  await page.selectOption("#filter-status", "");
  await page.selectOption("#filter-operation", "testTrigger");
  assert.equal((await rows(page)).length, 2);
  await page.selectOption("#filter-operation", "");
  if (screenshots) {
    // By its status cell: a row's time may hold "422" too (at 22:xx).
    await page.locator("#journal-rows tr", {
      has: page.locator("td.status", { hasText: /^422$/ }),
    }).click();
    await page.waitForSelector("#detail table.detail");
    await page.screenshot({
      path: join(IMAGES, "mock-page.png"),
      fullPage: true,
    });
  }

  // The download: the journal as HAR, as the page shows it.
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.click("#download"),
  ]);
  assert.equal(download.suggestedFilename(), "journal.har");
  const har = JSON.parse(readFileSync(await download.path(), "utf8"));
  assert.deepEqual(
    har.log.entries.map((entry: { response: { status: number } }) =>
      String(entry.response.status)
    ),
    (await rows(page)).map(([, status]) => status).reverse(),
  );

  // Clearing the journal empties the table, and the journal.
  await page.click("#clear-journal");
  await waitForRows(page, (shown) => shown.length === 0);
  const journal = await (await fetch(`${base}/__mock/requests`)).json();
  assert.deepEqual(journal.requests, []);
  assert.equal(await send(base, `/v1/call/${calls[1]}/message`), 200);
  await waitForRows(page, (shown) => shown.length === 1);

  // Reset: a deleted integration is back, in the state beside the table.
  const integrations = state.integrations.length;
  const integration = state.integrations[0].integration_id;
  assert.equal(
    await send(base, `/v1/integration/${integration}`, { method: "DELETE" }),
    204,
  );
  const count = () => page.locator("#state-integrations").innerText();
  await page.waitForFunction(
    (expected) =>
      document.querySelector("#state-integrations")!.textContent === expected,
    String(integrations - 1),
  );
  await page.click("#reset");
  await page.waitForFunction(
    (expected) =>
      document.querySelector("#state-integrations")!.textContent === expected,
    String(integrations),
  );
  assert.equal(await count(), String(integrations));
  await waitForRows(page, (shown) => shown.length === 0);

  assert.deepEqual(foreign, [], "requests to other hosts");
  assert.deepEqual(errors, [], "errors on the page");
  await page.close();
}

describe(
  "the mock's live page in Chromium",
  { skip: skipWithoutChromium },
  () => {
    let browser: Browser;
    const scratch = mkdtempSync(join(tmpdir(), "callflow-page-"));
    const running: RunningCli[] = [];

    before(async () => {
      // No name resolves but 127.0.0.1: another host is unreachable.
      browser = await launchChromium([
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
      ]);
    });
    after(async () => {
      await browser?.close();
      for (const mock of running) await mock.stop();
      rmSync(scratch, { recursive: true, force: true });
    });

    it("shows the journal live on the mock command, and draws docs/mock.md's screenshots", async () => {
      const mock = await startMockCli(["mock", "--port", "0"]);
      running.push(mock);
      mkdirSync(IMAGES, { recursive: true });
      await story(browser, mock.url, true);
    });

    it("does the same on the mock executable", async () => {
      let executable = process.env.CALLFLOW_MOCK_EXECUTABLE;
      if (executable === undefined) {
        executable = join(scratch, "callflow-mock");
        execFileSync(
          process.execPath,
          [join(ROOT, "build", "mock_executable.ts"), executable],
          { stdio: ["ignore", "ignore", "inherit"] },
        );
      }
      const mock = await startMockCli([], [executable, ["--port", "0"]]);
      running.push(mock);
      await story(browser, mock.url, false);
    });

    it("is left out with --no-ui", async () => {
      const mock = await startMockCli(["mock", "--port", "0", "--no-ui"]);
      running.push(mock);
      const page = await fetch(`${mock.url}/__mock/`);
      assert.equal(page.status, 404);
      assert.equal((await page.json()).error_code, "NOT_FOUND");
      assert.doesNotMatch(mock.output(), /Live page/);
      const har = await fetch(`${mock.url}/__mock/journal.har`);
      assert.equal(har.status, 200);
      await har.arrayBuffer();
    });
  },
);
