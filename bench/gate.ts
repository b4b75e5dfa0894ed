/**
 * The regression gate: the whole server's hot path, the export and the mock,
 * measured in a few minutes and compared with the figures committed in
 * bench/README.md (the table between `<!-- gate:baseline:start -->` and
 * `<!-- gate:baseline:end -->`); exits 1 when any figure is more than 15 %
 * worse than its baseline or missing, 2 when it cannot measure (a tool
 * missing, a bench failing, no baseline).
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
 * Every figure is a ratio of two things measured in the same run, in rotated
 * order, so the gate holds across machines; absolute req/s are not compared.
 * A figure that is better is the higher one (req/s ratios) or the lower one
 * (CPU ratios), as the table's `better` column says: "15 % worse" is below
 * 0.85x the baseline, or above 1.15x it.
 *
 * Run: `node bench/gate.ts` (or `npm run bench:gate`; needs wrk, curl, zip
 * and unzip: `apt-get install -y wrk curl zip unzip`). `BENCH_ROUNDS`
 * (default 3) and `BENCH_SECONDS` (default 2) go to every bench;
 * `BENCH_RUNTIMES` picks runtimes; `GATE_ONLY=hot_path,mock_request_shapes`
 * runs only those benches (the others' rows are skipped, not passed).
 *
 * @module
 */
import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";

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
  const start = readme.indexOf(START);
  const end = readme.indexOf(END, start);
  if (start < 0 || end < 0) {
    throw new Error(`Cannot find the baseline: no ${START} … ${END}`);
  }
  const [table] = markdownTables(readme.slice(start, end));
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

/** A baseline figure against the one measured now. */
export interface Verdict extends Baseline {
  /** The ratio measured now; `undefined` when the bench gave none. */
  measured: number | undefined;
  /** The worst ratio that still passes. */
  limit: number;
  /** `pass`, `FAIL` (more than the tolerance worse) or `MISSING`. */
  outcome: "pass" | "FAIL" | "MISSING";
}

/**
 * Compares each baseline figure with the one measured (keyed
 * `check|runtime`): a figure fails when it is worse than its baseline by
 * more than `tolerance` (0.15: below 0.85x a higher-is-better baseline, above
 * 1.15x a lower-is-better one), and is missing when it was not measured.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { compare } from "./gate.ts";
 *
 * const [verdict] = compare(
 *   [{ check: "hot_path trigger", runtime: "deno", value: 0.22, better: "higher" }],
 *   new Map([["hot_path trigger|deno", 0.18]]),
 * );
 * assert.equal(verdict!.outcome, "FAIL"); // 0.18 < 0.85 × 0.22 = 0.187
 * ```
 */
export function compare(
  baselines: Baseline[],
  measured: Map<string, number>,
  tolerance = 0.15,
): Verdict[] {
  return baselines.map((baseline) => {
    const value = measured.get(`${baseline.check}|${baseline.runtime}`);
    const limit = baseline.better === "higher"
      ? baseline.value * (1 - tolerance)
      : baseline.value * (1 + tolerance);
    const worse = value !== undefined &&
      (baseline.better === "higher" ? value < limit : value > limit);
    return {
      ...baseline,
      measured: value,
      limit,
      outcome: value === undefined ? "MISSING" : worse ? "FAIL" : "pass",
    };
  });
}

/** A bench the gate runs, and how its printed table gives the figures. */
interface Bench {
  /** Extra environment for the bench. */
  env: Record<string, string>;
  /** The column that holds the gated ratio. */
  column: string;
  /** The figure's key (`check|runtime`) for a row, or nothing to skip it. */
  key: (row: Record<string, string>) => string | undefined;
}

/** The benches, by name (the checks' first word). */
export const BENCHES: Record<string, Bench> = {
  hot_path: {
    env: { BENCH_SERVERS: "bare,api", BENCH_HONO: "0" },
    column: "API / bare req/s",
    key: (row) => `hot_path ${row.request}|${row.runtime}`,
  },
  export_vs_zip: {
    env: { BENCH_STORES: "memory", BENCH_COMPRESSIONS: "server" },
    column: "CPU API / zip",
    key: (row) => `export_vs_zip ${row.store}|${row.runtime}`,
  },
  mock_request_shapes: {
    env: { PRISM: "/nonexistent/prism" },
    column: "/ bare req/s",
    key: (row) =>
      row.server === "mock"
        ? `mock_request_shapes ${row.shape}|node`
        : undefined,
  },
};

