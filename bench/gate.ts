/**
 * The regression gate: the whole server's hot path, the export and the mock,
 * measured in a few minutes, each figure judged against the same figure of a
 * reference commit measured in the same rounds, and printed beside the one
 * committed in bench/README.md (the table between
 * `<!-- gate:baseline:start -->` and `<!-- gate:baseline:end -->`, which names
 * the commit its figures are of: the reference). Exits 1 when any figure is
 * more than 15 % worse than the reference's or missing, 2 when it cannot
 * measure (a tool missing, a bench failing, no baseline, an unknown commit).
 *
 * It runs the benches themselves, with fewer and shorter rounds, and reads
 * the Markdown tables they print:
 *
 * - `bench/hot_path.ts` with `BENCH_SERVERS=bare,api`: the API
 *   (`server/main.ts`, access log on, to a file) against the runtime's bare
 *   server, over sockets with wrk, on Node, Deno and Bun: API / bare req/s;
 * - `bench/export_vs_zip.ts` from memory: the server's CPU seconds for the
 *   export of 500 calls over `zip -6`'s on the same files;
 * - `bench/mock_request_shapes.ts` without Prism: the mock / bare req/s for
 *   each shape of the trigger test.
 *
 * Every figure is a ratio of two things measured in the same run, but such
 * ratios still move between machines (by 25 % for Node's hot path), so the
 * reference commit runs too: checked out by `git worktree add --detach` in a
 * temporary directory (this checkout's `node_modules` linked in, the whole
 * removed at exit), handed to each bench as `BENCH_BEFORE`, measured in the
 * same rounds, order rotated. A figure fails when it is more than 15 % worse
 * than the reference's here; the committed figure and the reference's
 * machine factor (its figure here over the committed one) are printed beside
 * it. A figure that is better is the higher one (req/s ratios) or the lower
 * one (CPU ratios), as the table's `better` column says. A req/s figure past
 * its limit fails only when the server's CPU µs a request (from `/proc`, in
 * the same runs) is also more than 15 % above the reference's: other load
 * that takes the cores from one server halves its req/s, not its CPU a
 * request. A FAIL is measured again at once, that bench narrowed to the
 * failed figures' runtimes (`BENCH_RUNTIMES`) or shapes (`BENCH_SHAPES`), and
 * stands only when the re-run fails too.
 *
 * Run: `node bench/gate.ts` (or `npm run bench:gate`; needs git, wrk, curl,
 * zip and unzip: `apt-get install -y wrk curl zip unzip`). `GATE_REFERENCE=0`
 * leaves the reference out and judges against the committed figures (right
 * only on the machine they were measured on). `BENCH_ROUNDS` (default 3) and
 * `BENCH_SECONDS` (default 2) go to every bench; `BENCH_RUNTIMES` picks
 * runtimes; `GATE_ONLY=hot_path,mock_request_shapes` runs only those benches
 * (the others' rows are skipped, not passed).
 *
 * @module
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { addWorktree, type Worktree } from "./git_worktree.ts";

/** A Markdown table: its header's cells and its rows' cells. */
export interface MarkdownTable {
  /** The header's cells, trimmed. */
  header: string[];
  /** Each row as its cells by header name. */
  rows: Record<string, string>[];
}

/**
 * The Markdown tables of a text (lines starting with `|`, the second line
 * the delimiter row), cells trimmed and their `**` and backticks removed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { markdownTables } from "./gate.ts";
 *
 * const [table] = markdownTables("x\n| a | b |\n| --- | --- |\n| 1 | **2x** |\n");
 * assert.deepEqual(table!.rows, [{ a: "1", b: "2x" }]);
 * ```
 */
