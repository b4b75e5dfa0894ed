/**
 * The published artifact as a consumer gets it: `npm pack`, install the
 * tarball into a fresh project outside the source tree, then there type-check
 * against the `.d.ts` files, run an MSW `setupServer` test under MSW 2 and
 * MSW 3, and start the `mock` command under Node (npx), Bun (bunx) and Deno
 * (deno run npm:) and call it over HTTP; run the real API with `serve` and
 * the `./server` entry under `deno serve`; and refuse Node.js below 22.
 *
 * Run under Node only: `node --test test/consumer/packed_package.ts`.
 *
 * @module
 */
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import {
  cpSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import process from "node:process";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import {
  DENO_SERVE,
  freePort,
  ServerProcess,
  UNSET_SERVER_SETTINGS,
} from "../deploy/processes.ts";
import { checkBulkExport, checkProbes } from "../deploy/fetch_checks.ts";
import {
  type PackedTarball,
  packedTarball,
} from "../support/packed_tarball.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const APP = fileURLToPath(new URL("./app", import.meta.url));
const BIN = join(ROOT, "node_modules", ".bin");
/** Node 24's directory first, so npm, npx and the scripts they run use it. */
const ENV: Record<string, string | undefined> = {
  ...process.env,
  PATH: `${dirname(process.execPath)}:${BIN}:${process.env.PATH}`,
  npm_config_audit: "false",
  npm_config_fund: "false",
  npm_config_update_notifier: "false",
};
// Else the consumer's `node --test` would report to this runner, not run.
delete ENV.NODE_TEST_CONTEXT;

/** The API server's settings reset: a memory store. */
const MEMORY_SERVER = UNSET_SERVER_SETTINGS;

/** A Node.js older than 22 on this machine (e.g. Debian's), if any. */
function oldNode(): string | undefined {
  const candidates = new Set(["/usr/bin/node", "/usr/local/bin/node"]);
  try {
    const found = execFileSync("which", ["-a", "node"], { encoding: "utf8" });
    for (const path of found.split("\n")) if (path) candidates.add(path);
  } catch {
    // no `which`
  }
  for (const path of candidates) {
    try {
      const version = execFileSync(path, ["--version"], { encoding: "utf8" });
      if (Number(version.trim().slice(1).split(".")[0]) < 22) return path;
    } catch {
      // not there
    }
  }
  return undefined;
}

/** The version of a package installed in the source tree. */
function installedVersion(name: string): string {
  const path = join(ROOT, "node_modules", name, "package.json");
  return (JSON.parse(readFileSync(path, "utf8")) as { version: string })
    .version;
}

function run(command: string, args: string[], cwd: string): string {
  try {
    return execFileSync(command, args, {
      cwd,
      env: ENV,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(
      `${command} ${args.join(" ")} failed:\n${stdout ?? ""}\n${stderr ?? ""}`,
    );
  }
}

/**
 * Starts the `mock` command, waits for its address, answers a request and
 * stops it; returns the start-up output and a transcript fetched over HTTP.
 */
async function startAndCall(
  command: string,
  args: string[],
  cwd: string,
  whileRunning: (url: string) => void = () => {},
): Promise<{ output: string; messages: unknown; corsOrigin: string | null }> {
  // Its own process group: npx and bunx run the command in a child process,
  // and stopping the group stops both.
  const child = spawn(command, args, {
    cwd,
    env: ENV,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`No start-up line:\n${output}`)),
        30_000,
      );
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        const match = /listening on (http:\/\/\S+)/.exec(output);
        if (match !== null && output.includes("Control API")) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      };
      child.stdout.on("data", onData);
      child.stderr.on("data", onData);
      child.once("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`Exited with ${code}:\n${output}`));
      });
    });
    const response = await fetch(
      `${url}/v1/call/5d1f8a8e-2b7c-4f3e-8f00-6a7d5c4b3a21/message`,
      {
        headers: {
          authorization: "Bearer consumer-owner",
          origin: "http://localhost:5173",
        },
      },
    );
    const messages = await response.json();
    whileRunning(url);
    return {
      output,
      messages,
      corsOrigin: response.headers.get("access-control-allow-origin"),
    };
  } finally {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      process.kill(-child.pid!, "SIGTERM");
      const timer = setTimeout(
        () => process.kill(-child.pid!, "SIGKILL"),
        5000,
      );
      await exited;
      clearTimeout(timer);
    }
  }
}

