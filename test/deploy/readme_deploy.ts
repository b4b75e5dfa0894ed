/**
 * The README's Deploying section, run as written: its snippets are read from
 * README.md at test time (never copied here) and run in a scratch project
 * where the packed package is installed by the README's own install lines
 * (`@callflow/api` standing for the tarball). Every launcher it shows (deno
 * serve, Deno Deploy's entry, Bun, `bunx --bun`, the bin, node, the systemd
 * unit's `ExecStart` in its `WorkingDirectory`, the Dockerfile's `CMD` with
 * its `ENV` and `HEALTHCHECK`, pm2) is started, answers, and on SIGTERM to
 * the process itself closes its port and exits 0, leaving no process
 * behind. Workers run under `wrangler dev` on Postgres, with the README's
 * `wrangler.toml`, `.dev.vars` and `callflow-api migrate` line; the edge
 * function is bundled and run under Vercel's `edge-runtime`.
 *
 * The README's port 8787 becomes a free port and `0.0.0.0` becomes
 * `127.0.0.1`; database URLs become a test database's.
 *
 * Run under Node only: `node --test test/deploy/readme_deploy.ts`.
 *
 * @module
 */
import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import process from "node:process";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { EdgeRuntime } from "edge-runtime";
import { demoFixtures } from "../../src/store/demo_fixtures.ts";
import { packedTarball } from "../support/packed_tarball.ts";
import {
  codeBlocks,
  documentSection,
  parseCommand,
  shellCommands,
  type SimpleCommand,
} from "../support/docs.ts";
import { createTestDatabase, type TestDatabase } from "../support/postgres.ts";
import { bundle } from "./bundle.ts";
import {
  checkCallMessages,
  checkEveryOperation,
  checkNoDemoTokens,
  type Send,
} from "./fetch_checks.ts";
import { freePort, ServerProcess, UNSET_SERVER_SETTINGS } from "./processes.ts";

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const README_PORT = "8787";

const SECTIONS = {
  deno: "Deno Deploy and `deno serve`",
  bun: "Bun",
  node: "Node: a process manager or a container",
  workers: "Cloudflare Workers",
  edge: "Edge functions (Vercel, Netlify, …)",
};

/** The README's section under a heading. */
function readmeSection(title: string): string {
  return documentSection("README.md", title);
}

/** A README snippet for this machine: a free port, the loopback interface. */
function localised(text: string, port: number): string {
  return text.replaceAll(README_PORT, String(port))
    .replaceAll("0.0.0.0", "127.0.0.1");
}

function sendTo(url: string): Send {
  return (path, init) => fetch(`${url}${path}`, init);
}

