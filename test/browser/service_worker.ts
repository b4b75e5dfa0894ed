/**
 * The mock's MSW handlers under `setupWorker` in headless Chromium (Debian's
 * `chromium`, driven by playwright-core): the page registers MSW's Service
 * Worker and calls each operation with plain `fetch`; the static server
 * refuses `/api/*`, so every answer the page sees came through the worker.
 *
 * Run under Node only: `node --test test/browser/service_worker.ts`. Needs
 * `/usr/bin/chromium` (`apt-get install -y chromium`); skipped without it
 * unless `CI` is set.
 *
 * @module
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import type { Browser } from "playwright-core";
import { launchChromium, skipWithoutChromium } from "./chromium.ts";
import { readZip } from "../support/zip_reader.ts";
import type { PageResult } from "./page.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const HTML = `<!doctype html>
<html><head><meta charset="utf-8"><title>mock in a Service Worker</title></head>
<body><script type="module" src="/page.js"></script></body></html>`;

const skip = skipWithoutChromium;

describe("createMockApi under setupWorker in Chromium", { skip }, () => {
  const work = mkdtempSync(join(tmpdir(), "mock-browser-"));
  const apiHits: string[] = [];
  let server: Server;
  let browser: Browser;
  let result: PageResult;

  before(async () => {
    const bundle = join(work, "page.js");
    execFileSync(join(ROOT, "node_modules", ".bin", "bun"), [
      "build",
      join(ROOT, "test", "browser", "page.ts"),
      "--target=browser",
      "--outfile",
      bundle,
    ], { stdio: "pipe" });
    const files: Record<string, [string, string | Buffer]> = {
      "/": ["text/html", HTML],
      "/page.js": ["text/javascript", readFileSync(bundle)],
      "/mockServiceWorker.js": [
        "text/javascript",
        readFileSync(
          join(ROOT, "node_modules", "msw", "lib", "mockServiceWorker.js"),
        ),
      ],
    };
    server = createServer((request, response) => {
      const path = new URL(request.url ?? "/", "http://x").pathname;
      const file = files[path];
      if (file === undefined) {
        if (path.startsWith("/api/")) apiHits.push(path);
        response.writeHead(502).end("not served: the worker should answer");
        return;
      }
      response.writeHead(200, { "content-type": file[0] }).end(file[1]);
    });
    await new Promise<void>((resolve) =>
      server.listen(0, "127.0.0.1", resolve)
    );
    const { port } = server.address() as AddressInfo;

    browser = await launchChromium();
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(`http://127.0.0.1:${port}/`);
    await page.waitForFunction(
      () => (globalThis as { mockResult?: unknown }).mockResult !== undefined,
      undefined,
      { timeout: 30_000 },
    );
    const outcome = await page.evaluate(() =>
      (globalThis as { mockResult?: unknown }).mockResult
    ) as PageResult | { error: string };
    if ("error" in outcome) {
      throw new Error(`The page failed: ${outcome.error} ${errors.join("; ")}`);
    }
    result = outcome;
  });

  after(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
    rmSync(work, { recursive: true, force: true });
  });

  it("runs with the page controlled by MSW's Service Worker", () => {
    assert.equal(result.controlled, true);
    assert.deepEqual(apiHits, [], "no API request reached the network");
  });

  it("bulk download returns a real ZIP", () => {
    assert.equal(result.bulk.status, 200);
    assert.equal(result.bulk.type, "application/zip");
    const bytes = Uint8Array.from(
      atob(result.bulk.base64),
      (character) => character.charCodeAt(0),
    );
    assert.equal(readZip(bytes).length, 2);
  });

  it("call messages, delete, trigger test and validation answer as the API", () => {
    assert.deepEqual(result.messages, { status: 200, matches: true });
    assert.deepEqual(result.deleted, [204, 404]);
    assert.equal(result.trigger.status, 200);
    assert.deepEqual(result.trigger.events, [
      { order: { id: 7, items: ["a", "b"] }, ok: true },
    ]);
    assert.deepEqual(result.validation, { status: 422, type: "too_short" });
    assert.equal(result.afterReset, 204);
  });
});
