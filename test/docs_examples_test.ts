/**
 * The usage examples of README.md and docs/, run as written (read from the
 * documents at test time, never copied here):
 *
 * - the README's quick start: its curl lines against `npm start`'s server
 *   (server/main.ts on the demo data), each answering what its comment says;
 * - the README's MSW test under `node --test`, and docs/mock.md's under
 *   `bun test`, their `@callflow/api/mock/msw` import pointed at this
 *   repository's `mock/msw.ts`;
 * - docs/fastapi.md's HTTPValidationError: the handler's answer to an empty
 *   `call_ids`, byte for byte.
 *
 * @module
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { createHandler, demoFixtures, MemoryStore } from "../mod.ts";
import {
  codeBlocks,
  codeBlockWith,
  documentSection,
  shellCommands,
} from "./support/docs.ts";
import { startServerMain } from "./support/server_main.ts";
import type { ServerProcess } from "./deploy/processes.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const MSW_ENTRY = new URL("../mock/msw.ts", import.meta.url).href;

/**
 * Writes a documented test file into a scratch project that sees this
 * repository's node_modules, the package's MSW entry pointed at the source.
 */
function scratchTest(directory: string, name: string, source: string): string {
  const file = join(directory, name);
  writeFileSync(
    file,
    source.replaceAll('"@callflow/api/mock/msw"', JSON.stringify(MSW_ENTRY)),
  );
  return file;
}

/** Runs a command; its stdout and stderr, or an error carrying them. */
function run(command: string, args: string[], cwd: string): string {
  const result = spawnSync(command, args, {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, NODE_TEST_CONTEXT: undefined },
  });
  const output = `${result.stdout}${result.stderr}`;
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(" ")} failed:\n${output}`);
  }
  return output;
}

describe("the documents' usage examples", () => {
  const directory = mkdtempSync(join(tmpdir(), "callflow-docs-"));

  before(() => {
    symlinkSync(join(ROOT, "node_modules"), join(directory, "node_modules"));
    writeFileSync(join(directory, "package.json"), '{"type": "module"}\n');
  });

  after(() => rmSync(directory, { recursive: true, force: true }));

  describe("the README's quick start against npm start", () => {
    let server: ServerProcess;
    let url: string;

    before(async () => {
      const started = startServerMain({});
      server = started.server;
      url = await started.url;
    });

    after(async () => await server.stop());

    it("answers each curl line as its comment says", () => {
      const [, curl] = codeBlocks(documentSection("README.md", "Quick start"));
      const statuses = shellCommands(curl!.text).map((line) => {
        const output = run("bash", [
          "-c",
          line.replaceAll("http://127.0.0.1:8787", url) +
          ` -s -w '\\n%{http_code}'`,
        ], directory);
        return output.slice(output.lastIndexOf("\n") + 1);
      });
      // export, messages, delete, trigger test, openapi.json, healthz
      assert.deepEqual(statuses, ["200", "200", "204", "200", "200", "200"]);
      const zip = readFileSync(join(directory, "transcripts.zip"));
      assert.equal(zip.subarray(0, 4).toString("latin1"), "PK\x03\x04");
    });
  });

  it("runs the README's MSW test under node --test", () => {
    const source = codeBlockWith("README.md", "ts", "node --test");
    const file = scratchTest(directory, "api.test.ts", source);
    const output = run(
      "node",
      ["--test", "--test-reporter=tap", file],
      directory,
    );
    assert.match(output, /# pass 2\n/);
    assert.match(output, /# fail 0\n/);
  });

  it("runs docs/mock.md's Bun test under bun test", () => {
    const source = codeBlockWith("docs/mock.md", "ts", "bun test");
    const file = scratchTest(directory, "bun_api.test.ts", source);
    const output = run("bun", ["test", file], directory);
    assert.match(output, /\b1 pass\b/);
    assert.match(output, /\b0 fail\b/);
  });

  it("answers docs/fastapi.md's HTTPValidationError to an empty call_ids", async () => {
    const documented = JSON.parse(
      codeBlockWith("docs/fastapi.md", "json", '"too_short"'),
    );
    const store = new MemoryStore();
    await store.seed(demoFixtures);
    const response = await createHandler({ store })(
      new Request("http://api.test/v1/call/message/bulk", {
        method: "POST",
        headers: {
          authorization: "Bearer demo-viewer",
          "content-type": "application/json",
        },
        body: '{"call_ids": []}',
      }),
    );
    assert.equal(response.status, 422);
    assert.deepEqual(await response.json(), documented);
  });
});
