/**
 * What OpenTelemetry costs the server per request, on and off: the server
 * (server/main.ts) answering `GET /v1/call/{call_id}/message` from memory,
 *
 * - `off`: no `OTEL_*` variable (nothing loaded);
 * - `on`: `OTEL_TRACES_EXPORTER=otlp` (http/protobuf, to a local receiver
 *   that accepts and drops) and `OTEL_METRICS_EXPORTER=prometheus`;
 * - `base` (with `BENCH_BASE=<dir>`): the same server from another checkout,
 *   e.g. the commit before telemetry existed, to show `off` pays nothing;
 * - `deno-builtin` (Deno only): Deno's own OpenTelemetry (`OTEL_DENO=true`,
 *   exporting to the same receiver), with the SDK not loaded.
 *
 * The access log is off in every server (`LOG_LEVEL=off`), so what differs
 * is telemetry alone. Run: `node bench/telemetry.ts` (needs `wrk`); wrk
 * `-t1 -c50` runs of `BENCH_SECONDS` (default 3), `BENCH_ROUNDS` (default 5)
 * rounds in rotated order, medians of req/s and of the server's CPU µs per
 * request (from `/proc/<pid>/stat`). `BENCH_RUNTIMES=node,deno` picks runtimes.
 *
 * @module
 */
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import process from "node:process";
import { CALLS, TOKENS } from "../test/support/api_fixtures.ts";
import { cpuSeconds, median, wrk } from "./hot_path.ts";

const SECONDS = process.env.BENCH_SECONDS ?? "3";
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const BASE = process.env.BENCH_BASE;
const runtimes = (process.env.BENCH_RUNTIMES ?? "node,deno,bun").split(",");
const bin = (name: string) => join(process.cwd(), "node_modules", ".bin", name);
const COMMANDS: Record<string, string[]> = {
  node: [bin("node"), "server/main.ts"],
  deno: [bin("deno"), "run", "-A", "server/main.ts"],
  bun: [bin("bun"), "server/main.ts"],
};

/** An OTLP/HTTP sink: answers 200 to everything, keeps nothing. */
const sink = createServer((request, response) => {
  request.resume();
  request.on("end", () => response.end());
});
await new Promise<void>((resolve) => sink.listen(0, "127.0.0.1", resolve));
const sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;

interface Server {
  url: string;
  pid: number;
  stop(): void;
}

/** Starts server/main.ts from `cwd` with `env`; resolves once it listens. */
function startServer(
  command: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<Server> {
  const inherited: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith("OTEL_")) {
      inherited[key] = value;
    }
  }
  const child = spawn(command[0]!, command.slice(1), {
    cwd,
    stdio: ["ignore", "pipe", "inherit"],
    env: {
      ...inherited,
      PORT: "0",
      DATABASE_URL: "",
      LOG_LEVEL: "off",
      ...env,
    },
  });
  return new Promise((resolve, reject) => {
    let output = "";
    child.stdout!.setEncoding("utf8").on("data", (text: string) => {
      output += text;
      const match = /API listening on (\S+)/.exec(output);
      if (match) {
        child.stdout!.removeAllListeners("data").resume();
        resolve({
          url: match[1]!,
          pid: child.pid!,
          stop: () => child.kill("SIGTERM"),
        });
      }
    });
    child.once("exit", (code) => reject(new Error(`server exited ${code}`)));
  });
}

const ON = {
  OTEL_TRACES_EXPORTER: "otlp",
  OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl,
  OTEL_METRICS_EXPORTER: "prometheus",
  OTEL_EXPORTER_PROMETHEUS_HOST: "127.0.0.1",
  OTEL_EXPORTER_PROMETHEUS_PORT: process.env.BENCH_PROMETHEUS_PORT ?? "45300",
};

const rows: string[] = [];
try {
  for (const runtime of runtimes) {
    const command = COMMANDS[runtime]!;
    const modes: Record<string, Server> = {
      off: await startServer(command, process.cwd(), {}),
      on: await startServer(command, process.cwd(), ON),
    };
    if (BASE !== undefined) {
      modes.base = await startServer(command, BASE, {});
    }
    if (runtime === "deno") {
      modes["deno-builtin"] = await startServer(command, process.cwd(), {
        OTEL_DENO: "true",
        OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl,
      });
    }
    try {
      const path = `/v1/call/${CALLS.first}/message`;
      const run = (server: Server, seconds: string) =>
        wrk(`${server.url}${path}`, seconds, [
          "-H",
          `Authorization: Bearer ${TOKENS.viewer}`,
        ]);
      const names = Object.keys(modes);
      for (const name of names) run(modes[name]!, "1");
      const rates: Record<string, number[]> = {};
      const cpu: Record<string, number[]> = {};
      for (let round = 0; round < ROUNDS; round += 1) {
        // Rotate the order: each mode runs first, second, ... in turn.
        const order = names.map((_, i) => names[(i + round) % names.length]!);
        for (const name of order) {
          const server = modes[name]!;
          const before = cpuSeconds(server.pid);
          const result = run(server, SECONDS);
          (rates[name] ??= []).push(result.rate);
          (cpu[name] ??= []).push(
            (cpuSeconds(server.pid) - before) * 1e6 / result.requests,
          );
        }
      }
      const offCpu = median(cpu.off!);
      const offRate = median(rates.off!);
      for (const name of names) {
        rows.push(
          `| ${runtime} | ${name} | ${median(rates[name]!).toFixed(0)} | ${
            (median(rates[name]!) / offRate).toFixed(2)
          }x | ${median(cpu[name]!).toFixed(1)} | ${
            (median(cpu[name]!) / offCpu).toFixed(2)
          }x |`,
        );
        console.error(rows.at(-1));
      }
    } finally {
      for (const server of Object.values(modes)) server.stop();
    }
  }
} finally {
  sink.close();
}
console.log(
  `GET /v1/call/{call_id}/message, wrk -t1 -c50 -d${SECONDS}s, ${ROUNDS} rotated rounds, medians\n`,
);
console.log(
  "| runtime | telemetry | req/s | req/s vs off | server CPU µs/req | CPU vs off |",
);
console.log("| --- | --- | --- | --- | --- | --- |");
for (const row of rows) console.log(row);
process.exit(0);
