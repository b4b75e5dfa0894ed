/**
 * The differential check against FastAPI, small and bounded: runs
 * `scripts/fastapi_differential.py` (the edge cases and a few dozen generated
 * bodies and path segments) against the mock server under the runtime running
 * this file. Skipped without a Python that has fastapi, pydantic, httpx,
 * hypothesis and uvicorn: `FASTAPI_PYTHON` names one (default `python3`).
 *
 * @module
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import process from "node:process";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const PYTHON = process.env["FASTAPI_PYTHON"] ?? "python3";
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

describe("The validation compared with FastAPI", { skip: missing }, () => {
  it("answers 422s byte for byte as FastAPI, or as a documented deviation", async () => {
    const { code, output } = await runScript([
      "--examples",
      "150",
      "--path-examples",
      "50",
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
    // UTF-8, an echo nested too deep).
    assert.ok(summary.identical_422 >= 50, last);
    assert.ok(summary.deviation >= 4, last);
    assert.ok(summary.accepted >= 10, last);
  });
});