describe("the packed package in a fresh project", () => {
  const work = mkdtempSync(join(tmpdir(), "callflow-consumer-"));
  const project = join(work, "project");
  let pack: PackedTarball;

  before(() => {
    pack = packedTarball();
    cpSync(APP, project, { recursive: true });
    writeFileSync(
      join(project, "package.json"),
      JSON.stringify({ name: "consumer", private: true, type: "module" }),
    );
    run("npm", [
      "install",
      "--prefer-offline",
      "--no-package-lock",
      pack.path,
      `msw@${installedVersion("msw")}`,
      `postgres@${installedVersion("postgres")}`,
    ], project);
  });

  after(() => rmSync(work, { recursive: true, force: true }));

  /** Runs the consumer's MSW test; checks it ran every test and passed. */
  function mswCheck(major: string): void {
    ENV.EXPECTED_MSW_MAJOR = major;
    try {
      const output = run(
        process.execPath,
        ["--test", "msw_check.mjs"],
        project,
      );
      assert.match(output, /^ℹ pass 8$/m, output);
      assert.match(output, /^ℹ fail 0$/m, output);
    } finally {
      delete ENV.EXPECTED_MSW_MAJOR;
    }
  }

  it("holds only the build, its types and the package's documents", () => {
    const paths = pack.files;
    const stray = paths.filter((path) =>
      !/^(package\.json|README\.md|LICENSE(\.md)?|dist\/.+\.(js|jsc|d\.ts|sql))$/
        .test(path)
    );
    assert.deepEqual(stray, []);
    for (
      const entry of [
        "dist/mod.js",
        "dist/mod.d.ts",
        "dist/mock/mod.js",
        "dist/mock/mod.d.ts",
        "dist/mock/msw.js",
        "dist/mock/msw.d.ts",
        "dist/bin/callflow-api.js",
        "dist/bin/cli.js",
        "dist/bin/bun/cli.js",
        "dist/bin/bun/cli.js.jsc",
        "dist/bin/deflate_worker.js",
        "dist/server/mod.js",
        "dist/server/mod.d.ts",
        "dist/server/worker.js",
        "dist/server/worker.d.ts",
      ]
    ) assert.ok(paths.includes(entry), `${entry} is packed`);
    assert.ok(!paths.some((path) => path.startsWith("dist/test/")), "no tests");
    console.log(
      `npm pack: ${pack.path} ${pack.size} bytes packed, ${paths.length} files`,
    );
  });

  it("publishes a manifest without scripts (they run files it does not ship)", () => {
    const manifest = JSON.parse(
      readFileSync(
        join(project, "node_modules", "@callflow", "api", "package.json"),
        "utf8",
      ),
    ) as { scripts?: unknown; bin: Record<string, string> };
    assert.equal(manifest.scripts, undefined);
    for (const path of Object.values(manifest.bin)) {
      assert.ok(pack.files.includes(path.replace(/^\.\//, "")), path);
    }
    // The source tree's manifest is back as it was after packing.
    const source = JSON.parse(
      readFileSync(join(ROOT, "package.json"), "utf8"),
    ) as { scripts?: Record<string, string> };
    assert.match(
      source.scripts?.postpack ?? "",
      /publish_manifest\.ts restore/,
    );
  });

  it("ships the Postgres store's migrations next to its modules", () => {
    const output = run(process.execPath, [
      "--input-type=module",
      "--eval",
      'const { loadMigrations } = await import("@callflow/api/postgres");' +
      "console.log((await loadMigrations()).map((m) => m.file).join());",
    ], project);
    assert.equal(output.trim(), "0001_initial.sql");
  });

  it("type-checks against the published .d.ts files", () => {
    run(join(BIN, "tsc"), ["-p", "tsconfig.json"], project);
  });

  it("passes an MSW 2 setupServer test covering each operation", () => {
    mswCheck("2");
  });

  it("passes the MSW 2 test under Deno and Bun too", () => {
    ENV.EXPECTED_MSW_MAJOR = "2";
    try {
      // msw reads DEBUG and graphql NODE_ENV: Deno needs --allow-env.
      run(join(BIN, "deno"), [
        "test",
        "--allow-env",
        "--allow-read",
        "--allow-write",
        "--allow-run",
        "--allow-sys",
        "msw_check.mjs",
      ], project);
      run(join(BIN, "bun"), ["test", "./msw_check.mjs"], project);
    } finally {
      delete ENV.EXPECTED_MSW_MAJOR;
    }
  });

  it("passes the same test under MSW 3", () => {
    run("npm", [
      "install",
      "--prefer-offline",
      "--no-package-lock",
      `msw@${installedVersion("msw3")}`,
    ], project);
    mswCheck("3");
  });

  const bins: [string, string, string, string[]][] = [
    ["npx", "node", "npx", ["--no-install", "@callflow/api"]],
    ["bunx --bun", "bun", join(BIN, "bun"), ["x", "--bun", "@callflow/api"]],
    ["deno run npm:", "deno", join(BIN, "deno"), [
      "run",
      "--allow-all",
      "npm:@callflow/api",
    ]],
  ];
  for (const [name, runtime, command, prefix] of bins) {
    it(`starts the mock command with ${name} and answers over HTTP`, async () => {
      let python = "";
      const result = await startAndCall(
        command,
        [
          ...prefix,
          "mock",
          "--port",
          "0",
          "--fixtures",
          "fixtures.json",
        ],
        project,
        (url) => {
          if (runtime === "node") {
            python = run("python3", ["control_check.py", url], project);
          }
        },
      );
      if (runtime === "node") assert.match(python, /python consumer ok/);
      assert.match(
        result.output,
        new RegExp(`listening on http://127\\.0\\.0\\.1:\\d+ \\(${runtime},`),
      );
      // How many tokens it loaded, never which.
      assert.match(result.output, /Tokens: \d+ loaded \(not shown\)/);
      assert.ok(!result.output.includes("consumer-owner"), "no token printed");
      assert.deepEqual(result.messages, [
        { role: "agent", text: "Hello" },
        { role: "customer", text: "Hi" },
      ]);
      assert.equal(result.corsOrigin, "http://localhost:5173");
    });
  }

  it("needs no msw for the root entry and the mock command", async () => {
    run("npm", ["uninstall", "--no-package-lock", "msw"], project);
    const root = run(process.execPath, [
      "--input-type=module",
      "--eval",
      'const api = await import("@callflow/api"); console.log(typeof api.createHandler);',
    ], project);
    assert.equal(root.trim(), "function");
    const mock = run(process.execPath, [
      "--input-type=module",
      "--eval",
      'const { createMockServer } = await import("@callflow/api/mock");' +
      "const mock = createMockServer();" +
      'const r = await mock.fetch(new Request("http://127.0.0.1:4010/__mock/state"));' +
      "console.log(r.status, (await r.json()).projects.length);",
    ], project);
    assert.equal(mock.trim(), "200 1");
    await assert.rejects(
      Promise.resolve().then(() =>
        run(process.execPath, [
          "--input-type=module",
          "--eval",
          'await import("@callflow/api/mock/msw");',
        ], project)
      ),
      /msw/,
      "the MSW entry says msw is missing",
    );
    const result = await startAndCall(
      "npx",
      [
        "--no-install",
        "@callflow/api",
        "mock",
        "--port",
        "0",
        "--fixtures",
        "fixtures.json",
      ],
      project,
    );
    assert.equal(result.corsOrigin, "http://localhost:5173");
  });

  it("runs the real API with `serve` from the installed bin, logging JSON lines", async () => {
    const port = await freePort();
    const server = new ServerProcess("npx", [
      "--no-install",
      "callflow-api",
      "serve",
      "--port",
      String(port),
      "--fixtures",
      "fixtures.json",
    ], { cwd: project, env: { ...ENV, ...MEMORY_SERVER } });
    try {
      const url = `http://127.0.0.1:${port}`;
      await server.ready(`${url}/readyz`);
      assert.match(
        server.stdout,
        new RegExp(
          `API listening on ${url} \\(node, memory store, fixtures fixtures\\.json\\)`,
        ),
      );
      const response = await fetch(
        `${url}/v1/call/5d1f8a8e-2b7c-4f3e-8f00-6a7d5c4b3a21/message`,
        {
          headers: {
            authorization: "Bearer consumer-owner",
            "x-request-id": "packed-serve-1",
          },
        },
      );
      assert.deepEqual(await response.json(), [
        { role: "agent", text: "Hello" },
        { role: "customer", text: "Hi" },
      ]);
      // The mock's CORS is not the real API's.
      assert.equal(response.headers.get("access-control-allow-origin"), null);
      const deadline = Date.now() + 5000;
      while (
        !server.stdout.includes("packed-serve-1") && Date.now() < deadline
      ) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const line = server.jsonLines().find((line) =>
        line.request_id === "packed-serve-1"
      );
      assert.ok(line, server.output);
      assert.equal(line.status, 200);
      assert.equal(line.project_id, "0b6f1c2e-8d3a-4c55-9a57-3e3c2d1f0a11");
      const afterStart = server.stdout.slice(server.stdout.indexOf("Health:"));
      assert.ok(!afterStart.includes("consumer-owner"), "no token logged");

      // Stopped, the installed server drains: /readyz answers 503 while it
      // still listens, then it stops.
      const stopping = server.stop();
      let ready = 0;
      for (const end = Date.now() + 3000; Date.now() < end && ready !== 503;) {
        const response = await fetch(`${url}/readyz`).catch(() => undefined);
        if (response === undefined) break;
        ready = response.status;
        await response.arrayBuffer();
      }
      assert.equal(ready, 503, server.output);
      await stopping;
      // npx dies of the group's SIGTERM at once; the server drains for its
      // quiet second, then says it stopped (before `stop()` below would
      // kill what npx left behind).
      for (const end = Date.now() + 10_000; Date.now() < end;) {
        if (/Stopped after \d+ ms/.test(server.stdout)) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.match(server.stdout, /Stopped after \d+ ms/);
    } finally {
      await server.stop();
    }
    // npx itself dies of the group's SIGTERM; the server shut down cleanly.
    assert.match(server.stdout, /SIGTERM: shutting down/);
  });

  // The bin is bundled (build/bin_build.ts): its chunks, and on Deno the
  // deflate worker beside them, load from dist/bin/.
  for (const [name, runtime, command, prefix] of bins) {
    it(`serves a bulk export with \`serve\` under ${name}`, async () => {
      const port = await freePort();
      const server = new ServerProcess(command, [
        ...prefix,
        "serve",
        "--port",
        String(port),
      ], { cwd: project, env: { ...ENV, ...MEMORY_SERVER } });
      try {
        const url = `http://127.0.0.1:${port}`;
        await server.ready(`${url}/readyz`);
        assert.match(server.stdout, new RegExp(`\\(${runtime}, memory store`));
        const send = (path: string, init?: RequestInit) =>
          fetch(`${url}${path}`, init);
        await checkProbes(send);
        await checkBulkExport(send);
      } finally {
        await server.stop();
      }
    });
  }

  it("serves Prometheus metrics from its optional OpenTelemetry dependencies", async () => {
    const port = await freePort();
    const metricsPort = await freePort();
    const server = new ServerProcess("npx", [
      "--no-install",
      "callflow-api",
      "serve",
      "--port",
      String(port),
      "--fixtures",
      "fixtures.json",
    ], {
      cwd: project,
      env: {
        ...ENV,
        ...MEMORY_SERVER,
        OTEL_METRICS_EXPORTER: "prometheus",
        OTEL_EXPORTER_PROMETHEUS_HOST: "127.0.0.1",
        OTEL_EXPORTER_PROMETHEUS_PORT: String(metricsPort),
      },
    });
    try {
      const url = `http://127.0.0.1:${port}`;
      await server.ready(`${url}/readyz`);
      const response = await fetch(
        `${url}/v1/call/5d1f8a8e-2b7c-4f3e-8f00-6a7d5c4b3a21/message`,
        { headers: { authorization: "Bearer consumer-owner" } },
      );
      assert.equal(response.status, 200);
      await response.arrayBuffer();
      const metrics = await (await fetch(
        `http://127.0.0.1:${metricsPort}/metrics`,
      )).text();
      assert.match(
        metrics,
        /http_server_request_duration_count\{[^}]*http_route="\/v1\/call\/\{call_id\}\/message"[^}]*\} 1/,
        metrics,
      );
    } finally {
      await server.stop();
    }
  });

  it("prints the version with `serve --version` and refuses a bad --port", () => {
    const version = run("npx", [
      "--no-install",
      "callflow-api",
      "serve",
      "--version",
    ], project);
    assert.equal(version.trim(), "0.1.0");
    assert.throws(
      () =>
        run("npx", [
          "--no-install",
          "callflow-api",
          "serve",
          "--port",
          " 80",
        ], project),
      /--port must be an integer from 0 to 65535/,
    );
  });

  it("serves the ./server entry with deno serve from the installed package", async () => {
    const port = await freePort();
    const server = new ServerProcess(join(BIN, "deno"), [
      ...DENO_SERVE,
      "--port",
      String(port),
      "node_modules/@callflow/api/dist/server/mod.js",
    ], {
      cwd: project,
      env: { ...ENV, ...MEMORY_SERVER, FIXTURES: "fixtures.json" },
    });
    try {
      await server.ready(`http://127.0.0.1:${port}/healthz`);
      const response = await fetch(
        `http://127.0.0.1:${port}/v1/call/5d1f8a8e-2b7c-4f3e-8f00-6a7d5c4b3a21/message`,
        { headers: { authorization: "Bearer consumer-viewer" } },
      );
      assert.equal(response.status, 200);
      assert.equal((await response.json()).length, 2);
    } finally {
      await server.stop();
    }
  });

  const node20 = oldNode();
  it("refuses Node.js below 22 at start, naming the version needed", {
    skip: node20 === undefined && "no Node.js below 22 on this machine",
  }, () => {
    const cli = join(project, "node_modules", "@callflow", "api", "dist");
    for (
      const args of [
        [join(cli, "bin", "cli.js"), "serve", "--port", "0"],
        [join(cli, "bin", "cli.js"), "mock", "--port", "0"],
        [
          "--input-type=module",
          "--eval",
          'await import("@callflow/api/server")',
        ],
      ]
    ) {
      let failure: { status?: number; stderr?: string } | undefined;
      try {
        execFileSync(node20!, args, {
          cwd: project,
          encoding: "utf8",
          stdio: ["ignore", "pipe", "pipe"],
          timeout: 20_000,
        });
      } catch (error) {
        failure = error as { status?: number; stderr?: string };
      }
      assert.ok(failure, `${args.join(" ")} started on an old Node.js`);
      assert.equal(failure.status, 1);
      assert.match(
        failure.stderr ?? "",
        /Cannot start @callflow\/api: it needs Node\.js 22 or later, this is Node\.js v\d+/,
      );
    }
    // A program that imports the handler itself fails at createHandler.
    const library = execFileSync(node20!, [
      "--input-type=module",
      "--eval",
      'const { createHandler, MemoryStore } = await import("@callflow/api");' +
      "try { createHandler({ store: new MemoryStore() }); } " +
      "catch (error) { console.log(error.message); }",
    ], { cwd: project, encoding: "utf8" });
    assert.match(
      library,
      /lacks JSON\.rawJSON, JSON\.isRawJSON; use Node\.js 22/,
    );
  });

  it("installs nothing from the source tree", () => {
    const installed = readdirSync(join(project, "node_modules", "@callflow"));
    assert.deepEqual(installed, ["api"]);
    const manifest = readFileSync(
      join(project, "node_modules", "@callflow", "api", "package.json"),
      "utf8",
    );
    assert.ok(!manifest.includes(ROOT), "no link to the source tree");
    const { repository } = JSON.parse(manifest) as {
      repository?: { type?: string; url?: string };
    };
    assert.equal(repository?.type, "git");
    assert.match(repository?.url ?? "", /^git\+https:\/\/\S+\.git$/);
  });
});
