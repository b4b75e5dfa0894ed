/**
 * The API's hot path against the bare runtime, over HTTP: requests per second
 * of the trigger test (webhook flow) and of the DELETE of an unknown
 * integration (auth, validation, lookup, 404), each as a ratio to the same
 * runtime's server answering a constant JSON body to the same request.
 *
 * Run: `node bench/hot_path.ts` (needs `wrk`). Each runtime's two servers run
 * side by side; wrk `-t1 -c50` runs of `BENCH_SECONDS` (default 3) after a
 * warm-up, `BENCH_ROUNDS` rounds (default 5) in alternating order; the
 * medians' ratio is printed. `BENCH_RUNTIMES=node,deno` picks runtimes.
 *
 * @module
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { createInterface } from "node:readline";
import { FLOWS, TOKENS } from "../test/support/api_fixtures.ts";

const SECONDS = process.env.BENCH_SECONDS ?? "3";
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const UNKNOWN = "99999999-9999-4999-8999-999999999999";
const bin = (name: string) => join(process.cwd(), "node_modules", ".bin", name);
const ALL: Record<string, string[]> = {
  node: [bin("node"), "bench/bench_server.ts"],
  deno: [bin("deno"), "run", "-A", "bench/bench_server.ts"],
  bun: [bin("bun"), "bench/bench_server.ts"],
};
const runtimes = (process.env.BENCH_RUNTIMES ?? "node,deno,bun").split(",");

const scripts = mkdtempSync(join(tmpdir(), "wrk-"));
function luaScript(name: string, method: string): string {
  const path = join(scripts, `${name}.lua`);
  writeFileSync(path, `wrk.method = "${method}"\n`);
  return path;
}
const TARGETS = {
  trigger: {
    path: `/v1/workflow/${FLOWS.webhook}/trigger/test`,
    script: luaScript("post", "POST"),
  },
  delete404: {
    path: `/v1/integration/${UNKNOWN}`,
    script: luaScript("delete", "DELETE"),
  },
};

/** Starts `bench_server.ts` in a mode; resolves with its URL. */
export async function startServer(
  command: string[],
  env: Record<string, string> = {},
): Promise<{ url: string; pid: number; stop: () => void }> {
  const child = spawn(command[0]!, command.slice(1), {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, ...env },
  });
  const lines = createInterface({ input: child.stdout! });
  const url = await new Promise<string>((resolve, reject) => {
    lines.once("line", resolve);
    child.once("exit", (code) => reject(new Error(`server exited ${code}`)));
  });
  return { url, pid: child.pid!, stop: () => child.kill("SIGTERM") };
}

/** Requests per second of one wrk run. */
export function wrk(
  url: string,
  seconds: string,
  extra: string[] = [],
): number {
  const output = execFileSync("wrk", [
    "-t1",
    "-c50",
    `-d${seconds}s`,
    ...extra,
    url,
  ], { encoding: "utf8" });
  const errors = /Non-2xx or 3xx responses: (\d+)/.exec(output);
  if (/Socket errors/.test(output)) throw new Error(output);
  void errors;
  return Number(/Requests\/sec:\s+([\d.]+)/.exec(output)![1]);
}

/** The median of some numbers. */
export const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

if (import.meta.main) {
  const rows: string[] = [];
  for (const runtime of runtimes) {
    const command = ALL[runtime]!;
    const bare = await startServer([...command, "bare"]);
    const api = await startServer([...command, "api"]);
    try {
      for (const [name, target] of Object.entries(TARGETS)) {
        const auth = ["-H", `Authorization: Bearer ${TOKENS.owner}`];
        const run = (server: { url: string }, seconds: string) =>
          wrk(`${server.url}${target.path}`, seconds, [
            ...auth,
            "-s",
            target.script,
          ]);
        run(bare, "1");
        run(api, "1");
        const samples = { bare: [] as number[], api: [] as number[] };
        for (let round = 0; round < ROUNDS; round += 1) {
          const order = round % 2 === 0 ? ["bare", "api"] : ["api", "bare"];
          for (const which of order as ("bare" | "api")[]) {
            samples[which].push(
              run(which === "bare" ? bare : api, SECONDS),
            );
          }
        }
        const ratio = median(samples.api) / median(samples.bare);
        rows.push(
          `| ${runtime} | ${name} | ${median(samples.bare).toFixed(0)} | ${
            median(samples.api).toFixed(0)
          } | ${ratio.toFixed(2)}x |`,
        );
        console.error(rows.at(-1));
      }
    } finally {
      bare.stop();
      api.stop();
    }
  }
  console.log(
    `wrk -t1 -c50 -d${SECONDS}s, ${ROUNDS} alternating rounds, medians\n`,
  );
  console.log("| runtime | request | bare req/s | API req/s | API / bare |");
  console.log("| --- | --- | --- | --- | --- |");
  for (const row of rows) console.log(row);
}
