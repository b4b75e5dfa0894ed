/**
 * Start time of every launcher against its bare runtime: milliseconds from
 * the spawn of the server's own process to its first 200 from `/healthz`
 * (a TCP connect tried every 2 ms, then one request), and the CPU the
 * process spent by then (`/proc`). Medians of `BENCH_ROUNDS` rounds (default
 * 10), the launchers in rotated order each round, and each launcher's ratio
 * to its bare runtime measured in the same rounds:
 *
 * - Node: `npm start`'s command (read from package.json, run without npm),
 *   `node server/main.ts`, `node server/cli.ts mock`,
 *   and the built package's bin `callflow-api serve` and `mock`
 *   (package.json's `bin`, built here by `npm run build`, which also builds
 *   `dist/start/`, what `npm start` runs while its sources are unchanged:
 *   build/start_build.ts), against
 *   `node:http` answering a constant; `node-fetch` is @hono/node-server
 *   answering a constant, Node's floor for any Fetch handler (it loads
 *   Node's `Request` and `Response`, undici);
 * - Deno: `deno serve --allow-net --allow-env --allow-read server/mod.ts`
 *   (which runs `dist/deno_serve/`, built by `npm run build` too:
 *   build/deno_serve_build.ts) against `deno serve` of a constant;
 * - Bun: `npm run start:bun`'s command (as `npm start`'s), `bun
 *   server/main.ts`, and the built bin's `serve` and `mock` under
 *   Bun (`bun dist/bin/callflow-api.js`, as `bunx --bun callflow-api` runs
 *   it: `dist/bin/bun/cli.js` and its bytecode, build/bin_build.ts),
 *   against Bun serving a constant (its default export, served by
 *   `Bun.serve`);
 * - the mock executable (`npm run build:mock`) against the constant served
 *   by `Bun.serve` compiled the same way (`bun build --compile --minify
 *   --bytecode --format=esm`).
 *
 * The bare servers are one JavaScript file (no TypeScript to strip).
 * Caches: `cold` runs each start with empty compile caches (`TMPDIR`, where
 * Node's `module.enableCompileCache()` writes by default, `DENO_DIR`,
 * `BUN_RUNTIME_TRANSPILER_CACHE_PATH`); `warm` reuses caches filled by a
 * first start. Files are in the page cache either way.
 *
 * Run: `node bench/start_time.ts`. `BENCH_CACHES=warm` (or `cold`) one
 * mode; `BENCH_LAUNCHERS=node,deno` the groups to run (node, deno, bun,
 * exe); `BENCH_BEFORE=<checkout>` adds the same launchers from another
 * checkout (with its own `node_modules`), built there too.
 *
 * @module
 */
import { execFileSync, spawn } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import {
  DENO_SERVE,
  denoServeArgs,
  freePort,
  UNSET_SERVER_SETTINGS,
} from "../test/deploy/processes.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
const rounds = Number(process.env.BENCH_ROUNDS ?? 10);
const caches = (process.env.BENCH_CACHES ?? "cold,warm").split(",");
const groups = (process.env.BENCH_LAUNCHERS ?? "node,deno,bun,exe").split(",");
const before = process.env.BENCH_BEFORE;
const scratch = mkdtempSync(join(tmpdir(), "start-bench-"));
const bin = (name: string) => join(root, "node_modules", ".bin", name);

/** One way to start a server. */
interface Launcher {
  name: string;
  /** The launcher whose median this one is divided by. */
  bare: string;
  group: string;
  /** The command, given the port. */
  command: (port: number) => string[];
  cwd: string;
  env?: Record<string, string>;
}

/** The bare server: the runtime's own, answering 200 to anything. */
const BARE = `const port = Number(globalThis.process?.env.PORT ?? 8787);
const fetch = () => new Response("ok");
if (globalThis.Deno === undefined && globalThis.Bun === undefined) {
  const { createServer } = await import("node:http");
  createServer((_, response) => response.end("ok")).listen(port, "127.0.0.1");
}
// Bun serves the default export, deno serve its fetch.
export default { port, hostname: "127.0.0.1", fetch };
`;
const NODE_FETCH = `import { serve } from ${
  JSON.stringify(join(root, "node_modules/@hono/node-server/dist/index.mjs"))
};
const port = Number(process.env.PORT);
serve({ fetch: () => new Response("ok"), port, hostname: "127.0.0.1" });
`;
const bareFile = join(scratch, "bare.mjs");
const nodeFetchFile = join(scratch, "node_fetch.mjs");
const bareExe = join(scratch, "bare-exe");
writeFileSync(bareFile, BARE);
writeFileSync(nodeFetchFile, NODE_FETCH);