/**
 * The figures a bench's output holds: for each row of the table that has the
 * bench's column, its ratio under the row's key.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { figuresOf } from "./gate.ts";
 *
 * const output = "| runtime | request | API / bare req/s |\n| --- | --- | --- |\n" +
 *   "| bun | trigger | **0.43x** |\n";
 * assert.deepEqual(
 *   figuresOf("hot_path", output),
 *   new Map([["hot_path trigger|bun", 0.43]]),
 * );
 * ```
 */
export function figuresOf(bench: string, output: string): Map<string, number> {
  const { column, key } = BENCHES[bench]!;
  const figures = new Map<string, number>();
  const table = markdownTables(output).find((t) => t.header.includes(column));
  for (const row of table?.rows ?? []) {
    const name = key(row);
    const value = ratioOf(row[column]);
    if (name !== undefined && value !== undefined) figures.set(name, value);
  }
  return figures;
}

/** Runs a bench script under Node; resolves with its stdout. */
function runBench(bench: string): Promise<string> {
  const child = spawn(
    process.execPath,
    [join("bench", `${bench}.ts`)],
    {
      stdio: ["ignore", "pipe", "inherit"],
      env: {
        ...process.env,
        BENCH_ROUNDS: process.env.BENCH_ROUNDS ?? "3",
        BENCH_SECONDS: process.env.BENCH_SECONDS ?? "2",
        ...BENCHES[bench]!.env,
      },
    },
  );
  let output = "";
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk: string) => {
    output += chunk;
    process.stderr.write(chunk);
  });
  return new Promise((resolve, reject) =>
    child.once(
      "close",
      (code) =>
        code === 0
          ? resolve(output)
          : reject(new Error(`bench/${bench}.ts exited ${code}`)),
    )
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

if (import.meta.main) {
  const missing = ["wrk", "curl", "zip", "unzip"].filter((tool) =>
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
  let baselines: Baseline[] = [];
  try {
    baselines = parseBaseline(readFileSync("bench/README.md", "utf8"));
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
  const measured = new Map<string, number>();
  const seconds: string[] = [];
  for (const bench of benches) {
    const begun = performance.now();
    console.error(`\n== bench/${bench}.ts`);
    const output = await runBench(bench).catch(cannot);
    for (const [key, value] of figuresOf(bench, output)) {
      measured.set(key, value);
    }
    seconds.push(
      `${bench} ${((performance.now() - begun) / 1000).toFixed(0)} s`,
    );
  }
  const verdicts = compare(
    baselines.filter((b) =>
      benches.includes(b.check.split(" ")[0]!) &&
      (b.check.startsWith("mock_") || runtimes.includes(b.runtime))
    ),
    measured,
  );
  console.log(
    `\nGate, ${new Date().toISOString()}, commit ${
      spawnSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" })
        .stdout.trim()
    }, ${versions()}, load average ${
      readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")
    }; BENCH_ROUNDS=${process.env.BENCH_ROUNDS ?? 3} BENCH_SECONDS=${
      process.env.BENCH_SECONDS ?? 2
    }; ${seconds.join(", ")}, ${
      ((performance.now() - started) / 1000).toFixed(0)
    } s in all\n`,
  );
  console.log("| check | runtime | baseline | now | limit | outcome |");
  console.log("| --- | --- | --- | --- | --- | --- |");
  for (const v of verdicts) {
    console.log(
      `| ${v.check} | ${v.runtime} | ${v.value.toFixed(2)} | ${
        v.measured?.toFixed(2) ?? "–"
      } | ${v.better === "higher" ? "≥" : "≤"} ${v.limit.toFixed(3)} | ${
        v.outcome === "pass" ? "pass" : `**${v.outcome}**`
      } |`,
    );
  }
  const failed = verdicts.filter((v) => v.outcome !== "pass").length;
  console.log(
    failed === 0
      ? `\nAll ${verdicts.length} figures within 15 % of bench/README.md's.`
      : `\n${failed} of ${verdicts.length} figures more than 15 % worse than bench/README.md's, or missing.`,
  );
  process.exit(failed === 0 ? 0 : 1);
}
