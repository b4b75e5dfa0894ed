/**
 * The API's hot path against the bare runtime, over HTTP: requests per second
 * of the trigger test (webhook flow) and of the DELETE of an unknown
 * integration (auth, validation, lookup, 404), each as a ratio to the same
 * runtime's server answering a constant JSON body to the same request.
 *
 * The API is the server users start (`server/main.ts`) on default settings:
 * the access log on at `info` (every one of these requests is logged),
 * written to its stdout, which goes to a file here as it would under a
 * process manager. `BENCH_LOG_LEVEL=off` measures it without the log.
 *
 * Run: `node bench/hot_path.ts` (needs `wrk`). Each runtime's servers run
 * side by side; wrk `-t1 -c50` runs of `BENCH_SECONDS` (default 3) after a
 * warm-up, `BENCH_ROUNDS` rounds (default 5) in alternating order; the
 * medians' ratio is printed, with the server's CPU time per request (from
 * `/proc`), which the machine's other load disturbs less than req/s.
 * `BENCH_RUNTIMES=node,deno` picks runtimes; `BENCH_SERVERS=bare,api` leaves
 * out the _reading_ and _minimal_ servers (their columns print `–`), as the
 * regression gate (`bench/gate.ts`) does. `BENCH_BEFORE=<checkout>` adds
 * a fifth server, that checkout's `server/main.ts` (an earlier commit, e.g. a
 * `git worktree`), run in the same rounds: the API before and after a change
 * (its req/s over the bare server's, as the gate's reference reads it).
 *
 * When hono, zod and @hono/zod-validator load (`npm install --no-save hono
 * @hono/zod-validator zod`), one more server runs in the same rounds: the
 * idiomatic Hono peer of issue 24 (`bench/hono_peer.ts`, its stdout in a file
 * too), and a second table prints API / Hono ratios of req/s and of server
 * CPU per request. `BENCH_HONO=0` leaves it out.
 *
 * @module
 */
