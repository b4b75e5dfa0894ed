/**
 * Running the `callflow-api` bin (server/cli.ts) under the runtime running the
 * test: to its end ({@linkcode runBin}), or the `mock` command started for
 * tests that call it over HTTP ({@linkcode startMockCli}).
 *
 * @module
 */
import { type ChildProcess, spawn } from "node:child_process";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { runtimeName } from "../../server/runtimes/mod.ts";

const CLI = fileURLToPath(new URL("../../server/cli.ts", import.meta.url));

/** The command line that runs the bin with `args` on this runtime. */
export function binCommand(args: string[]): [string, string[]] {
  return runtimeName() === "deno"
    ? [process.execPath, ["run", "--allow-all", CLI, ...args]]
    : [process.execPath, [CLI, ...args]];
}

/** How a run of the bin ended. */
export interface BinRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout and stderr as they came. */
  output: string;
}

/**
 * Runs the bin to its end (killed after 30 s).
 *
 * @param args e.g. `["serve", "--version"]`.
 * @param env The environment; default this process's.
 * @returns Its exit code and output.
 */
export function runBin(
  args: string[],
  env: Record<string, string | undefined> = process.env,
): Promise<BinRun> {
  const [command, commandArgs] = binCommand(args);
  const child = spawn(command, commandArgs, {
    env: env as Record<string, string>,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const run = { code: null, stdout: "", stderr: "", output: "" } as BinRun;
  child.stdout.on("data", (chunk: Buffer) => {
    run.stdout += chunk.toString();
    run.output += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    run.stderr += chunk.toString();
    run.output += chunk.toString();
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
  return new Promise((resolve) => {
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ ...run, code });
    });
  });
}

/** A running `mock` command. */
export interface RunningCli {
  child: ChildProcess;
  /** Its address, e.g. `http://127.0.0.1:40123`. */
  url: string;
  /** Everything it printed so far. */
  output(): string;
  /** Stops it (SIGTERM) and waits for it to exit. */
  stop(): Promise<void>;
}

/**
 * How long the command may take to print its address: about a second on a
 * quiet machine, many times that on a loaded one (a runtime's start is CPU
 * bound). The bound is for a command that never starts; one that exits
 * first fails at once.
 */
const START_BOUND_MS = 120_000;

/**
 * Starts the command with `args`; resolves once it prints its address (it
 * listens), rejects if it exits first or prints none within 120 s.
 *
 * @param args e.g. `["mock", "--port", "0"]`.
 * @param command The program and its arguments; default the bin with
 * `args` on this runtime (another: the mock executable).
 * @returns The running command.
 */
export function startMockCli(
  args: string[],
  [command, commandArgs]: [string, string[]] = binCommand(args),
): Promise<RunningCli> {
  const child = spawn(command, commandArgs, {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const stop = async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(
        new Error(
          `The mock command did not start within ${START_BOUND_MS} ms:\n${output}`,
        ),
      );
    }, START_BOUND_MS);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const url = /listening on (http:\/\/\S+)/.exec(output)?.[1];
      if (url !== undefined && /Stop with Ctrl\+C/.test(output)) {
        clearTimeout(timer);
        child.off("exit", onExit);
        resolve({ child, url, output: () => output, stop });
      }
    };
    const onExit = (code: number | null, signal: string | null) => {
      clearTimeout(timer);
      reject(
        new Error(
          `The mock command exited (${
            code ?? signal
          }) before it listened:\n${output}`,
        ),
      );
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.once("exit", onExit);
  });
}
