/**
 * The regression gate's reading and judging (bench/gate.ts), without timing
 * anything: the baseline committed in bench/README.md parses and names only
 * benches the gate runs, each bench still prints the column the gate reads,
 * and a figure fails exactly when it is more than 15 % worse.
 *
 * @module
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import {
  BENCHES,
  compare,
  figuresOf,
  markdownTables,
  parseBaseline,
} from "../bench/gate.ts";

const readme = readFileSync(
  new URL("../bench/README.md", import.meta.url),
  "utf8",
);

describe("the regression gate", () => {
  it("reads the baseline committed in bench/README.md", () => {
    const baselines = parseBaseline(readme);
    const checks = new Set(baselines.map((b) => b.check));
    for (const runtime of ["node", "deno", "bun"]) {
      for (const request of ["trigger", "delete404"]) {
        assert.ok(
          baselines.some((b) =>
            b.check === `hot_path ${request}` && b.runtime === runtime
          ),
          `no hot_path ${request} baseline on ${runtime}`,
        );
      }
    }
    assert.ok(checks.has("export_vs_zip memory"));
    assert.ok(checks.has("mock_request_shapes length-0"));
    for (const baseline of baselines) {
      assert.ok(baseline.value > 0 && baseline.value < 10, baseline.check);
      assert.ok(
        BENCHES[baseline.check.split(" ")[0]!] !== undefined,
        `${baseline.check}: no bench the gate runs`,
      );
    }
  });

  it("finds the column it reads in what each bench prints", () => {
    for (const [bench, { column }] of Object.entries(BENCHES)) {
      const source = readFileSync(
        new URL(`../bench/${bench}.ts`, import.meta.url),
        "utf8",
      );
      assert.ok(source.includes(`| ${column} |`), `${bench}: no "${column}"`);
    }
  });

  it("refuses a page without the markers or with an unknown direction", () => {
    assert.throws(() => parseBaseline("# Benchmarks\n"), /no <!-- gate/);
    const page = "<!-- gate:baseline:start -->\n" +
      "| check | node | deno | bun | better |\n| - | - | - | - | - |\n" +
      "| `hot_path trigger` | 0.5 | – | – | faster |\n" +
      "<!-- gate:baseline:end -->";
    assert.throws(() => parseBaseline(page), /Cannot read "better"/);
  });

  it("takes the figures of each bench's table by its keys", () => {
    const hot = "2026-11-26, load average 1\n\n" +
      "| runtime | request | bare req/s | API req/s | API / bare req/s | minimal / bare req/s |\n" +
      "| --- | --- | --- | --- | --- | --- |\n" +
      "| node | trigger | 69040 | 33829 | **0.49x** | **–** |\n" +
      "| deno | delete404 | 149854 | 29971 | **0.20x** | **–** |\n";
    assert.deepEqual(
      figuresOf("hot_path", hot),
      new Map([["hot_path trigger|node", 0.49], [
        "hot_path delete404|deno",
        0.2,
      ]]),
    );
    const exported =
      "| runtime | store | deflate | CPU API / zip | bytes API / zip |\n" +
      "| --- | --- | --- | --- | --- |\n" +
      "| bun | memory | server | **0.60x** | 1.004x |\n";
    assert.deepEqual(
      figuresOf("export_vs_zip", exported),
      new Map([["export_vs_zip memory|bun", 0.6]]),
    );
    const mock = 'no-length: wrk sends "POST / HTTP/1.1"\n\n' +
      "| shape | server | req/s | / bare req/s |\n| --- | --- | --- | --- |\n" +
      "| length-0 | mock | 23063 | 0.45x |\n" +
      "| length-0 | bare | 55435 | 1.00x |\n";
    assert.deepEqual(
      figuresOf("mock_request_shapes", mock),
      new Map([["mock_request_shapes length-0|node", 0.45]]),
    );
  });

  it("fails a figure more than 15 % worse, in the direction that is worse", () => {
    const higher = {
      check: "hot_path trigger",
      runtime: "deno",
      value: 0.2,
      better: "higher" as const,
    };
    const lower = {
      check: "export_vs_zip memory",
      runtime: "node",
      value: 1,
      better: "lower" as const,
    };
    const outcomes = (figures: [string, number][]) =>
      compare([higher, lower], new Map(figures)).map((v) => v.outcome);
    const keys = ["hot_path trigger|deno", "export_vs_zip memory|node"];
    assert.deepEqual(
      outcomes([[keys[0]!, 0.171], [keys[1]!, 1.149]]),
      ["pass", "pass"],
    );
    assert.deepEqual(
      outcomes([[keys[0]!, 0.169], [keys[1]!, 1.151]]),
      ["FAIL", "FAIL"],
    );
    assert.deepEqual(
      outcomes([[keys[0]!, 0.9], [keys[1]!, 0.1]]),
      ["pass", "pass"],
    );
    assert.deepEqual(outcomes([[keys[0]!, 0.2]]), ["pass", "MISSING"]);
  });

  it("reads a table's cells by their header, without bold or backticks", () => {
    const [table] = markdownTables(
      "| a | `b` |\n|:--|--:|\n| **1** | `x` |\n\nafter\n",
    );
    assert.deepEqual(table, { header: ["a", "b"], rows: [{ a: "1", b: "x" }] });
  });
});
