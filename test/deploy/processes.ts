/**
 * Starting a server process for a deploy test: its output kept, its
 * readiness awaited over HTTP, and the whole process group stopped after.
 *
 * @module
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import process from "node:process";

/** `deno serve` with the permissions the entry needs, on 127.0.0.1. */
export const DENO_SERVE: readonly string[] = [
  "serve",
  "--allow-net",
  "--allow-env",
  "--allow-read",
  "--host",
  "127.0.0.1",
];

/**
 * The arguments of `deno serve` serving `./server` (`server/mod.ts`) on a
 * port of 127.0.0.1, with {@linkcode DENO_SERVE}'s permissions.
 *
 * @param port The port to listen on.
 * @param options More `deno serve` options, e.g. `--parallel`.
 */
export function denoServeArgs(port: number, ...options: string[]): string[] {
  return [...DENO_SERVE, ...options, "--port", String(port), "server/mod.ts"];
}

/**
 * The server settings of whoever runs the tests, unset: CI's DATABASE_URL
 * (or a developer's) must not make a test's server migrate and seed that
 * database. Spread it into a child's environment.
 */
export const UNSET_SERVER_SETTINGS: Readonly<Record<string, undefined>> = {
  DATABASE_URL: undefined,
  DATABASE_DIRECT_URL: undefined,
  DATABASE_READ_URL: undefined,
  FIXTURES: undefined,
  PORT: undefined,
  HOST: undefined,
  LOG_LEVEL: undefined,
  LOG_FORMAT: undefined,
};

/** A free port on 127.0.0.1 (bound, read, released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** A running server process. */
export class ServerProcess {
  stdout = "";
  stderr = "";
  readonly exited: Promise<number | null>;
  readonly #child: ChildProcess;

  constructor(
    command: string,
    args: string[],
    options: { cwd: string; env: Record<string, string | undefined> },
  ) {
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(options.env)) {
      if (value !== undefined) env[key] = value;
    }
    // Its own process group, so stopping it stops whatever it started.
    this.#child = spawn(command, args, {
      cwd: options.cwd,
      env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    this.#child.stdout!.setEncoding("utf8").on("data", (text: string) => {
      this.stdout += text;
    });
    this.#child.stderr!.setEncoding("utf8").on("data", (text: string) => {
      this.stderr += text;
    });
    this.exited = new Promise((resolve) => {
      this.#child.once("exit", (code) => resolve(code));
      this.#child.once("error", () => resolve(null));
    });
  }

  /** Output so far, for failure messages. */
  get output(): string {
    return `--- stdout\n${this.stdout}\n--- stderr\n${this.stderr}`;
  }

  /** The lines of stdout that are JSON objects (the access log). */
  jsonLines(): Record<string, unknown>[] {
    return this.stdout.split("\n")
      .map((line) => line.replace(/^\[serve-worker-\d+ *\] /, ""))
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line));
  }

  /** Resolves once `url` answers 200, failing after `ms` or on exit. */
  async ready(url: string, ms = 30_000): Promise<void> {
    const deadline = Date.now() + ms;
    let exited = false;
    void this.exited.then(() => exited = true);
    while (Date.now() < deadline && !exited) {
      try {
        const response = await fetch(url);
        await response.arrayBuffer();
        if (response.status === 200) return;
      } catch {
        // not listening yet
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`${url} not ready\n${this.output}`);
  }

  /** Whether the process is still running. */
  get running(): boolean {
    return this.#child.exitCode === null && this.#child.signalCode === null;
  }

  /**
   * Sends the process (not its group) a signal. Through `process.kill`, not
   * `child.kill`: after `child.kill`, Deno 2.9's node:child_process reports
   * the exit as that signal even when the child handled it and exited 0.
   */
  kill(signal: NodeJS.Signals): void {
    process.kill(this.#child.pid!, signal);
  }

  /**
   * Sends SIGTERM to the process itself, not its group (as systemd's main
   * process, Docker's PID 1 or a process manager's child gets it), and
   * resolves with its exit code; the group is killed after `ms`.
   */
  async terminate(ms = 20_000): Promise<number | null> {
    process.kill(this.#child.pid!, "SIGTERM");
    const timer = setTimeout(() => this.#killGroup(), ms);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Whether any process of its group still runs (e.g. a launcher's child). */
  groupRunning(): boolean {
    try {
      process.kill(-this.#child.pid!, 0);
      return true;
    } catch {
      return false;
    }
  }

  #killGroup(): void {
    try {
      process.kill(-this.#child.pid!, "SIGKILL");
    } catch {
      // already gone
    }
  }

  /** Stops the process group (SIGTERM, then SIGKILL after 5 s). */
  async stop(): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) {
      // A child it left behind (its group outlives it) goes too.
      if (this.groupRunning()) this.#killGroup();
      return;
    }
    const pid = this.#child.pid!;
    try {
      process.kill(-pid, "SIGTERM");
    } catch {
      return;
    }
    const timer = setTimeout(() => this.#killGroup(), 5000);
    await this.exited;
    clearTimeout(timer);
  }
}
