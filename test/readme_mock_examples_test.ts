/**
 * The mock's documented examples, run as written: the curl block of the
 * standalone server's control API against the `mock` command, and the
 * in-process JavaScript block, extracted from docs/mock.md.
 *
 * @module
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
  copyFileSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { runtimeName } from "../server/runtimes/mod.ts";
import { codeBlockWith } from "./support/docs.ts";
import { type RunningCli, startMockCli } from "./support/mock_cli.ts";

const FIXTURES = fileURLToPath(
  new URL("./consumer/app/fixtures.json", import.meta.url),
);

/** The first block of a language in docs/mock.md that contains `marker`. */
function block(language: string, marker: string): string {
  return codeBlockWith("docs/mock.md", language, marker);
}

/** The block's commands, continuation lines joined, comments dropped. */
function commands(text: string): string[] {
  return text.replace(/\\\n\s*/g, "").split("\n")
    .filter((line) => line.trim() !== "" && !line.startsWith("#"));
}

describe("the mock's documented examples (docs/mock.md)", () => {
  const directory = mkdtempSync(join(tmpdir(), "readme-mock-"));
  let cli: RunningCli;

  before(async () => {
    copyFileSync(FIXTURES, join(directory, "other-fixtures.json"));
    cli = await startMockCli(["mock", "--port", "0", "--fixtures", FIXTURES]);
  });

  after(async () => {
    await cli.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  it("runs the control API's curl examples", () => {
    const lines = commands(block("sh", "/__mock/faults"));
    const results = lines.map((line) => {
      const command = line.replaceAll("http://127.0.0.1:4010", cli.url) +
        ` -s -w '\\n%{http_code}'`;
      const output = execFileSync("bash", ["-c", command], {
        cwd: directory,
        encoding: "utf8",
      });
      const cut = output.lastIndexOf("\n");
      return {
        line,
        body: output.slice(0, cut),
        status: output.slice(cut + 1),
      };
    });
    assert.deepEqual(results.map((result) => result.status), [
      "204", // reset
      "204", // PUT fixtures
      "200", // state
      "200", // requests
      "204", // DELETE requests
      "201", // status fault
      "201", // delay
      "201", // drop
      "201", // cut
      "200", // list
      "204", // DELETE fault-1
      "204", // DELETE all
      "200", // journal.har, saved
      "404", // Prefer: code=404
    ], JSON.stringify(results, null, 2));
    assert.ok(Array.isArray(JSON.parse(results[2]!.body).calls));
    assert.ok(Array.isArray(JSON.parse(results[3]!.body).requests));
    assert.equal(JSON.parse(results[5]!.body).id, "fault-1");
    assert.equal(JSON.parse(results[9]!.body).faults.length, 4);
    const har = JSON.parse(
      readFileSync(join(directory, "journal.har"), "utf8"),
    );
    assert.equal(har.log.version, "1.2");
    assert.equal(JSON.parse(results[13]!.body).error_code, "CALL_NOT_FOUND");
  });

  it("runs the in-process JavaScript example", () => {
    const msw = new URL("../mock/msw.ts", import.meta.url).href;
    const source = block("ts", "api.inject(").replace(
      '"@callflow/api/mock/msw"',
      JSON.stringify(msw),
    );
    const file = join(directory, "example.ts");
    writeFileSync(file, source);
    // Deno reads the project's import map from its deno.json.
    const config = fileURLToPath(new URL("../deno.json", import.meta.url));
    // Under Deno an imported msw keeps the process alive: a wrapper imports
    // the example as written, then exits.
    const wrapper = join(directory, "run_example.ts");
    writeFileSync(
      wrapper,
      'await import("./example.ts");\nprocess.exit(0);\n',
    );
    const args = runtimeName() === "deno"
      ? ["run", "--allow-all", "--config", config, wrapper]
      : [file];
    const output = execFileSync(process.execPath, args, { encoding: "utf8" });
    assert.equal(output.trim(), "[]");
  });
});
