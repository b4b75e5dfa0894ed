/**
 * The regression gate's reading and judging (bench/gate.ts), without timing
 * anything: the baseline committed in bench/README.md parses, names its
 * reference commit and only benches the gate runs, each bench still prints
 * the columns the gate reads, and a figure fails exactly when it is more
 * than 15 % worse than the reference's measured in the same rounds (or,
 * without the reference, than the committed one): a change that is slower
 * fails, a machine that is slower for both passes.
 *
 * @module
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import {
  BENCHES,
  compare,
  confirmFailures,
  figuresOf,
  markdownTables,
  parseBaseline,
  referenceCommit,
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
    assert.match(referenceCommit(readme), /^[0-9a-f]{7,40}$/);
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

  it("finds the columns it reads in what each bench prints", () => {
    for (const [bench, b] of Object.entries(BENCHES)) {
      const source = readFileSync(
        new URL(`../bench/${bench}.ts`, import.meta.url),
        "utf8",
      );
      for (const column of [b.column, b.referenceColumn]) {
        assert.ok(source.includes(`| ${column} |`), `${bench}: no "${column}"`);
      }
    }
  });

  it("refuses a page without the markers or with an unknown direction", () => {
    assert.throws(() => parseBaseline("# Benchmarks\n"), /no <!-- gate/);
    const page = "<!-- gate:baseline:start -->\n" +
      "| check | node | deno | bun | better |\n| - | - | - | - | - |\n" +
      "| `hot_path trigger` | 0.5 | – | – | faster |\n" +
      "<!-- gate:baseline:end -->";
    assert.throws(() => parseBaseline(page), /Cannot read "better"/);
    assert.throws(() => referenceCommit(page), /no line Reference/);
  });

  it("takes the checkout's and the reference's figures by their keys", () => {
    const hot = "2026-11-26, load average 1\n\n" +
      "| runtime | request | bare req/s | API req/s | API / bare req/s | API server CPU µs/req | minimal / bare req/s | before req/s | before / bare req/s | before CPU µs/req |\n" +
      "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n" +
      "| node | trigger | 69040 | 33829 | **0.49x** | 28.1 | **–** | 34520 | **0.50x** | 27.5 |\n" +
      "| deno | delete404 | 149854 | 29971 | **0.20x** | 16.4 | **–** | 31469 | **0.21x** | 16.0 |\n";
    assert.deepEqual(figuresOf("hot_path", hot), {
      checkout: new Map([
        ["hot_path trigger|node", 0.49],
        ["hot_path delete404|deno", 0.2],
      ]),
      reference: new Map([
        ["hot_path trigger|node", 0.5],
        ["hot_path delete404|deno", 0.21],
      ]),
      checkoutCpu: new Map([
        ["hot_path trigger|node", 28.1],
        ["hot_path delete404|deno", 16.4],
      ]),
      referenceCpu: new Map([
        ["hot_path trigger|node", 27.5],
        ["hot_path delete404|deno", 16],
      ]),
    });
    const exported =
      "| runtime | store | deflate | CPU API / zip | bytes API / zip | before CPU s | CPU before / zip |\n" +
      "| --- | --- | --- | --- | --- | --- | --- |\n" +
      "| bun | memory | server | **0.60x** | 1.004x | 0.55 | **0.62x** |\n";
    assert.deepEqual(figuresOf("export_vs_zip", exported), {
      checkout: new Map([["export_vs_zip memory|bun", 0.6]]),
      reference: new Map([["export_vs_zip memory|bun", 0.62]]),
      checkoutCpu: new Map(),
      referenceCpu: new Map(),
    });
    const mock = 'no-length: wrk sends "POST / HTTP/1.1"\n\n' +
      "| shape | server | req/s | CPU µs/req | / bare req/s |\n" +
      "| --- | --- | --- | --- | --- |\n" +
      "| length-0 | mock | 23063 | 40.1 | 0.45x |\n" +
      "| length-0 | mock before | 23524 | 39.8 | 0.46x |\n" +
      "| length-0 | bare | 55435 | 17.5 | 1.00x |\n";
    assert.deepEqual(figuresOf("mock_request_shapes", mock), {
      checkout: new Map([["mock_request_shapes length-0|node", 0.45]]),
      reference: new Map([["mock_request_shapes length-0|node", 0.46]]),
      checkoutCpu: new Map([["mock_request_shapes length-0|node", 40.1]]),
      referenceCpu: new Map([["mock_request_shapes length-0|node", 39.8]]),
    });
    const withoutReference = "| runtime | request | API / bare req/s |\n" +
      "| --- | --- | --- |\n| bun | trigger | **0.43x** |\n";
    assert.equal(figuresOf("hot_path", withoutReference).reference.size, 0);
  });

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
  const keys = ["hot_path trigger|deno", "export_vs_zip memory|node"];
  /** The outcomes of the two figures, with a reference run or without. */
  const outcomes = (
    figures: [string, number][],
    reference?: [string, number][],
  ) =>
    compare(
      [higher, lower],
      new Map(figures),
      reference === undefined ? undefined : new Map(reference),
    ).map((v) => v.outcome);

  it("without a reference, fails a figure more than 15 % worse than the committed one", () => {
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

  it("fails a figure more than 15 % worse than the reference's in the same rounds", () => {
    // The reference as committed: the limit is the reference's here.
    const reference: [string, number][] = [[keys[0]!, 0.2], [keys[1]!, 1]];
    assert.deepEqual(
      outcomes([[keys[0]!, 0.171], [keys[1]!, 1.149]], reference),
      ["pass", "pass"],
    );
    assert.deepEqual(
      outcomes([[keys[0]!, 0.169], [keys[1]!, 1.151]], reference),
      ["FAIL", "FAIL"],
    );
    // A faster machine: a change 20 % worse than the reference here fails
    // though it beats the committed figures.
    assert.deepEqual(
      outcomes([[keys[0]!, 0.24], [keys[1]!, 0.6]], [
        [keys[0]!, 0.3],
        [keys[1]!, 0.5],
      ]),
      ["FAIL", "FAIL"],
    );
  });

  it("passes a machine that shifts the reference and the checkout alike", () => {
    // This machine: the reference 25 % below its committed figures, the
    // checkout as low; the committed figures alone would fail both.
    const slower: [string, number][] = [[keys[0]!, 0.15], [keys[1]!, 1.25]];
    assert.deepEqual(outcomes(slower), ["FAIL", "FAIL"]);
    assert.deepEqual(outcomes(slower, slower), ["pass", "pass"]);
    const [verdict] = compare([higher], new Map(slower), new Map(slower));
    assert.ok(Math.abs(verdict!.machineFactor! - 0.75) < 1e-9);
    assert.equal(verdict!.against, 0.15);
    assert.ok(Math.abs(verdict!.limit! - 0.1275) < 1e-9);
  });

  it("fails a req/s figure past its limit only when CPU a request confirms it", () => {
    const past: [string, number][] = [[keys[0]!, 0.1]];
    const reference: [string, number][] = [[keys[0]!, 0.2]];
    const judged = (checkoutCpu: number) =>
      compare([higher], new Map(past), new Map(reference), {
        checkout: new Map([[keys[0]!, checkoutCpu]]),
        reference: new Map([[keys[0]!, 20]]),
      })[0]!;
    // Load took the cores from the checkout's server: req/s halved, CPU not.
    assert.equal(judged(22.9).outcome, "pass");
    assert.ok(Math.abs(judged(22.9).cpuChange! - 1.145) < 1e-9);
    // A slower change: CPU a request more than 15 % up too.
    assert.equal(judged(23.1).outcome, "FAIL");
    // A figure within its limit passes whatever its CPU.
    const within = compare([higher], new Map(reference), new Map(reference), {
      checkout: new Map([[keys[0]!, 40]]),
      reference: new Map([[keys[0]!, 20]]),
    });
    assert.equal(within[0]!.outcome, "pass");
  });

  it("keeps a FAIL only when its re-run fails too", () => {
    const reference: [string, number][] = [[keys[0]!, 0.2], [keys[1]!, 1]];
    const judge = (figures: [string, number][]) =>
      compare([higher, lower], new Map(figures), new Map(reference));
    const first = judge([[keys[0]!, 0.1], [keys[1]!, 1.3]]);
    assert.deepEqual(first.map((v) => v.outcome), ["FAIL", "FAIL"]);
    // The hot path's figure passes on its re-run, the export's fails again.
    const again = judge([[keys[0]!, 0.19], [keys[1]!, 1.31]]);
    const confirmed = confirmFailures(first, again);
    assert.deepEqual(confirmed.map((v) => v.outcome), ["pass", "FAIL"]);
    assert.equal(confirmed[0]!.measured, 0.19);
    assert.equal(confirmed[0]!.firstRun!.measured, 0.1);
    // A re-run that did not measure a figure leaves its FAIL.
    assert.deepEqual(
      confirmFailures(first, []).map((v) => v.outcome),
      ["FAIL", "FAIL"],
    );
    // A pass is never re-judged.
    const passed = judge([[keys[0]!, 0.2], [keys[1]!, 1]]);
    assert.deepEqual(confirmFailures(passed, first), passed);
  });

  it("narrows a re-run to the failed figures' runtimes or shapes", () => {
    const failed = (check: string, runtime: string) => ({
      check,
      runtime,
      value: 0.5,
      better: "higher" as const,
    });
    assert.deepEqual(
      BENCHES.hot_path!.narrow([
        failed("hot_path trigger", "bun"),
        failed("hot_path delete404", "bun"),
        failed("hot_path trigger", "node"),
      ]),
      { BENCH_RUNTIMES: "bun,node" },
    );
    assert.deepEqual(
      BENCHES.export_vs_zip!.narrow([failed("export_vs_zip memory", "deno")]),
      { BENCH_RUNTIMES: "deno" },
    );
    assert.deepEqual(
      BENCHES.mock_request_shapes!.narrow([
        failed("mock_request_shapes no-length", "node"),
        failed("mock_request_shapes json-body", "node"),
      ]),
      { BENCH_SHAPES: "no-length,json-body" },
    );
  });

  it("counts a figure missing when the reference gave none", () => {
    assert.deepEqual(
      outcomes([[keys[0]!, 0.2], [keys[1]!, 1]], [[keys[0]!, 0.2]]),
      ["pass", "MISSING"],
    );
    assert.deepEqual(
      outcomes([[keys[0]!, 0.2], [keys[1]!, 1]], []),
      ["MISSING", "MISSING"],
    );
  });

  it("reads a table's cells by their header, without bold or backticks", () => {
    const [table] = markdownTables(
      "| a | `b` |\n|:--|--:|\n| **1** | `x` |\n\nafter\n",
    );
    assert.deepEqual(table, { header: ["a", "b"], rows: [{ a: "1", b: "x" }] });
  });
});