import { execFile, execFileSync, spawn } from "node:child_process";
import {
  closeSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import { apiFixtures, FLOWS, TOKENS } from "../test/support/api_fixtures.ts";

const SECONDS = process.env.BENCH_SECONDS ?? "3";
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const UNKNOWN = "99999999-9999-4999-8999-999999999999";
const bin = (name: string) => join(process.cwd(), "node_modules", ".bin", name);
/** How each runtime runs a script: the command before the script's path. */
export const RUNTIME_COMMANDS: Record<string, string[]> = {
  node: [bin("node")],
  deno: [bin("deno"), "run", "-A"],
  bun: [bin("bun")],
};
const runtimes = (process.env.BENCH_RUNTIMES ?? "node,deno,bun").split(",");
/** The optional servers that run: `reading`, `minimal` (see the module doc). */
const optional = new Set(
  (process.env.BENCH_SERVERS ?? "bare,reading,minimal,api").split(","),
);

const scripts = mkdtempSync(join(tmpdir(), "wrk-"));
process.once("exit", () => rmSync(scripts, { recursive: true, force: true }));
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL ?? "info";
/** Another checkout whose API runs beside this one's (see the module doc). */
const BEFORE = process.env.BENCH_BEFORE;
const fixturesFile = join(scripts, "fixtures.json");
/** Whether the Hono peer runs: its packages load and `BENCH_HONO` is not 0. */
async function honoAvailable(): Promise<boolean> {
  if (process.env.BENCH_HONO === "0") return false;
  for (const name of ["hono", "zod", "@hono/zod-validator"]) {
    try {
      await import(name);
    } catch {
      console.error(
        `No Hono peer: ${name} does not load (npm install --no-save hono @hono/zod-validator zod)`,
      );
      return false;
    }
  }
  return true;
}
writeFileSync(fixturesFile, JSON.stringify(apiFixtures));
const logLines: string[] = [];
/**
 * Counts a file's lines in 1 MiB reads: a log can outgrow a string.
 *
 * @example
 * ```ts ignore
 * console.log(`${countLines(server.stdout)} lines in the log`);
 * ```
 */
export function countLines(path: string): number {
  const fd = openSync(path, "r");
  const buffer = new Uint8Array(1 << 20);
  let lines = 0;
  try {
    for (let read; (read = readSync(fd, buffer)) > 0;) {
      for (let i = 0; i < read; i += 1) if (buffer[i] === 10) lines += 1;
    }
  } finally {
    closeSync(fd);
  }
  return lines;
}
/** Writes a wrk script that sends `method`; returns its path. */
export function luaScript(name: string, method: string): string {
  const path = join(scripts, `${name}.lua`);
  writeFileSync(path, `wrk.method = "${method}"\n`);
  return path;
}
/**
 * The wrk script of each shape in which clients send a POST, by name (see
 * `mock_request_shapes.ts`): `no-length` (no framing header, as
 * `curl -X POST`), `length-0` (`Content-Length: 0`, as fetch) and
 * `json-body` (`{}` as JSON).
 */
export const REQUEST_SHAPES: Record<string, string> = {
  "no-length": 'wrk.method = "POST"\n',
  "length-0": 'wrk.method = "POST"\nwrk.body = ""\n',
  "json-body": 'wrk.method = "POST"\nwrk.body = "{}"\n' +
    'wrk.headers["Content-Type"] = "application/json"\n',
};

/** Writes a shape's wrk script (see {@linkcode REQUEST_SHAPES}); its path. */
export function shapeScript(shape: string): string {
  const lua = REQUEST_SHAPES[shape];
  if (lua === undefined) throw new Error(`No shape ${shape}`);
  const path = join(scripts, `${shape}.lua`);
  writeFileSync(path, lua);
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

/** A server started with its stdout in a file, as a process manager would. */
export interface LoggingServer {
  /** Its base URL. */
  url: string;
  /** Its process id. */
  pid: number;
  /** The file its stdout goes to. */
  stdout: string;
  /** Sends SIGTERM; resolves once it exited. */
  stop: () => Promise<void>;
}

/**
 * Starts a server with stdout written to a file; resolves with the URL of the
 * first stdout line `ready` matches (its group 1).
 */
export async function startLoggingServer(
  command: string[],
  env: Record<string, string>,
  ready: RegExp,
): Promise<LoggingServer> {
  const stdout = join(scripts, `stdout-${Math.random().toString(36).slice(2)}`);
  const fd = openSync(stdout, "w");
  const child = spawn(command[0]!, command.slice(1), {
    stdio: ["ignore", fd, "inherit"],
    env: { ...process.env, ...env },
  });
  closeSync(fd);
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    child.once("exit", () => {
      exited = true;
      resolve();
    })
  );
  const deadline = Date.now() + 60_000;
  for (;;) {
    const found = ready.exec(readFileSync(stdout, "utf8"));
    if (found) {
      return {
        url: found[1]!,
        pid: child.pid!,
        stdout,
        stop: () => {
          child.kill("SIGTERM");
          return exit;
        },
      };
    }
    if (exited || Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`${command.join(" ")} did not start`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** What one wrk run measured. */
export interface WrkResult {
  /** Requests per second. */
  rate: number;
  /** How many requests completed. */
  requests: number;
  /** Median latency, ms. */
  p50: number;
  /** 99th percentile latency, ms. */
  p99: number;
  /** How many answers had a status other than 2xx or 3xx. */
  non2xx: number;
}

/** Milliseconds from a wrk latency figure (`812.00us`, `1.20ms`, `1.01s`). */
function millis(figure: string): number {
  const [, value, unit] = /([\d.]+)(us|ms|s)/.exec(figure)!;
  return Number(value) * ({ us: 0.001, ms: 1, s: 1000 }[unit!]!);
}

/** wrk's arguments for one run (`-t1 -c50 --latency`). */
function wrkArgs(url: string, seconds: string, extra: string[]): string[] {
  return ["-t1", "-c50", `-d${seconds}s`, "--latency", ...extra, url];
}

/** What wrk printed, parsed; throws when any request failed at the socket. */
function wrkResult(output: string): WrkResult {
  if (/Socket errors/.test(output)) throw new Error(output);
  return {
    rate: Number(/Requests\/sec:\s+([\d.]+)/.exec(output)![1]),
    requests: Number(/(\d+) requests in/.exec(output)![1]),
    p50: millis(/ 50%\s+(\S+)/.exec(output)![1]!),
    p99: millis(/ 99%\s+(\S+)/.exec(output)![1]!),
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(output)?.[1] ?? 0),
  };
}

/**
 * One wrk run (`-t1 -c50 --latency`); throws when any request failed at the
 * socket.
 */
export function wrk(
  url: string,
  seconds: string,
  extra: string[] = [],
): WrkResult {
  return wrkResult(
    execFileSync("wrk", wrkArgs(url, seconds, extra), { encoding: "utf8" }),
  );
}

/**
 * {@linkcode wrk} without blocking: runs at several servers at once go side
 * by side.
 */
export async function wrkAsync(
  url: string,
  seconds: string,
  extra: string[] = [],
): Promise<WrkResult> {
  const { stdout } = await promisify(execFile)(
    "wrk",
    wrkArgs(url, seconds, extra),
    { encoding: "utf8" },
  );
  return wrkResult(stdout);
}

/** CPU seconds (user + system) a process has used so far. */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8")
    .replace(/^.*\) /s, "")
    .split(" ");
  // utime and stime: fields 14 and 15 of stat, 12 and 13 after the name.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The median of some numbers. */
export const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

if (import.meta.main) {
  const rows: string[] = [];
  const honoRows: string[] = [];
  const withHono = await honoAvailable();
  for (const runtime of runtimes) {
    const command = RUNTIME_COMMANDS[runtime]!;
    const bare = await startServer([
      ...command,
      "bench/bench_server.ts",
      "bare",
    ]);
    const reading = optional.has("reading")
      ? await startServer([...command, "bench/bench_server.ts", "reading"])
      : undefined;
    const minimal = optional.has("minimal")
      ? await startLoggingServer(
        [...command, "bench/bench_server.ts", "minimal"],
        { PORT: "0" },
        /^(http:\/\/\S+)/,
      )
      : undefined;
    const api = await startLoggingServer(
      [...command, "server/main.ts"],
      { PORT: "0", FIXTURES: fixturesFile, LOG_LEVEL: LOG_LEVEL },
      /listening on (http:\/\/\S+)/,
    );
    const hono = withHono
      ? await startLoggingServer(
        [...command, "bench/hono_peer.ts"],
        { PORT: "0" },
        /^(http:\/\/\S+)/,
      )
      : undefined;
    const before = BEFORE === undefined ? undefined : await startLoggingServer(
      [...command, join(BEFORE, "server/main.ts")],
      { PORT: "0", FIXTURES: fixturesFile, LOG_LEVEL: LOG_LEVEL },
      /listening on (http:\/\/\S+)/,
    );
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
        if (reading !== undefined) run(reading, "1");
        if (minimal !== undefined) run(minimal, "1");
        if (before !== undefined) run(before, "1");
        if (hono !== undefined) run(hono, "1");
        const servers = { bare, reading, minimal, api, before, hono };
        type Mode = keyof typeof servers;
        const modes = (Object.keys(servers) as Mode[])
          .filter((mode) => servers[mode] !== undefined);
        const rates = Object.fromEntries(
          modes.map((mode) => [mode, []]),
        ) as unknown as Record<Mode, number[]>;
        const cpu = Object.fromEntries(
          modes.map((mode) => [mode, []]),
        ) as unknown as Record<Mode, number[]>;
        for (let round = 0; round < ROUNDS; round += 1) {
          const order = round % 2 === 0 ? modes : modes.toReversed();
          for (const which of order) {
            const server = servers[which]!;
            const before = cpuSeconds(server.pid);
            const result = run(server, SECONDS);
            rates[which].push(result.rate);
            cpu[which].push(
              (cpuSeconds(server.pid) - before) * 1e6 / result.requests,
            );
          }
        }
        /** A median of a server that ran, or `–`. */
        const of = (mode: Mode, figures: Record<Mode, number[]>, digits = 1) =>
          servers[mode] === undefined
            ? "–"
            : median(figures[mode]).toFixed(digits);
        const ratio = median(rates.api) / median(rates.bare);
        const cpuRatio = median(cpu.bare) / median(cpu.api);
        rows.push(
          `| ${runtime} | ${name} | ${median(rates.bare).toFixed(0)} | ${
            median(rates.api).toFixed(0)
          } | **${ratio.toFixed(2)}x** | ${median(cpu.bare).toFixed(1)} | ${
            median(cpu.api).toFixed(1)
          } | ${cpuRatio.toFixed(2)}x | ${of("reading", rates, 0)} | ${
            of("reading", cpu)
          } | **${
            minimal === undefined
              ? "–"
              : (median(rates.minimal) / median(rates.bare)).toFixed(2) + "x"
          }** | ${of("minimal", cpu)} |${
            before === undefined
              ? ""
              : ` ${median(rates.before).toFixed(0)} | **${
                (median(rates.before) / median(rates.bare)).toFixed(2)
              }x** | ${median(cpu.before).toFixed(1)} | **${
                (median(cpu.before) / median(cpu.api)).toFixed(2)
              }x** |`
          }`,
        );
        console.error(rows.at(-1));
        if (hono !== undefined) {
          honoRows.push(
            `| ${runtime} | ${name} | ${median(rates.hono).toFixed(0)} | ${
              median(rates.api).toFixed(0)
            } | **${(median(rates.api) / median(rates.hono)).toFixed(2)}x** | ${
              median(cpu.hono).toFixed(1)
            } | ${median(cpu.api).toFixed(1)} | ${
              (median(cpu.api) / median(cpu.hono)).toFixed(2)
            }x |`,
          );
          console.error(honoRows.at(-1));
        }
      }
    } finally {
      bare.stop();
      reading?.stop();
      await minimal?.stop();
      await api.stop();
      await before?.stop();
      await hono?.stop();
      if (before !== undefined) rmSync(before.stdout);
      logLines.push(`${runtime}: ${countLines(api.stdout)} lines in the log`);
      rmSync(api.stdout);
      if (minimal !== undefined) rmSync(minimal.stdout);
      if (hono !== undefined) {
        logLines.push(
          `${runtime} hono: ${countLines(hono.stdout) - 1} lines in its log`,
        );
        rmSync(hono.stdout);
      }
    }
  }
  console.log(
    `${new Date().toISOString()}, load average at the end ${
      readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")
    }; wrk -t1 -c50 -d${SECONDS}s, ${ROUNDS} alternating rounds, medians; API on LOG_LEVEL=${LOG_LEVEL} (${
      logLines.join(", ")
    })\n`,
  );
  const beforeColumns = BEFORE === undefined ? ["", ""] : [
    " before req/s | before / bare req/s | before CPU µs/req | before / API CPU |",
    " --- | --- | --- | --- |",
  ];
  console.log(
    "| runtime | request | bare req/s | API req/s | API / bare req/s | bare server CPU µs/req | API server CPU µs/req | bare / API CPU | reading req/s | reading CPU µs/req | minimal / bare req/s | minimal CPU µs/req |" +
      beforeColumns[0],
  );
  console.log(
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |" +
      beforeColumns[1],
  );
  for (const row of rows) console.log(row);
  if (honoRows.length > 0) {
    console.log(
      "\nThe idiomatic Hono peer (bench/hono_peer.ts), same rounds:\n\n" +
        "| runtime | request | Hono req/s | API req/s | API / Hono req/s | Hono CPU µs/req | API CPU µs/req | API / Hono CPU |\n" +
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    );
    for (const row of honoRows) console.log(row);
  }
}