/** Builds `dir`'s package and mock executable; returns the executable. */
function build(dir: string, tag: string): string {
  const node = join(dir, "node_modules", ".bin", "node");
  execFileSync(node, [join(dir, "build", "npm_build.ts")], {
    cwd: dir,
    stdio: "ignore",
  });
  const exe = join(scratch, `callflow-mock-${tag}`);
  if (groups.includes("exe")) {
    execFileSync(node, [join(dir, "build", "mock_executable.ts"), exe], {
      cwd: dir,
      stdio: "ignore",
    });
  }
  return exe;
}

/** The launchers of one checkout, named with `suffix`. */
function checkoutLaunchers(dir: string, suffix: string): Launcher[] {
  const exe = build(dir, suffix === "" ? "now" : "before");
  const b = (name: string) => join(dir, "node_modules", ".bin", name);
  const node = b("node");
  // What `npm start` runs (`node <file>`), without npm's own start; the bin
  // as the package declares it (dist/bin/callflow-api.js, once
  // dist/server/cli.js).
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const cli = join(dir, manifest.bin["callflow-api"] as string);
  const npmStart = (manifest.scripts.start as string).split(" ").slice(1);
  const bunStart = (manifest.scripts["start:bun"] as string).split(" ")
    .slice(1);
  const portArgs = (port: number) => ["--port", String(port)];
  return [
    {
      name: `npm start${suffix}`,
      bare: "node:http",
      group: "node",
      command: () => [node, ...npmStart],
      cwd: dir,
    },
    {
      name: `node server/main.ts${suffix}`,
      bare: "node:http",
      group: "node",
      command: () => [node, "server/main.ts"],
      cwd: dir,
    },
    {
      name: `node server/cli.ts mock${suffix}`,
      bare: "node:http",
      group: "node",
      command: (port) => [node, "server/cli.ts", "mock", ...portArgs(port)],
      cwd: dir,
    },
    {
      name: `callflow-api serve (dist)${suffix}`,
      bare: "node:http",
      group: "node",
      command: (port) => [node, cli, "serve", ...portArgs(port)],
      cwd: dir,
    },
    {
      name: `callflow-api mock (dist)${suffix}`,
      bare: "node:http",
      group: "node",
      command: (port) => [node, cli, "mock", ...portArgs(port)],
      cwd: dir,
    },
    {
      name: `deno serve server/mod.ts${suffix}`,
      bare: "deno serve",
      group: "deno",
      command: (port) => [b("deno"), ...denoServeArgs(port)],
      cwd: dir,
    },
    {
      name: `npm run start:bun${suffix}`,
      bare: "Bun.serve",
      group: "bun",
      command: () => [b("bun"), ...bunStart],
      cwd: dir,
    },
    {
      name: `bun server/main.ts${suffix}`,
      bare: "Bun.serve",
      group: "bun",
      command: () => [b("bun"), "server/main.ts"],
      cwd: dir,
    },
    {
      name: `bun callflow-api serve (dist)${suffix}`,
      bare: "Bun.serve",
      group: "bun",
      command: (port) => [b("bun"), cli, "serve", ...portArgs(port)],
      cwd: dir,
    },
    {
      name: `bun callflow-api mock (dist)${suffix}`,
      bare: "Bun.serve",
      group: "bun",
      command: (port) => [b("bun"), cli, "mock", ...portArgs(port)],
      cwd: dir,
    },
    {
      name: `mock executable${suffix}`,
      bare: "Bun.serve --compile",
      group: "exe",
      command: (port) => [exe, ...portArgs(port)],
      cwd: dir,
    },
  ];
}

const bares: Launcher[] = [
  {
    name: "node:http",
    bare: "node:http",
    group: "node",
    command: () => [bin("node"), bareFile],
    cwd: scratch,
  },
  {
    name: "node-fetch",
    bare: "node:http",
    group: "node",
    command: () => [bin("node"), nodeFetchFile],
    cwd: scratch,
  },
  {
    name: "deno serve",
    bare: "deno serve",
    group: "deno",
    command: (port) => [
      bin("deno"),
      ...DENO_SERVE,
      "--port",
      String(port),
      bareFile,
    ],
    cwd: scratch,
  },
  {
    name: "Bun.serve",
    bare: "Bun.serve",
    group: "bun",
    command: () => [bin("bun"), bareFile],
    cwd: scratch,
  },
  {
    name: "Bun.serve --compile",
    bare: "Bun.serve --compile",
    group: "exe",
    command: () => [bareExe],
    cwd: scratch,
  },
];
if (groups.includes("exe")) {
  execFileSync(bin("bun"), [
    "build",
    "--compile",
    "--minify",
    "--bytecode",
    "--format=esm",
    bareFile,
    "--outfile",
    bareExe,
  ], { stdio: "ignore" });
}
const launchers = [
  ...bares,
  ...checkoutLaunchers(root, ""),
  ...(before === undefined ? [] : checkoutLaunchers(before, " (before)")),
].filter((launcher) => groups.includes(launcher.group));