/** Whether something accepts connections on the port. */
async function listening(port: number): Promise<boolean> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/healthz`);
    await response.arrayBuffer();
    return true;
  } catch {
    return false;
  }
}

describe("the README's Deploying section, run as written", () => {
  const work = mkdtempSync(join(tmpdir(), "callflow-readme-"));
  const project = join(work, "app");
  let db: TestDatabase;
  const running = new Set<ServerProcess>();
  /** The scratch project's environment: its bins, then Node 24's, then ours. */
  const env: Record<string, string | undefined> = {
    ...process.env,
    PATH: [
      join(project, "node_modules", ".bin"),
      dirname(process.execPath),
      join(ROOT, "node_modules", ".bin"),
      process.env.PATH,
    ].join(":"),
    ...UNSET_SERVER_SETTINGS,
    NODE_TEST_CONTEXT: undefined,
    npm_config_prefer_offline: "true",
    npm_config_audit: "false",
    npm_config_fund: "false",
    npm_config_update_notifier: "false",
    WRANGLER_SEND_METRICS: "false",
    CI: "true",
    PM2_HOME: join(work, "pm2"),
  };

  /**
   * Runs one README shell command in the project, the tarball for the
   * package. Asynchronously: the embedded PGlite that `migrate` talks to
   * answers from this process, so blocking it would time the command out.
   */
  async function runLine(line: string, extraEnv: Record<string, string> = {}) {
    const tarball = packedTarball().path;
    const { env: lineEnv, argv } = parseCommand(
      line.replace(/(^|\s)@callflow\/api(?=\s|$)/g, `$1${tarball}`),
    );
    try {
      const { stdout } = await run(argv[0]!, argv.slice(1), {
        cwd: project,
        env: { ...env, ...lineEnv, ...extraEnv },
        encoding: "utf8",
        maxBuffer: 64 * 1024 * 1024,
      });
      return stdout;
    } catch (error) {
      const { stdout, stderr } = error as { stdout?: string; stderr?: string };
      throw new Error(`${line} failed:\n${stdout ?? ""}\n${stderr ?? ""}`);
    }
  }

  const dockerfile = codeBlocks(readmeSection(SECTIONS.node), "dockerfile")[0]!
    .text;

  before(async () => {
    db = await createTestDatabase();
    mkdirSync(project);
    // The Dockerfile's RUN line makes the project (npm init, the install);
    // then each subsection's install line, once.
    const run = /^RUN (.*)$/m.exec(dockerfile)![1]!;
    const installs = new Set(shellCommands(run));
    for (const section of [SECTIONS.deno, SECTIONS.bun, SECTIONS.node]) {
      const first = shellCommands(
        codeBlocks(readmeSection(section), "sh")[0]!
          .text,
      );
      for (const line of first.filter((line) => line.startsWith("npm "))) {
        installs.add(line);
      }
    }
    for (const line of installs) await runLine(line);
  });

  after(async () => {
    await Promise.all([...running].map((server) => server.stop()));
    try {
      await runLine("pm2 kill");
    } catch {
      // no daemon
    }
    await db?.drop();
    rmSync(work, { recursive: true, force: true });
  });

  it("installs the package and postgres from each install line", () => {
    const manifest = JSON.parse(
      readFileSync(join(project, "package.json"), "utf8"),
    ) as { dependencies: Record<string, string> };
    assert.deepEqual(Object.keys(manifest.dependencies).sort(), [
      "@callflow/api",
      "postgres",
    ]);
  });

  /**
   * Starts a launcher, checks it answers, sends SIGTERM to its process and
   * checks it closed its port, exited 0 and left nothing running.
   */
  async function launch(
    command: SimpleCommand,
    port: number,
    answers: (send: Send, server: ServerProcess) => Promise<void>,
    extraEnv: Record<string, string | undefined> = {},
  ): Promise<ServerProcess> {
    const server = new ServerProcess(command.argv[0]!, command.argv.slice(1), {
      cwd: project,
      env: { ...env, ...command.env, ...extraEnv },
    });
    running.add(server);
    try {
      const url = `http://127.0.0.1:${port}`;
      await server.ready(`${url}/healthz`, 60_000);
      await answers(sendTo(url), server);
      assert.equal(await server.terminate(), 0, server.output);
      assert.equal(await listening(port), false, "the port is closed");
      assert.equal(server.groupRunning(), false, "no process left behind");
      return server;
    } finally {
      await server.stop();
      running.delete(server);
    }
  }

  /** The launch lines of a section's first sh block (not the install). */
  function launchLines(section: string, port: number): string[] {
    const block = codeBlocks(readmeSection(section), "sh")[0]!.text;
    return shellCommands(localised(block, port))
      .filter((line) => !line.startsWith("npm "));
  }

  describe("Deno Deploy and deno serve", () => {
    it("shows two deno serve lines and a re-exporting main.ts", () => {
      const lines = launchLines(SECTIONS.deno, 1);
      assert.equal(lines.length, 2, lines.join("\n"));
      assert.ok(lines.every((line) => line.startsWith("deno serve ")));
      const [entry] = codeBlocks(readmeSection(SECTIONS.deno), "ts");
      assert.match(entry!.text, /@callflow\/api\/server/);
    });

    for (const index of [0, 1]) {
      it(`runs deno serve line ${index + 1}, stopping on SIGTERM`, async () => {
        const port = await freePort();
        const line = launchLines(SECTIONS.deno, port)[index]!;
        if (!line.includes("--parallel")) {
          await launch(parseCommand(line), port, checkCallMessages);
          return;
        }
        // Two workers (DENO_JOBS), both started before the SIGTERM: one
        // still starting when it came kept deno serve from exiting, once,
        // under load.
        await launch(parseCommand(line), port, async (send, server) => {
          const deadline = Date.now() + 30_000;
          while (
            (server.stderr.match(/API ready/g) ?? []).length < 2 &&
            Date.now() < deadline
          ) await new Promise((resolve) => setTimeout(resolve, 100));
          await checkCallMessages(send);
        }, { DENO_JOBS: "2" });
      });
    }

    it("serves Deno Deploy's main.ts with the deno serve line", async () => {
      const [entry] = codeBlocks(readmeSection(SECTIONS.deno), "ts");
      writeFileSync(join(project, "main.ts"), entry!.text);
      const port = await freePort();
      const line = launchLines(SECTIONS.deno, port)[0]!;
      const command = parseCommand(line);
      command.argv[command.argv.length - 1] = "main.ts";
      await launch(command, port, checkCallMessages);
    });
  });

  describe("Bun", () => {
    it("runs bun on the entry and bunx --bun on the bin, each stopping on SIGTERM", async () => {
      assert.deepEqual(
        launchLines(SECTIONS.bun, 1).map((line) =>
          parseCommand(line).argv.slice(0, 2).join(" ")
        ),
        ["bun node_modules/@callflow/api/dist/server/mod.js", "bunx --bun"],
      );
      for (const index of [0, 1]) {
        const port = await freePort();
        const line = launchLines(SECTIONS.bun, port)[index]!;
        const server = await launch(
          parseCommand(line),
          port,
          checkCallMessages,
        );
        assert.match(server.output, /\(bun, memory store, demo fixtures\)/);
      }
    });
  });

  describe("Node: a process manager or a container", () => {
    const section = () => readmeSection(SECTIONS.node);

    it("runs the bin and the deploy entry with node, each stopping on SIGTERM", async () => {
      const lines = launchLines(SECTIONS.node, 1);
      assert.equal(lines.length, 2, lines.join("\n"));
      assert.ok(lines.every((line) => !/\bnpx\b/.test(line)), "no npx");
      for (const index of [0, 1]) {
        const port = await freePort();
        const line = launchLines(SECTIONS.node, port)[index]!;
        await launch(parseCommand(line), port, checkEveryOperation);
      }
    });

    it("runs the systemd unit's ExecStart in its WorkingDirectory, on Postgres, seeding nothing", async () => {
      const port = await freePort();
      const unit = localised(codeBlocks(section(), "ini")[0]!.text, port);
      const value = (key: string) =>
        new RegExp(`^${key}=(.*)$`, "m").exec(unit)?.[1];
      const directory = value("WorkingDirectory");
      assert.ok(directory, "the unit sets WorkingDirectory=");
      const exec = value("ExecStart")!;
      assert.ok(exec.startsWith(`${directory}/`), exec);
      assert.doesNotMatch(exec, /\bnpx\b/);
      // The project stands for the unit's WorkingDirectory.
      const command = parseCommand(exec.replaceAll(directory, project));
      const unitEnv = parseCommand(`${value("Environment")} true`).env;
      assert.match(unitEnv.DATABASE_URL ?? "", /^postgres:\/\//);
      await launch(command, port, checkNoDemoTokens, {
        ...unitEnv,
        DATABASE_URL: db.url,
        DATABASE_POOL_SIZE: String(db.max),
      });
    });

    it("runs the Dockerfile's CMD with its ENV, healthy, stopping on SIGTERM as PID 1 would", async () => {
      const port = await freePort();
      const file = localised(dockerfile, port);
      const cmd = JSON.parse(/^CMD (.*)$/m.exec(file)![1]!) as string[];
      const healthcheck = JSON.parse(
        /^HEALTHCHECK CMD (.*)$/m.exec(file)![1]!,
      ) as string[];
      assert.doesNotMatch(cmd.join(" "), /\bnpx\b/);
      const dockerEnv = parseCommand(`${/^ENV (.*)$/m.exec(file)![1]} true`)
        .env;
      await launch({ env: dockerEnv, argv: cmd }, port, async (send) => {
        await checkCallMessages(send);
        // The HEALTHCHECK passes while it serves.
        execFileSync(healthcheck[0]!, healthcheck.slice(1), {
          cwd: project,
          env: env as Record<string, string>,
          stdio: "ignore",
        });
      });
    });

    it("runs the pm2 line; SIGTERM to the app closes its port and it exits 0", async () => {
      const port = await freePort();
      const block = codeBlocks(section(), "sh").find((block) =>
        block.text.includes("pm2 start")
      )!;
      const [line] = shellCommands(localised(block.text, port));
      assert.doesNotMatch(line!, /\bnpx\b/);
      const name = /--name (\S+)/.exec(line!)![1]!;
      await runLine(line!);
      try {
        const url = `http://127.0.0.1:${port}`;
        const deadline = Date.now() + 60_000;
        while (!(await listening(port)) && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
        await checkCallMessages(sendTo(url));
        const pid = Number((await runLine(`pm2 pid ${name}`)).trim());
        assert.ok(pid > 0);
        process.kill(pid, "SIGTERM");
        const log = join(env.PM2_HOME!, "pm2.log");
        const exited = new RegExp(
          `App \\[${name}:\\d+\\] exited with code \\[(\\d+)\\]`,
        );
        let match: RegExpExecArray | null = null;
        for (let tries = 0; match === null && tries < 200; tries++) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          match = exited.exec(readFileSync(log, "utf8"));
        }
        assert.ok(match, readFileSync(log, "utf8"));
        assert.equal(match[1], "0");
      } finally {
        await runLine("pm2 kill");
      }
      assert.equal(await listening(port), false);
    });
  });

  describe("Cloudflare Workers under wrangler dev", () => {
    it("installs postgres and wrangler, migrates and seeds with the bin, serves every operation", async () => {
      const section = readmeSection(SECTIONS.workers);
      const blocks = codeBlocks(section, "sh");
      const [install] = blocks;
      assert.match(install!.text, /npm install @callflow\/api postgres/);
      for (const line of shellCommands(install!.text)) await runLine(line);
      const toml = codeBlocks(section, "toml")[0]!.text;
      writeFileSync(join(project, "wrangler.toml"), toml);
      // .dev.vars: the README's local URL, pointed at the test database.
      const devVars =
        blocks.find((block) => block.text.startsWith("# .dev.vars"))!.text;
      const readmeUrl = /^DATABASE_URL=(\S+)$/m.exec(devVars)![1]!;
      writeFileSync(
        join(project, ".dev.vars"),
        devVars.replaceAll(readmeUrl, db.url),
      );
      // The migrate line, its fixtures file holding the demo data.
      writeFileSync(
        join(project, "fixtures.json"),
        JSON.stringify(demoFixtures),
      );
      const [migrate, dev] = shellCommands(
        blocks.find((block) => block.text.includes("wrangler dev"))!.text,
      );
      assert.ok(migrate!.includes(" migrate"), migrate);
      // The demo data's tokens are short: allowed here, as in tests.
      const migrated = await runLine(migrate!.replaceAll(readmeUrl, db.url), {
        ALLOW_SHORT_TOKENS: "1",
      });
      assert.match(migrated, /Seeded fixtures fixtures\.json/);

      const port = await freePort();
      const { argv } = parseCommand(dev!);
      assert.deepEqual(argv, ["npx", "wrangler", "dev"]);
      const server = new ServerProcess(argv[0]!, [
        ...argv.slice(1),
        "--port",
        String(port),
        "--ip",
        "127.0.0.1",
      ], { cwd: project, env });
      running.add(server);
      try {
        await server.ready(`http://127.0.0.1:${port}/healthz`, 120_000);
        await checkEveryOperation(sendTo(`http://127.0.0.1:${port}`));
      } finally {
        await server.stop();
        running.delete(server);
      }
    });
  });

  describe("an edge function under edge-runtime", () => {
    it("runs the README's api/[...path].ts without Node's globals, every operation", async () => {
      const [snippet] = codeBlocks(readmeSection(SECTIONS.edge), "ts");
      mkdirSync(join(project, "api"), { recursive: true });
      writeFileSync(join(project, "api", "[...path].ts"), snippet!.text);
      // The edge-runtime package dispatches `fetch` events, as a Service
      // Worker: this entry hands them to the README's function.
      writeFileSync(
        join(project, "edge_entry.ts"),
        'import api from "./api/[...path].ts";\n' +
          'addEventListener("fetch", (event) => event.respondWith(api(event.request)));\n',
      );
      const runtime = new EdgeRuntime({
        // A classic script: zip.js's `import.meta.url` becomes a constant.
        initialCode: bundle("edge_entry.ts", {
          root: project,
          format: "iife",
          define: { "import.meta.url": '"https://edge.test/api.js"' },
        }),
      });
      assert.equal(await runtime.evaluate("typeof process"), "undefined");
      await checkEveryOperation(async (path, init) => {
        const response = await runtime.dispatchFetch(
          `http://edge.test${path}`,
          init as never,
        );
        await response.waitUntil();
        // The VM's own Response, re-wrapped as this runtime's.
        return new Response(
          response.status === 204 ? null : await response.arrayBuffer(),
          {
            status: response.status,
            headers: Object.fromEntries(response.headers as never),
          },
        );
      });
    });
  });
});
