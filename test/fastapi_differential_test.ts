/**
 * The differential check against FastAPI, bounded: runs
 * `scripts/fastapi_differential.py` (the edge cases, a few dozen generated
 * bulk bodies and path segments, and bodies of every shape and content type
 * on the routes that take none, with good and bad path ids and tokens)
 * against the mock server under the runtime running this file. Under Node it
 * sends every body with every content type and more generated ones (about
 * 2,500 cases, 10 s); under Deno and Bun a smaller pass (about 800).
 *
 * `FASTAPI_PYTHON` names the Python, with the packages of
 * scripts/python_requirements.txt: `npm test` makes one in .tmp/python
 * (scripts/ensure_python_env.sh) and sets it, and then a Python that lacks
 * them fails the test. Run alone without it, the test uses .tmp/python when
 * it exists, else `python3`, and skips if that lacks the packages.
 *
 * @module
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import process from "node:process";
import { existsSync } from "node:fs";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const OWN_PYTHON = fileURLToPath(
  new URL("../.tmp/python/bin/python", import.meta.url),
);
const CHOSEN = process.env["FASTAPI_PYTHON"];
const PYTHON = CHOSEN ?? (existsSync(OWN_PYTHON) ? OWN_PYTHON : "python3");
/** Node runs the whole grid; Deno and Bun, on the same script, a sample. */
const FULL = !("Deno" in globalThis) && process.versions["bun"] === undefined;
const SCRIPT = fileURLToPath(
  new URL("../scripts/fastapi_differential.py", import.meta.url),
);

const probe = spawnSync(PYTHON, [
  "-c",
  "import fastapi, pydantic, httpx, hypothesis, uvicorn",
], { stdio: "ignore", timeout: 30_000 });
const missing = probe.error !== undefined
  ? `no ${PYTHON} to run FastAPI`
  : probe.status !== 0 &&
    `${PYTHON} lacks fastapi, pydantic, httpx, hypothesis or uvicorn (FASTAPI_PYTHON)`;
// A Python named on purpose (npm test names its own) must be able to run it.
const skip = CHOSEN === undefined && missing;

/** Runs the script to its end, killed after 90 s. */
function runScript(
  args: string[],
): Promise<{ code: number | null; output: string }> {
  const child = spawn(PYTHON, ["-W", "ignore", SCRIPT, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Uint8Array) => (output += String(chunk)));
  child.stderr.on("data", (chunk: Uint8Array) => (output += String(chunk)));
  const timer = setTimeout(() => child.kill("SIGKILL"), 90_000);
  return new Promise((resolve) => {
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe("The validation compared with FastAPI", { skip }, () => {
  it("answers as FastAPI, or as a documented deviation", async () => {
    assert.equal(missing, false, "FASTAPI_PYTHON: " + missing);
    const { code, output } = await runScript([
      "--examples",
      "150",
      "--path-examples",
      "50",
      "--bodiless-examples",
      FULL ? "400" : "100",
      ...(FULL ? ["--bodiless-grid"] : []),
      "--runtime",
      process.execPath,
    ]);
    const lines = output.trim().split("\n");
    const last = lines[lines.length - 1]!;
    if (last.startsWith("SKIP")) return; // the script found no runtime
    assert.equal(code, 0, output);
    const summary = JSON.parse(last);
    assert.equal(summary.different, 0, output);
    // The edge cases alone give dozens of 422s to compare and each of the
    // documented deviations (a lone surrogate, 1e400, bytes that are not
    // UTF-8, an echo nested too deep); the routes that take no body, hundreds
    // of answers equal to FastAPI's, and the bodies past 64 KiB (two on each
    // of the five routes, one streamed on each, more generated) refused.
    assert.ok(summary.identical >= (FULL ? 2000 : 400), last);
    assert.ok(summary.deviation >= 4, last);
    assert.ok(summary.accepted >= 5, last);
    assert.ok(summary.over_bound >= 15, last);
    assert.ok(summary.chunked_get >= 6, last);
  });
});