/** The status of one `GET /healthz`, or 0 when nothing listens yet. */
function healthStatus(port: number): Promise<number> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let text = "";
    socket.once("error", () => resolve(0));
    socket.once("connect", () =>
      socket.write(
        "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
      ));
    socket.on("data", (chunk: Buffer) => {
      text += chunk.toString("latin1");
      const line = text.indexOf("\r\n");
      if (line < 0) return;
      resolve(Number(text.slice(9, 12)));
      socket.destroy();
    });
    socket.once("close", () => resolve(0));
  });
}

/** CPU milliseconds the process's live threads have used (`schedstat`, ns). */
function cpuMs(pid: number): number {
  let ns = 0;
  for (const thread of readdirSync(`/proc/${pid}/task`)) {
    const text = readFileSync(`/proc/${pid}/task/${thread}/schedstat`, "utf8");
    ns += Number(text.split(" ")[0]);
  }
  return ns / 1e6;
}

/** Milliseconds and CPU ms from spawn to the first 200 from `/healthz`. */
async function startTime(
  launcher: Launcher,
  cacheDir: string,
  warmUp = false,
): Promise<{ ms: number; cpu: number }> {
  const port = await freePort();
  mkdirSync(join(cacheDir, "tmp"), { recursive: true });
  // Node's cache goes to TMPDIR, not to the test scripts' NODE_COMPILE_CACHE
  // (scripts/test_env.sh), which the tests fill: a cold start would hit it.
  const { NODE_COMPILE_CACHE: _shared, ...inherited } = process.env;
  const env = {
    ...inherited,
    ...UNSET_SERVER_SETTINGS,
    PORT: String(port),
    HOST: "127.0.0.1",
    TMPDIR: join(cacheDir, "tmp"),
    DENO_DIR: join(cacheDir, "deno"),
    BUN_RUNTIME_TRANSPILER_CACHE_PATH: join(cacheDir, "bun"),
    ...launcher.env,
  };
  const [file, ...args] = launcher.command(port);
  const started = performance.now();
  const child = spawn(file!, args, {
    cwd: launcher.cwd,
    env,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-2000);
  });
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    child.once("exit", () => {
      exited = true;
      resolve();
    })
  );
  try {
    for (;;) {
      if (exited) throw new Error(`${launcher.name} exited: ${stderr}`);
      if (performance.now() - started > 20_000) {
        throw new Error(`${launcher.name} did not answer in 20 s: ${stderr}`);
      }
      if (await healthStatus(port) === 200) {
        const ms = performance.now() - started;
        return { ms, cpu: cpuMs(child.pid!) };
      }
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  } finally {
    // A warm-up exits gracefully, so Node writes its compile cache; the
    // measured starts are killed (a graceful stop takes longer than a start).
    child.kill(warmUp ? "SIGTERM" : "SIGKILL");
    const killer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    await exit;
    clearTimeout(killer);
  }
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const results = new Map<string, { ms: number[]; cpu: number[] }>();
const key = (cache: string, name: string) => `${cache} ${name}`;
for (const cache of caches) {
  const warmDir = join(scratch, "warm");
  if (cache === "warm") {
    for (const launcher of launchers) await startTime(launcher, warmDir, true);
  }
  for (let round = 0; round < rounds; round += 1) {
    const shift = round % launchers.length;
    const order = [...launchers.slice(shift), ...launchers.slice(0, shift)];
    for (const launcher of round % 2 === 0 ? order : order.reverse()) {
      const dir = cache === "warm" ? warmDir : join(scratch, `cold-${round}`);
      const { ms, cpu } = await startTime(launcher, dir);
      if (cache === "cold") rmSync(dir, { recursive: true, force: true });
      const entry = results.get(key(cache, launcher.name)) ??
        { ms: [], cpu: [] };
      entry.ms.push(ms);
      entry.cpu.push(cpu);
      results.set(key(cache, launcher.name), entry);
    }
  }
}

console.log(
  `Start, spawn to first 200 from /healthz: medians of ${rounds} rotated rounds`,
);
console.log(
  "| launcher | caches | ms | × bare | CPU ms | CPU × bare |",
);
console.log("| --- | --- | ---: | ---: | ---: | ---: |");
for (const cache of caches) {
  for (const launcher of launchers) {
    const own = results.get(key(cache, launcher.name))!;
    const bare = results.get(key(cache, launcher.bare))!;
    const ms = median(own.ms);
    const cpu = median(own.cpu);
    console.log(
      `| ${launcher.name} | ${cache} | ${ms.toFixed(0)} | ${
        (ms / median(bare.ms)).toFixed(2)
      } | ${cpu.toFixed(0)} | ${(cpu / median(bare.cpu)).toFixed(2)} |`,
    );
  }
}
rmSync(scratch, { recursive: true, force: true });
