/**
 * The handler under Vercel's `edge-runtime` package (the Edge Runtime's VM:
 * Web APIs only, no Node globals): test/deploy/edge_function.ts bundled with
 * `bun build` and every operation sent through `dispatchFetch`: the ZIP read
 * back by independent readers, a delete twice (204, then 404), trigger tests.
 *
 * Run under Node only: `node --test test/deploy/edge_runtime.ts`.
 *
 * @module
 */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { EdgeRuntime } from "edge-runtime";
import { bundle } from "./bundle.ts";
import { checkEveryOperation, type Send } from "./fetch_checks.ts";

describe("the handler under edge-runtime", () => {
  let runtime: EdgeRuntime;
  before(() => {
    runtime = new EdgeRuntime({
      // A classic script, with fflate inside: the VM has no
      // CompressionStream, so the ZIP writer loads it.
      initialCode: bundle("test/deploy/edge_function.ts", { format: "iife" }),
    });
  });

  it("runs without Node's globals", async () => {
    assert.equal(await runtime.evaluate("typeof process"), "undefined");
    assert.equal(await runtime.evaluate("typeof JSON.rawJSON"), "function");
  });

  it("answers every operation: ZIP read back, delete twice, trigger test", async () => {
    const send: Send = async (path, init) => {
      const response = await runtime.dispatchFetch(
        `http://edge.test${path}`,
        init as never,
      );
      await response.waitUntil();
      // The VM's own Response, re-wrapped as this runtime's.
      return new Response(
        response.status === 204 ? null : await response.arrayBuffer(),
        {
          status: response.status,
          headers: Object.fromEntries(response.headers as never),
        },
      );
    };
    await checkEveryOperation(send);
  });
});