export function markdownTables(text: string): MarkdownTable[] {
  const cells = (line: string) =>
    line.trim().replace(/^\||\|$/g, "").split("|").map((cell) =>
      cell.trim().replace(/\*\*|`/g, "")
    );
  const tables: MarkdownTable[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length - 1; i += 1) {
    if (!lines[i]!.trimStart().startsWith("|")) continue;
    if (!/^\s*\|[\s:|-]+\|\s*$/.test(lines[i + 1]!)) continue;
    const header = cells(lines[i]!);
    const rows: Record<string, string>[] = [];
    let j = i + 2;
    for (; j < lines.length && lines[j]!.trimStart().startsWith("|"); j += 1) {
      const row = cells(lines[j]!);
      rows.push(Object.fromEntries(header.map((name, k) => [name, row[k]!])));
    }
    tables.push({ header, rows });
    i = j - 1;
  }
  return tables;
}

/**
 * A ratio's value from its cell (`0.49x`, `1.02`); `undefined` for a cell
 * with no number (`–`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ratioOf } from "./gate.ts";
 *
 * assert.equal(ratioOf("0.49x"), 0.49);
 * assert.equal(ratioOf("–"), undefined);
 * ```
 */
export function ratioOf(cell: string | undefined): number | undefined {
  const found = /^(\d+(?:\.\d+)?)x?$/.exec(cell?.trim() ?? "");
  return found === null ? undefined : Number(found[1]);
}

/** One committed figure the gate compares with. */
export interface Baseline {
  /** The check: the bench's name and the row's name (`hot_path trigger`). */
  check: string;
  /** The runtime it was measured on. */
  runtime: string;
  /** The committed ratio. */
  value: number;
  /** Whether a higher or a lower ratio is better. */
  better: "higher" | "lower";
}

/** The runtimes the baseline table has a column for. */
export const RUNTIMES = ["node", "deno", "bun"];
const START = "<!-- gate:baseline:start -->";
const END = "<!-- gate:baseline:end -->";

/** The text between the gate's markers; throws when they are missing. */
function baselineSection(readme: string): string {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END, start);
  if (start < 0 || end < 0) {
    throw new Error(`Cannot find the baseline: no ${START} … ${END}`);
  }
  return readme.slice(start, end);
}

/**
 * The baseline figures of bench/README.md: the table between the gate's
 * marker comments, one row a check (`check`, `better` and one column a
 * runtime; `–` where a check has no figure on that runtime).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseBaseline } from "./gate.ts";
 *
 * const page = "<!-- gate:baseline:start -->\n" +
 *   "| check | what | node | deno | bun | better |\n" +
 *   "| --- | --- | --- | --- | --- | --- |\n" +
 *   "| `mock_request_shapes length-0` | mock / bare | 0.45 | – | – | higher |\n" +
 *   "<!-- gate:baseline:end -->\n";
 * assert.deepEqual(parseBaseline(page), [{
 *   check: "mock_request_shapes length-0",
 *   runtime: "node",
 *   value: 0.45,
 *   better: "higher",
 * }]);
 * ```
 */
export function parseBaseline(readme: string): Baseline[] {
  const [table] = markdownTables(baselineSection(readme));
  if (table === undefined) throw new Error("Cannot find the baseline table");
  const baselines: Baseline[] = [];
  for (const row of table.rows) {
    const better = row.better;
    if (better !== "higher" && better !== "lower") {
      throw new Error(`Cannot read "better" of ${row.check}: "${better}"`);
    }
    for (const runtime of RUNTIMES) {
      const value = ratioOf(row[runtime]);
      if (value !== undefined) {
        baselines.push({ check: row.check!, runtime, value, better });
      }
    }
  }
  return baselines;
}

/**
 * The commit the baseline figures are of, the gate's reference: the line
 * ``Reference: `<commit>` …`` between the gate's marker comments.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { referenceCommit } from "./gate.ts";
 *
 * const page = "<!-- gate:baseline:start -->\n" +
 *   "Reference: `df0c214`, 2026-11-28\n<!-- gate:baseline:end -->\n";
 * assert.equal(referenceCommit(page), "df0c214");
 * ```
 */
export function referenceCommit(readme: string): string {
  const found = /^Reference: `([0-9a-f]{7,40})`/m.exec(
    baselineSection(readme),
  );
  if (found === null) {
    throw new Error("Cannot find the reference: no line Reference: `<commit>`");
  }
  return found[1]!;
}

/** A baseline figure, the reference's here and the checkout's, judged. */
export interface Verdict extends Baseline {
  /** The checkout's ratio; `undefined` when its bench gave none. */
  measured: number | undefined;
  /**
   * The reference commit's ratio measured in the same rounds; `undefined`
   * when the reference did not run or its bench gave none.
   */
  reference: number | undefined;
  /** The reference's figure here over the committed one; `undefined` alike. */
  machineFactor: number | undefined;
  /** What `measured` is judged against: `reference`, or without it `value`. */
  against: number | undefined;
  /**
   * The checkout's server CPU µs a request over the reference's, in the same
   * rounds, where the bench measures it (above 1 is worse); else `undefined`.
   */
  cpuChange: number | undefined;
  /** The worst ratio that still passes; `undefined` with nothing to judge. */
  limit: number | undefined;
  /** `pass`, `FAIL` (more than the tolerance worse) or `MISSING`. */
  outcome: "pass" | "FAIL" | "MISSING";
  /** The first run's verdict, when this one is the re-run of its FAIL. */
  firstRun?: Verdict;
}

/**
 * Judges each figure measured (keyed `check|runtime`) against the
 * reference's figure measured in the same rounds, or, when no reference ran
 * (`reference` undefined), against the committed baseline: a figure fails
 * when it is worse by more than `tolerance` (0.15: below 0.85x a
 * higher-is-better figure, above 1.15x a lower-is-better one), and is
 * missing when it or the reference's was not measured. A machine that moves
 * the reference and the checkout alike moves the limit with them.
 *
 * Where `cpu` holds the servers' CPU µs a request for a figure (keyed alike),
 * a req/s figure worse than its limit fails only when the checkout's CPU a
 * request is also more than `tolerance` above the reference's: req/s drop
 * when other load takes the cores from one server, CPU a request hardly.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { compare } from "./gate.ts";
 *
 * const baseline = {
 *   check: "hot_path trigger",
 *   runtime: "node",
 *   value: 0.68,
 *   better: "higher" as const,
 * };
 * const key = "hot_path trigger|node";
 * // A slower machine: the reference 0.51 here, the checkout 0.50.
 * const [verdict] = compare(
 *   [baseline],
 *   new Map([[key, 0.5]]),
 *   new Map([[key, 0.51]]),
 * );
 * assert.equal(verdict!.outcome, "pass"); // 0.50 ≥ 0.85 × 0.51
 * assert.equal(verdict!.machineFactor, 0.51 / 0.68);
 * // Without the reference the committed 0.68 is the measure: 0.50 fails.
 * assert.equal(compare([baseline], new Map([[key, 0.5]]))[0]!.outcome, "FAIL");
 * ```
 */
export function compare(
  baselines: Baseline[],
  measured: Map<string, number>,
  reference?: Map<string, number>,
  cpu?: { checkout: Map<string, number>; reference: Map<string, number> },
  tolerance = 0.15,
): Verdict[] {
  return baselines.map((baseline) => {
    const key = `${baseline.check}|${baseline.runtime}`;
    const value = measured.get(key);
    const referenceHere = reference?.get(key);
    const against = reference === undefined ? baseline.value : referenceHere;
    const limit = against === undefined
      ? undefined
      : baseline.better === "higher"
      ? against * (1 - tolerance)
      : against * (1 + tolerance);
    const judged = value !== undefined && limit !== undefined;
    const [cpuHere, cpuBefore] = [
      cpu?.checkout.get(key),
      cpu?.reference.get(key),
    ];
    const cpuChange = cpuHere === undefined || cpuBefore === undefined
      ? undefined
      : cpuHere / cpuBefore;
    const worse = judged &&
      (baseline.better === "higher" ? value < limit : value > limit) &&
      (cpuChange === undefined || cpuChange > 1 + tolerance);
    return {
      ...baseline,
      measured: value,
      reference: referenceHere,
      machineFactor: referenceHere === undefined
        ? undefined
        : referenceHere / baseline.value,
      against,
      cpuChange,
      limit,
      outcome: !judged ? "MISSING" : worse ? "FAIL" : "pass",
    };
  });
}

/**
 * The verdicts once each FAIL was measured again: a FAIL stands only when
 * its re-run (`again`, the same checks measured anew) fails too; a pass on
 * the re-run replaces it, keeping the first run's verdict beside it. A
 * figure the re-run did not measure keeps its first verdict.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { compare, confirmFailures } from "./gate.ts";
 *
 * const baseline = {
 *   check: "mock_request_shapes no-length",
 *   runtime: "node",
 *   value: 0.69,
 *   better: "higher" as const,
 * };
 * const key = "mock_request_shapes no-length|node";
 * const judge = (now: number) =>
 *   compare([baseline], new Map([[key, now]]), new Map([[key, 0.5]]));
 * const [noise] = confirmFailures(judge(0.38), judge(0.49));
 * assert.equal(noise!.outcome, "pass");
 * assert.equal(noise!.firstRun!.outcome, "FAIL");
 * assert.equal(confirmFailures(judge(0.38), judge(0.37))[0]!.outcome, "FAIL");
 * ```
 */
export function confirmFailures(
  first: Verdict[],
  again: Verdict[],
): Verdict[] {
  return first.map((verdict) => {
    if (verdict.outcome !== "FAIL") return verdict;
    const rerun = again.find((v) =>
      v.check === verdict.check && v.runtime === verdict.runtime &&
      v.outcome !== "MISSING"
    );
    return rerun === undefined ? verdict : { ...rerun, firstRun: verdict };
  });
}

/** One figure a row of a bench's table holds. */
export interface Figure {
  /** `check|runtime`. */
  key: string;
  /** Whose figure it is, and whether the ratio or the server's CPU µs/req. */
  of: keyof Figures;
  /** The cell that holds it. */
  cell: string | undefined;
}

/** A bench the gate runs, and how its printed table gives the figures. */
export interface Bench {
  /** Extra environment for the bench. */
  env: Record<string, string>;
  /** The column of the checkout's ratio, which names the table to read. */
  column: string;
  /** The environment that narrows a re-run to these failed figures. */
  narrow: (failed: Baseline[]) => Record<string, string>;
  /** The column of the reference's ratio (its `BENCH_BEFORE` server). */
  referenceColumn: string;
  /** The figures a row of the table holds. */
  figures: (row: Record<string, string>) => Figure[];
}

/** The runtimes of some figures, for `BENCH_RUNTIMES`. */
const runtimesOf = (figures: Baseline[]) =>
  [...new Set(figures.map((b) => b.runtime))].join(",");

/** Whose the mock bench's rows are, by server; other rows are skipped. */
const MOCK_SIDES: Record<string, "checkout" | "reference"> = {
  mock: "checkout",
  "mock before": "reference",
};

/** The benches, by name (the checks' first word). */
export const BENCHES: Record<string, Bench> = {
  hot_path: {
    env: { BENCH_SERVERS: "bare,api", BENCH_HONO: "0" },
    column: "API / bare req/s",
    narrow: (failed) => ({ BENCH_RUNTIMES: runtimesOf(failed) }),
    referenceColumn: "before / bare req/s",
    figures: (row) => {
      const key = `hot_path ${row.request}|${row.runtime}`;
      return [
        { key, of: "checkout", cell: row["API / bare req/s"] },
        { key, of: "reference", cell: row["before / bare req/s"] },
        { key, of: "checkoutCpu", cell: row["API server CPU µs/req"] },
        { key, of: "referenceCpu", cell: row["before CPU µs/req"] },
      ];
    },
  },
  export_vs_zip: {
    env: {
      BENCH_STORES: "memory",
      BENCH_COMPRESSIONS: "server",
      BENCH_AT_ONCE: "0",
    },
    column: "CPU API / zip",
    narrow: (failed) => ({ BENCH_RUNTIMES: runtimesOf(failed) }),
    referenceColumn: "CPU before / zip",
    figures: (row) => {
      const key = `export_vs_zip ${row.store}|${row.runtime}`;
      return [
        { key, of: "checkout", cell: row["CPU API / zip"] },
        { key, of: "reference", cell: row["CPU before / zip"] },
      ];
    },
  },
  mock_request_shapes: {
    env: { PRISM: "/nonexistent/prism" },
    column: "/ bare req/s",
    narrow: (failed) => ({
      BENCH_SHAPES: [...new Set(failed.map((b) => b.check.split(" ")[1]))]
        .join(","),
    }),
    referenceColumn: "/ bare req/s",
    figures: (row) => {
      const of = MOCK_SIDES[row.server!];
      const key = `mock_request_shapes ${row.shape}|node`;
      return of === undefined ? [] : [
        { key, of, cell: row["/ bare req/s"] },
        { key, of: `${of}Cpu`, cell: row["CPU µs/req"] },
      ];
    },
  },
};

/** The figures of one run: the checkout's and the reference's, by key. */
export interface Figures {
  /** The checkout's ratios. */
  checkout: Map<string, number>;
  /** The reference's ratios (empty when it did not run). */
  reference: Map<string, number>;
  /** The checkout's server CPU µs a request, where the bench prints it. */
  checkoutCpu: Map<string, number>;
  /** The reference's server CPU µs a request, alike. */
  referenceCpu: Map<string, number>;
}

/**
 * The figures a bench's output holds: in the table that has the bench's
 * column, each row's ratios under the row's key, the checkout's and the
 * reference's apart.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { figuresOf } from "./gate.ts";
 *
 * const output = "| runtime | request | API / bare req/s | before / bare req/s |\n" +
 *   "| --- | --- | --- | --- |\n" +
 *   "| bun | trigger | **0.43x** | **0.45x** |\n";
 * const figures = figuresOf("hot_path", output);
 * assert.deepEqual(figures.checkout, new Map([["hot_path trigger|bun", 0.43]]));
 * assert.deepEqual(figures.reference, new Map([["hot_path trigger|bun", 0.45]]));
 * ```
 */
export function figuresOf(bench: string, output: string): Figures {
  const { column, figures } = BENCHES[bench]!;
  const found: Figures = {
    checkout: new Map(),
    reference: new Map(),
    checkoutCpu: new Map(),
    referenceCpu: new Map(),
  };
  const table = markdownTables(output).find((t) => t.header.includes(column));
  for (const row of table?.rows ?? []) {
    for (const figure of figures(row)) {
      const value = ratioOf(figure.cell);
      if (value !== undefined) found[figure.of].set(figure.key, value);
    }
  }
  return found;
}

const ROUNDS = process.env.BENCH_ROUNDS ?? "3";
const SECONDS = process.env.BENCH_SECONDS ?? "2";
/** The bench running now, to stop with the gate. */
let running: ChildProcess | undefined;

/**
 * Runs a bench script under Node, with `before` as its `BENCH_BEFORE` when
 * given; resolves with its stdout.
 */
function runBench(
  bench: string,
  before: string | undefined,
  narrow: Record<string, string> = {},
): Promise<string> {
  const child = spawn(
    process.execPath,
    [join("bench", `${bench}.ts`)],
    {
      stdio: ["ignore", "pipe", "inherit"],
      // A group of its own, so that a signal to the gate stops its servers.
      detached: true,
      env: {
        ...process.env,
        BENCH_ROUNDS: ROUNDS,
        BENCH_SECONDS: SECONDS,
        ...BENCHES[bench]!.env,
        ...(before === undefined ? {} : { BENCH_BEFORE: before }),
        ...narrow,
      },
    },
  );
  running = child;
  let output = "";
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk: string) => {
    output += chunk;
    process.stderr.write(chunk);
  });
  return new Promise((resolve, reject) =>
    child.once("close", (code) => {
      running = undefined;
      if (code === 0) resolve(output);
      else reject(new Error(`bench/${bench}.ts exited ${code}`));
    })
  );
}

