/**
 * The mock as one executable: its size, and its start time (spawn to the
 * "listening" line, median of 10 alternating rounds) against
 * `callflow-api mock` run by Node and by Bun from the sources. Builds the
 * Bun executable itself (`build/mock_executable.ts`); a Node single
 * executable application is measured too when `SEA_EXECUTABLE` names one,
 * built by hand: the mock bundled to CommonJS by `bun build --target=node
 * --format=cjs server/mock_executable.ts`, the blob by
 * `node --experimental-sea-config`, injected by `npx postject`.
 *
 * Run: `node bench/mock_executable.ts`
 *
 * @module
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), "mock-exe-bench-"));
const bunExecutable = join(scratch, "callflow-mock");
execFileSync(process.execPath, [
  join(root, "build", "mock_executable.ts"),
  bunExecutable,
], { stdio: "ignore" });

const cli = join(root, "server", "cli.ts");
const bin = (name: string) => join(root, "node_modules", ".bin", name);
const candidates: { name: string; command: string[]; file?: string }[] = [
  {
    name: "bun --compile executable",
    command: [bunExecutable],
    file: bunExecutable,
  },
  { name: "node server/cli.ts mock", command: [bin("node"), cli, "mock"] },
  { name: "bun server/cli.ts mock", command: [bin("bun"), cli, "mock"] },
];
const sea = process.env.SEA_EXECUTABLE;
if (sea !== undefined) {
  candidates.push({ name: "Node SEA executable", command: [sea], file: sea });
}

/** Milliseconds from spawn to the "listening" line. */
function startTime(command: string[]): Promise<number> {
  const started = performance.now();
  const child = spawn(command[0]!, [...command.slice(1), "--port", "0"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      if (!chunk.toString().includes("listening on")) return;
      const ms = performance.now() - started;
      child.once("exit", () => resolve(ms));
      child.kill("SIGTERM");
    });
    child.once("error", reject);
  });
}

const times = new Map(candidates.map((c) => [c.name, [] as number[]]));
for (let round = 0; round < 10; round += 1) {
  const order = round % 2 === 0 ? candidates : [...candidates].reverse();
  for (const candidate of order) {
    times.get(candidate.name)!.push(await startTime(candidate.command));
  }
}
const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
console.log("| how | size | start (median of 10) |");
console.log("| --- | ---: | ---: |");
for (const candidate of candidates) {
  const size = candidate.file === undefined
    ? "(runtime installed)"
    : `${(statSync(candidate.file).size / 1e6).toFixed(1)} MB`;
  console.log(
    `| ${candidate.name} | ${size} | ${
      median(times.get(candidate.name)!).toFixed(0)
    } ms |`,
  );
}
rmSync(scratch, { recursive: true, force: true });
