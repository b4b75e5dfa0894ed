/**
 * The server that `npm start` runs (server/main.ts), as a separate process of
 * the runtime running this file: start-up output, real requests, refusal of
 * a bad fixtures file or a taken port, and graceful shutdown on signals.
 *
 * @module
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { after, describe, it } from "node:test";
import { demoFixtures } from "../src/store/demo_fixtures.ts";
import { describeTokens } from "../server/files/fixtures_file.ts";
import { checkNoDemoTokens, type Send } from "./deploy/fetch_checks.ts";
import { countRows, createTestDatabase } from "./support/postgres.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
/** How long a server may take to start or to stop. */
const PATIENCE_MS = 10_000;
const LISTENING = /API listening on (http:\/\/\S+)/;

/** The command that runs server/main.ts on the runtime running this file. */
function serverCommand(): [string, string[]] {
  if ("Deno" in globalThis) {
    const deno = (globalThis as unknown as {
      Deno: { execPath(): string };
    }).Deno;
    // The permissions of `npm run start:deno`.
    return [deno.execPath(), [
      "run",
      "--allow-net",
      "--allow-env",
      "--allow-read",
      "server/main.ts",
    ]];
  }
  // Bun's and Node's own binary.
  return [process.execPath, ["server/main.ts"]];
}

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Every server process started, so none outlives the tests. */
const running = new Set<ServerProcess>();

/** A running server/main.ts, with its output so far. */
class ServerProcess {
  stdout = "";
  stderr = "";
  readonly exited: Promise<Exit>;
  readonly #child: ChildProcess;
  #exit: Exit | undefined;
  #onOutput = new Set<() => void>();

