/**
 * Starting and stopping the `mock` command under the runtime running the
 * test, for tests that call it over HTTP.
 *
 * @module
 */
import { type ChildProcess, spawn } from "node:child_process";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { runtimeName } from "../../server/_serve.ts";

const CLI = fileURLToPath(new URL("../../mock/cli.ts", import.meta.url));

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
 * Starts the command with `args`; resolves once it prints its address.
 *
 * @param args e.g. `["mock", "--port", "0"]`.
 * @returns The running command.
 */
export function startMockCli(args: string[]): Promise<RunningCli> {
  const command = runtimeName() === "deno"
    ? [process.execPath, "run", "--allow-all", CLI, ...args]
    : [process.execPath, CLI, ...args];
  const child = spawn(command[0]!, command.slice(1), {
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
      reject(new Error(`The mock command did not start:\n${output}`));
    }, 20_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const url = /listening on (http:\/\/\S+)/.exec(output)?.[1];
      if (url !== undefined && /Stop with Ctrl\+C/.test(output)) {
        clearTimeout(timer);
        resolve({ child, url, output: () => output, stop });
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
  });
}