/** The version line of each tool the gate relies on. */
function versions(): string {
  const bin = (name: string) => join("node_modules", ".bin", name);
  const first = (command: string, args: string[]) =>
    spawnSync(command, args, { encoding: "utf8" }).stdout?.split("\n")[0] ??
      "";
  return [
    `node ${first(bin("node"), ["--version"])}`,
    first(bin("deno"), ["--version"]),
    `bun ${first(bin("bun"), ["--version"])}`,
    first("wrk", ["-v"]).split(" [")[0],
  ].join(", ");
}

/** Whether a figure is past its limit (then passed only by its CPU). */
const beyond = (v: Verdict) =>
  v.measured !== undefined && v.limit !== undefined &&
  (v.better === "higher" ? v.measured < v.limit : v.measured > v.limit);

/** A ratio to two places, or `–`. */
const cell = (value: number | undefined) => value?.toFixed(2) ?? "–";

/** The checkout's commit, and whether the tree differs from it. */
function checkedOut(): string {
  const git = (...args: string[]) =>
    spawnSync("git", args, { encoding: "utf8" }).stdout.trim();
  const changed = git("status", "--porcelain", "--untracked-files=no");
  return `${git("rev-parse", "--short", "HEAD")}${
    changed === "" ? "" : " with uncommitted changes"
  }`;
}