  constructor(env: Record<string, string | undefined>) {
    const [command, args] = serverCommand();
    const childEnv: Record<string, string> = {};
    for (const [key, value] of Object.entries({ ...process.env, ...env })) {
      if (value !== undefined) childEnv[key] = value;
    }
    this.#child = spawn(command, args, {
      cwd: ROOT,
      env: childEnv,
      stdio: ["ignore", "pipe", "pipe"],
    });
    running.add(this);
    this.#child.stdout!.setEncoding("utf8").on("data", (text: string) => {
      this.stdout += text;
      for (const notify of this.#onOutput) notify();
    });
    this.#child.stderr!.setEncoding("utf8").on("data", (text: string) => {
      this.stderr += text;
      for (const notify of this.#onOutput) notify();
    });
    this.exited = new Promise((resolve) => {
      this.#child.on("exit", (code, signal) => {
        this.#exit = { code, signal };
        running.delete(this);
        for (const notify of this.#onOutput) notify();
        resolve(this.#exit);
      });
      this.#child.on("error", (error) => {
        this.stderr += `spawn failed: ${error.message}`;
        this.#exit = { code: null, signal: null };
        running.delete(this);
        resolve(this.#exit);
      });
    });
  }

  /** What the process printed, for failure messages. */
  get output(): string {
    return `--- stdout\n${this.stdout}\n--- stderr\n${this.stderr}`;
  }

  /** Resolves with the match once stdout matches `pattern`. */
  waitForStdout(pattern: RegExp): Promise<RegExpMatchArray> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const match = this.stdout.match(pattern);
        if (match !== null) {
          done();
          resolve(match);
        } else if (this.#exit !== undefined) {
          done();
          reject(
            new Error(
              `Server exited before printing ${pattern}\n${this.output}`,
            ),
          );
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(
          new Error(`No ${pattern} within ${PATIENCE_MS} ms\n${this.output}`),
        );
      }, PATIENCE_MS);
      const done = () => {
        clearTimeout(timer);
        this.#onOutput.delete(check);
      };
      this.#onOutput.add(check);
      check();
    });
  }

  /** Resolves once it listens, with its URL. */
  async listening(): Promise<URL> {
    const match = await this.waitForStdout(LISTENING);
    return new URL(match[1]!);
  }

  /** Resolves with how it exited, failing after {@linkcode PATIENCE_MS}. */
  async exit(): Promise<Exit> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new Error(
              `Server still running after ${PATIENCE_MS} ms\n${this.output}`,
            ),
          ),
        PATIENCE_MS,
      );
    });
    try {
      return await Promise.race([this.exited, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Sends a signal. Through `process.kill`, not `child.kill`: after
   * `child.kill`, Deno 2.9's node:child_process reports the exit as that
   * signal even when the child handled it and exited 0.
   */
  signal(signal: NodeJS.Signals): void {
    process.kill(this.#child.pid!, signal);
  }

  /** Kills it if it still runs; resolves once it is gone. */
  async kill(): Promise<void> {
    if (this.#exit === undefined) this.#child.kill("SIGKILL");
    await this.exited;
  }
}

/** Runs `body` with a server started with `env`, killed afterwards. */
async function withServer(
  env: Record<string, string | undefined>,
  body: (server: ServerProcess) => Promise<void>,
): Promise<void> {
  const server = new ServerProcess(env);
  try {
    await body(server);
  } finally {
    await server.kill();
  }
}

/** How many files the directory holds, in any folder below it. */
async function cacheFiles(directory: string): Promise<number> {
  const entries = await readdir(directory, {
    recursive: true,
    withFileTypes: true,
  });
  return entries.filter((entry) => entry.isFile()).length;
}

/** The environment of a test server: any free port, memory store. */
function serverEnv(
  extra: Record<string, string | undefined> = {},
): Record<string, string | undefined> {
  return {
    PORT: "0",
    HOST: "127.0.0.1",
    DATABASE_URL: "",
    FIXTURES: undefined,
    ...extra,
  };
}

let directory: string | undefined;

async function fixturesFile(name: string, content: unknown): Promise<string> {
  directory ??= await mkdtemp(join(tmpdir(), "server-cli-test-"));
  const path = join(directory, name);
  await writeFile(
    path,
    typeof content === "string" ? content : JSON.stringify(content),
  );
  return path;
}

const ACME = "0b6f1c2e-8d3a-4c55-9a57-3e3c2d1f0a11";
const CALL = "5d1f8a8e-2b7c-4f3e-8f00-6a7d5c4b3a21";
const fileFixtures = {
  projects: [{ project_id: ACME, name: "File Project" }],
  tokens: [{ token: "file-token", project_id: ACME, role: "viewer" }],
  calls: [{
    call_id: CALL,
    project_id: ACME,
    created_at: "2026-01-01T10:00:00Z",
    messages: [{ role: "agent", text: "from the file" }],
  }],
};

describe("the API server (server/main.ts)", () => {
  after(async () => {
    await Promise.all([...running].map((server) => server.kill()));
    if (directory !== undefined) {
      await rm(directory, { recursive: true, force: true });
    }
  });

  it("prints its address and the demo tokens, and serves over HTTP", async () => {
    await withServer(serverEnv(), async (server) => {
      const url = await server.listening();
      assert.equal(url.hostname, "127.0.0.1");
      assert.notEqual(url.port, "");
      assert.notEqual(url.port, "0");
      await server.waitForStdout(/demo-globex-owner\s+owner\s+Globex/);
      assert.ok(
        server.stdout.includes(describeTokens(demoFixtures)),
        `demo tokens not listed\n${server.output}`,
      );
      assert.match(server.stdout, /demo fixtures/);

      const openapi = await fetch(new URL("/openapi.json", url));
      assert.equal(openapi.status, 200);
      const document = await openapi.json();
      assert.match(document.openapi, /^3\.1\./);
      assert.equal(document.info.version, "0.1.0");

      const call = demoFixtures.calls[0]!;
      const messages = await fetch(
        new URL(`/v1/call/${call.call_id}/message`, url),
        { headers: { authorization: "Bearer demo-viewer" } },
      );
      assert.equal(messages.status, 200);
      assert.deepEqual(await messages.json(), call.messages);

      const anonymous = await fetch(
        new URL(`/v1/call/${call.call_id}/message`, url),
      );
      assert.equal(anonymous.status, 401);
      assert.equal((await anonymous.json()).error_code, "UNAUTHORIZED");
    });
  });

  it("serves the FIXTURES file and counts its tokens without listing them", async () => {
    const path = await fixturesFile("good.json", fileFixtures);
    await withServer(serverEnv({ FIXTURES: path }), async (server) => {
      const url = await server.listening();
      await server.waitForStdout(/Tokens: 1 loaded \(not shown\)/);
      assert.equal(server.output.includes("file-token"), false);
      assert.ok(server.stdout.includes(path), "fixtures file not named");
      assert.equal(server.stdout.includes("demo-owner"), false);

      const response = await fetch(new URL(`/v1/call/${CALL}/message`, url), {
        headers: { authorization: "Bearer file-token" },
      });
      assert.equal(response.status, 200);
      assert.deepEqual(await response.json(), fileFixtures.calls[0]!.messages);
      const demo = await fetch(new URL(`/v1/call/${CALL}/message`, url), {
        headers: { authorization: "Bearer demo-owner" },
      });
      assert.equal(demo.status, 401);
      await demo.body?.cancel();
    });
  });

  it("refuses a FIXTURES file that breaks the format, naming the path, without listening", async () => {
    const path = await fixturesFile("dangling.json", {
      ...fileFixtures,
      calls: [{
        ...fileFixtures.calls[0],
        project_id: "9f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a00",
      }],
    });
    const started = Date.now();
    await withServer(serverEnv({ FIXTURES: path }), async (server) => {
      const exit = await server.exit();
      assert.notEqual(exit.code, 0, server.output);
      assert.notEqual(exit.code, null, server.output);
      assert.ok(
        server.stderr.includes("calls[0].project_id"),
        `offending path not named\n${server.output}`,
      );
      assert.doesNotMatch(server.stdout, /listening/i);
      assert.ok(Date.now() - started < PATIENCE_MS);
    });
  });

  it("refuses a FIXTURES file that is missing or not JSON, naming the file", async () => {
    const missing = join(
      tmpdir(),
      `no-such-fixtures-${crypto.randomUUID()}.json`,
    );
    const broken = await fixturesFile("broken.json", '{"projects": [');
    await Promise.all(
      [missing, broken].map((path) =>
        withServer(serverEnv({ FIXTURES: path }), async (server) => {
          const exit = await server.exit();
          assert.notEqual(exit.code, 0, server.output);
          assert.notEqual(exit.code, null, server.output);
          assert.ok(
            server.stderr.includes(path),
            `file not named\n${server.output}`,
          );
          assert.doesNotMatch(server.stdout, /listening/i);
        })
      ),
    );
  });

  it("exits non-zero with a clear message when the port is taken", async () => {
    const blocker: Server = createServer();
    await new Promise<void>((resolve, reject) => {
      blocker.once("error", reject);
      blocker.listen(0, "127.0.0.1", resolve);
    });
    try {
      const { port } = blocker.address() as { port: number };
      await withServer(serverEnv({ PORT: String(port) }), async (server) => {
        const exit = await server.exit();
        assert.notEqual(exit.code, 0, server.output);
        assert.notEqual(exit.code, null, server.output);
        assert.match(server.stderr, /in use/i);
        assert.match(
          server.stderr,
          new RegExp(`Cannot listen on 127\\.0\\.0\\.1:${port}`),
        );
        assert.doesNotMatch(server.stdout, /listening/i);
      });
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });

  it(
    "writes Node's compile cache while it runs, so a killed server leaves one",
    {
      skip: ("Deno" in globalThis || "Bun" in globalThis) &&
        "Node's compile cache only",
    },
    async () => {
      const cache = await mkdtemp(join(tmpdir(), "server-cli-cache-"));
      try {
        // NODE_COMPILE_CACHE: on before the first file, read by Node itself.
        await withServer(
          serverEnv({ NODE_COMPILE_CACHE: cache }),
          async (server) => {
            const url = await server.listening();
            // Node alone writes it at exit: here it must appear while it runs.
            const deadline = Date.now() + PATIENCE_MS;
            while ((await cacheFiles(cache)) === 0) {
              assert.ok(
                Date.now() < deadline,
                `no cache written\n${server.output}`,
              );
              await new Promise((resolve) => setTimeout(resolve, 50));
            }
            assert.equal((await fetch(new URL("/healthz", url))).status, 200);
          },
        );
      } finally {
        await rm(cache, { recursive: true, force: true });
      }
    },
  );

  for (const port of ["", "abc", "70000", "80.5", " 80", "80 ", "+80", "8e3"]) {
    it(`refuses PORT=${JSON.stringify(port)} with a message naming PORT`, async () => {
      await withServer(serverEnv({ PORT: port }), async (server) => {
        const exit = await server.exit();
        assert.equal(exit.code, 1, server.output);
        assert.match(server.stderr, /PORT must be an integer from 0 to 65535/);
      });
    });
  }

  describe("on Postgres", () => {
    const sendTo = (url: URL): Send => (path, init) =>
      fetch(new URL(path, url), init);

    it("seeds nothing without FIXTURES: no token, demo-owner gets 401", async () => {
      const db = await createTestDatabase();
      try {
        const env = serverEnv({
          DATABASE_URL: db.url,
          DATABASE_POOL_SIZE: String(db.max),
        });
        await withServer(env, async (server) => {
          const url = await server.listening();
          assert.match(server.stdout, /postgres store, nothing seeded/);
          assert.doesNotMatch(server.output, /demo-owner/);
          await checkNoDemoTokens(sendTo(url));
          assert.equal(await countRows(db.url, "tokens"), 0);
          assert.equal(await countRows(db.url, "projects"), 0);
        });
      } finally {
        await db.drop();
      }
    });

    it("seeds the demo data only when FIXTURES=demo says so, with a warning", async () => {
      const db = await createTestDatabase();
      try {
        const env = serverEnv({
          DATABASE_URL: db.url,
          DATABASE_POOL_SIZE: String(db.max),
          FIXTURES: "demo",
        });
        await withServer(env, async (server) => {
          const url = await server.listening();
          assert.match(server.stderr, /Warning: FIXTURES=demo .* public/);
          const call = demoFixtures.calls[0]!;
          const response = await fetch(
            new URL(`/v1/call/${call.call_id}/message`, url),
            { headers: { authorization: "Bearer demo-owner" } },
          );
          assert.equal(response.status, 200);
          assert.deepEqual(await response.json(), call.messages);
        });
        assert.equal(
          await countRows(db.url, "tokens"),
          demoFixtures.tokens.length,
        );
      } finally {
        await db.drop();
      }
    });

    it("revokes a token removed from the fixtures file at the next start", async () => {
      const db = await createTestDatabase();
      const env = (path: string) =>
        serverEnv({
          DATABASE_URL: db.url,
          DATABASE_POOL_SIZE: String(db.max),
          FIXTURES: path,
          // Its tokens are short, as tests' are.
          ALLOW_SHORT_TOKENS: "1",
        });
      const status = async (url: URL, token: string) => {
        const response = await fetch(new URL(`/v1/call/${CALL}/message`, url), {
          headers: { authorization: `Bearer ${token}` },
        });
        await response.arrayBuffer();
        return response.status;
      };
      try {
        const before = await fixturesFile("revoke-before.json", {
          ...fileFixtures,
          tokens: [
            ...fileFixtures.tokens,
            { token: "leaving-token", project_id: ACME, role: "owner" },
          ],
        });
        await withServer(env(before), async (server) => {
          const url = await server.listening();
          assert.equal(await status(url, "leaving-token"), 200);
          assert.equal(await status(url, "file-token"), 200);
        });
        const after = await fixturesFile("revoke-after.json", fileFixtures);
        await withServer(env(after), async (server) => {
          const url = await server.listening();
          assert.equal(await status(url, "leaving-token"), 401);
          assert.equal(await status(url, "file-token"), 200);
        });
        assert.equal(await countRows(db.url, "tokens"), 1);
      } finally {
        await db.drop();
      }
    });
  });

  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    it(`stops on ${signal} with exit code 0 and logs the shutdown`, async () => {
      await withServer(serverEnv(), async (server) => {
        const url = await server.listening();
        // A finished request leaves an idle keep-alive connection open.
        const response = await fetch(new URL("/openapi.json", url));
        assert.equal(response.status, 200);
        await response.arrayBuffer();

        server.signal(signal);
        const exit = await server.exit();
        assert.deepEqual(exit, { code: 0, signal: null }, server.output);
        assert.match(server.stdout, new RegExp(`${signal}: shutting down`));
        await assert.rejects(fetch(new URL("/openapi.json", url)));
      });
    });
  }
});
