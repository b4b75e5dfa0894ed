/**
 * The mock as one standalone executable (`npm run build:mock`): built here
 * (or taken from `CALLFLOW_MOCK_EXECUTABLE`), it answers `--version` and
 * `--help` as `callflow-api mock` does, and passes docs/mock.md's Python
 * test suite, run as written with Python's standard library on a `PATH`
 * that holds `python3` alone: no Node, Deno or Bun.
 *
 * Run by `node --test test/consumer/mock_executable.ts` (a stage of
 * `npm test`); skipped without `python3`.
 *
 * @module
 */
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { codeBlockWith } from "../support/docs.ts";
import { runBin } from "../support/mock_cli.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const python = spawnSync("python3", ["--version"]).status === 0
  ? realpathSync(
    execFileSync("python3", ["-c", "import sys; print(sys.executable)"], {
      encoding: "utf8",
    }).trim(),
  )
  : undefined;

describe("the mock as one executable", { skip: python === undefined }, () => {
  const scratch = mkdtempSync(join(tmpdir(), "callflow-mock-"));
  let executable: string;

  before(() => {
    executable = process.env.CALLFLOW_MOCK_EXECUTABLE ??
      join(scratch, "callflow-mock");
    if (process.env.CALLFLOW_MOCK_EXECUTABLE === undefined) {
      execFileSync(
        process.execPath,
        [join(ROOT, "build", "mock_executable.ts"), executable],
        { stdio: ["ignore", "ignore", "inherit"] },
      );
    }
  });
  after(() => rmSync(scratch, { recursive: true, force: true }));

  it("answers --version and --help as callflow-api mock does", async () => {
    const run = (args: string[]) =>
      spawnSync(executable, args, { encoding: "utf8", env: {} });
    const version = run(["--version"]);
    assert.equal(version.status, 0, version.stderr);
    const cli = await runBin(["mock", "--version"]);
    assert.equal(version.stdout, cli.stdout);
    const help = run(["--help"]);
    assert.equal(help.stdout, (await runBin(["mock", "--help"])).stdout);
    const wrong = run(["--no-such-flag"]);
    assert.equal(wrong.status, 2);
    assert.match(wrong.stderr, /no-such-flag/);
  });

  it("passes docs/mock.md's Python suite with no JavaScript runtime on PATH", () => {
    const bin = join(scratch, "bin");
    const suite = join(scratch, "test_mock.py");
    writeFileSync(
      suite,
      codeBlockWith("docs/mock.md", "python", "class MockTest"),
    );
    if (!existsSync(bin)) {
      execFileSync("mkdir", [bin]);
      symlinkSync(python!, join(bin, "python3"));
    }
    assert.deepEqual(readdirSync(bin), ["python3"]);
    const env = { PATH: bin, CALLFLOW_MOCK: executable, HOME: scratch };
    for (const runtime of ["node", "deno", "bun"]) {
      const found = spawnSync("python3", [
        "-c",
        `import shutil, sys; sys.exit(shutil.which("${runtime}") is not None)`,
      ], { env });
      assert.equal(found.status, 0, `${runtime} is on PATH`);
    }
    const run = spawnSync("python3", [suite, "-v"], {
      env,
      cwd: scratch,
      encoding: "utf8",
      timeout: 120_000,
    });
    assert.equal(run.status, 0, run.stderr + run.stdout);
    assert.match(run.stderr, /Ran 5 tests/);
    assert.match(run.stderr, /\nOK\n/);
  });
});
