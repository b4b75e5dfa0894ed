/**
 * A real Prometheus (Debian's `prometheus` package, `/usr/bin/prometheus`)
 * for tests: started with a given configuration, its storage in a temporary
 * directory, listening on 127.0.0.1, stopped by its PID.
 *
 * @module
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";

/** Where Debian installs it. */
export const PROMETHEUS = "/usr/bin/prometheus";

/** A running Prometheus. */
export interface Prometheus {
  url: string;
  /** Runs an instant query; the result vector. */
  query(expression: string): Promise<PrometheusSample[]>;
  /** Stops it (SIGTERM, then SIGKILL) and removes its storage. */
  stop(): Promise<void>;
}

/** One series of an instant query's result. */
export interface PrometheusSample {
  metric: Record<string, string>;
  value: [number, string];
}

/**
 * A port of 127.0.0.1 free now, between `from` and `to`: for the programs that cannot
 * be told port 0 and report the one they got (Prometheus, the Prometheus
 * exporter, whose port 0 means its default).
 */
export async function freePortInRange(
  from: number,
  to = from + 99,
): Promise<number> {
  // From a random place in the range: two suites on one machine (CI beside
  // a developer's run) would otherwise both pick its first free port.
  const span = to - from + 1;
  const start = Math.floor(Math.random() * span);
  for (let i = 0; i < span; i++) {
    const port = from + (start + i) % span;
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once("error", () => resolve(false));
      server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new Error(`No free port from ${from} to ${to}`);
}

/** Starts Prometheus with `config` (YAML) and waits until it is ready. */
export async function startPrometheus(
  config: string,
  port: number,
): Promise<Prometheus> {
  const dir = await mkdtemp(join(tmpdir(), "prometheus-"));
  const configFile = join(dir, "prometheus.yml");
  await writeFile(configFile, config);
  const child: ChildProcess = spawn(PROMETHEUS, [
    `--config.file=${configFile}`,
    `--storage.tsdb.path=${join(dir, "data")}`,
    `--web.listen-address=127.0.0.1:${port}`,
    "--log.level=warn",
  ], { stdio: ["ignore", "ignore", "pipe"] });
  let log = "";
  child.stderr!.setEncoding("utf8").on("data", (text: string) => log += text);
  const exited = new Promise<void>((resolve) =>
    child.once("exit", () => resolve())
  );
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      process.kill(child.pid!, "SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
      await exited;
      clearTimeout(timer);
    }
    await rm(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      if ((await fetch(`${url}/-/ready`)).ok) break;
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`Prometheus did not start:\n${log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    url,
    stop,
    async query(expression) {
      const response = await fetch(
        `${url}/api/v1/query?query=${encodeURIComponent(expression)}`,
      );
      const body = await response.json();
      if (body.status !== "success") {
        throw new Error(`Query ${expression} failed: ${JSON.stringify(body)}`);
      }
      return body.data.result;
    },
  };
}

/** Whether Prometheus is installed here. */
export function hasPrometheus(): boolean {
  return existsSync(PROMETHEUS);
}