if (import.meta.main) {
  const missing = ["git", "wrk", "curl", "zip", "unzip"].filter((tool) =>
    spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0
  );
  if (missing.length > 0) {
    console.error(
      `Cannot run the gate: ${missing.join(", ")} missing ` +
        `(apt-get install -y ${missing.join(" ")})`,
    );
    process.exit(2);
  }
  /** Exits 2: the gate could not measure, which is not a verdict. */
  const cannot = (error: unknown): never => {
    console.error(`Cannot run the gate: ${(error as Error).message}`);
    process.exit(2);
  };
  const withReference = process.env.GATE_REFERENCE !== "0";
  let baselines: Baseline[] = [];
  let commit = "";
  try {
    const readme = readFileSync("bench/README.md", "utf8");
    baselines = parseBaseline(readme);
    commit = referenceCommit(readme);
  } catch (error) {
    cannot(error);
  }
  const only = process.env.GATE_ONLY?.split(",");
  for (const name of only ?? []) {
    if (BENCHES[name] === undefined) cannot(new Error(`no bench "${name}"`));
  }
  const runtimes = process.env.BENCH_RUNTIMES?.split(",") ?? RUNTIMES;
  const benches = [...new Set(baselines.map((b) => b.check.split(" ")[0]!))]
    .filter((bench) => only === undefined || only.includes(bench));
  for (const bench of benches) {
    if (BENCHES[bench] === undefined) {
      cannot(new Error(`the baseline names "${bench}", which it does not run`));
    }
  }
  const started = performance.now();
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.once(signal, () => {
      if (running?.pid !== undefined) process.kill(-running.pid, signal);
      process.exit(130);
    });
  }
  let worktree: Worktree | undefined;
  if (withReference) {
    try {
      worktree = addWorktree(".", commit);
    } catch (error) {
      cannot(error);
    }
    process.once("exit", () => worktree!.remove());
    console.error(`Reference ${commit} checked out in ${worktree!.path}`);
  }
  const seconds: string[] = [];
  const gated = baselines.filter((b) =>
    benches.includes(b.check.split(" ")[0]!) &&
    (b.check.startsWith("mock_") || runtimes.includes(b.runtime))
  );
  /** Runs the benches of some figures (narrowed to them if asked); judges. */
  const measure = async (figures: Baseline[], narrowed: boolean) => {
    const all: Figures = {
      checkout: new Map(),
      reference: new Map(),
      checkoutCpu: new Map(),
      referenceCpu: new Map(),
    };
    for (const bench of benches) {
      const ofBench = figures.filter((b) => b.check.split(" ")[0] === bench);
      if (ofBench.length === 0) continue;
      const begun = performance.now();
      console.error(`\n== bench/${bench}.ts${narrowed ? ", again" : ""}`);
      const output = await runBench(
        bench,
        worktree?.path,
        narrowed ? BENCHES[bench]!.narrow(ofBench) : {},
      ).catch(cannot);
      const found = figuresOf(bench, output);
      for (const of of Object.keys(all) as (keyof Figures)[]) {
        for (const [key, value] of found[of]) all[of].set(key, value);
      }
      seconds.push(
        `${bench}${narrowed ? " again" : ""} ${
          ((performance.now() - begun) / 1000).toFixed(0)
        } s`,
      );
    }
    return compare(
      figures,
      all.checkout,
      withReference ? all.reference : undefined,
      { checkout: all.checkoutCpu, reference: all.referenceCpu },
    );
  };
  const first = await measure(gated, false);
  const failedFirst = first.filter((v) => v.outcome === "FAIL");
  const verdicts = failedFirst.length === 0
    ? first
    : confirmFailures(first, await measure(failedFirst, true));
  console.log(
    `\nGate, ${new Date().toISOString()}, commit ${checkedOut()} against ${
      withReference
        ? `the reference ${commit} in the same rounds`
        : `${commit}'s committed figures (GATE_REFERENCE=0)`
    }, ${versions()}, load average ${
      readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")
    }; BENCH_ROUNDS=${ROUNDS} BENCH_SECONDS=${SECONDS}; ${
      seconds.join(", ")
    }, ${((performance.now() - started) / 1000).toFixed(0)} s in all\n`,
  );
  console.log(
    "| check | runtime | committed | reference here | machine factor | now | now / judged against | limit | CPU µs/req now / reference | outcome |",
  );
  console.log("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
  for (const v of verdicts) {
    console.log(
      `| ${v.check} | ${v.runtime} | ${v.value.toFixed(2)} | ${
        cell(v.reference)
      } | ${cell(v.machineFactor)} | ${cell(v.measured)} | ${
        v.measured === undefined || v.against === undefined
          ? "–"
          : (v.measured / v.against).toFixed(2)
      } | ${
        v.limit === undefined
          ? "–"
          : `${v.better === "higher" ? "≥" : "≤"} ${v.limit.toFixed(3)}`
      } | ${cell(v.cpuChange)} | ${
        v.outcome !== "pass"
          ? `**${v.outcome}**`
          : beyond(v)
          ? "pass: past the limit, CPU a request not"
          : "pass"
      }${
        v.firstRun === undefined
          ? ""
          : `, re-run (first: ${cell(v.firstRun.measured)}, ${
            cell(v.firstRun.reference)
          }, CPU ${cell(v.firstRun.cpuChange)})`
      } |`,
    );
  }
  const failed = verdicts.filter((v) => v.outcome !== "pass").length;
  const judge = withReference
    ? `the reference ${commit}'s here`
    : "bench/README.md's";
  console.log(
    failed === 0
      ? `\nAll ${verdicts.length} figures within 15 % of ${judge}.`
      : `\n${failed} of ${verdicts.length} figures more than 15 % worse than ${judge}, or missing.`,
  );
  process.exit(failed === 0 ? 0 : 1);
}
