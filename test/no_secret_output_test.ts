/**
 * No secret is ever printed: each entry that starts a server (`npm start`'s
 * server/main.ts, `callflow-api serve`, `node server/mod.ts`, `callflow-api
 * mock`), started with a fixtures file and its access log on, says how many
 * tokens it loaded, never which; nor does a `DATABASE_URL`'s password show
 * in its output, whether the database answers or not.
 *
 * @module
 */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { after, before, describe, it } from "node:test";
import { runtimeName } from "../server/runtimes/mod.ts";
import {
  denoServeArgs,
  freePort,
  ServerProcess,
  UNSET_SERVER_SETTINGS,
} from "./deploy/processes.ts";
import { binCommand } from "./support/mock_cli.ts";
import { createTestDatabase } from "./support/postgres.ts";

const PROJECT = "3f1c9a52-7a4b-4e2d-9c11-5b8f2e6d7a90";
const CALL = "0b6f5c1e-2d3a-4e8b-9f70-1a2b3c4d5e6f";
/** Tokens long and unusual enough that any appearance is a leak. */
const OWNER = "owner-7Qm2xVb9LcR4nT8pK1sW6yZ3dF5gH0jA";
const VIEWER = "viewer-Xe4Rt7Yu2Io9Pa5Sd1Fg8Hj3Kl6Zx0Cv";
const SWAPPED = "swapped-Mn8Bv3Cx6Za1Lk4Jh9Gf2Ds7Ap5Qw0Er";
const PASSWORD = "pw-Ty5Ui8Op1As4Df7Gh0Jk3Lz6Xc9Vb2Nm";

const fixtures = (tokens: string[]) => ({
  projects: [{ project_id: PROJECT, name: "Secret Project" }],
  tokens: tokens.map((token, index) => ({
    token,
    project_id: PROJECT,
    role: index === 0 ? "owner" : "viewer",
  })),
  calls: [{
    call_id: CALL,
    project_id: PROJECT,
    created_at: "2026-01-01T10:00:00Z",
    messages: [{ role: "agent", text: "hello" }],
  }],
});

let directory: string;
let fixturesPath: string;
before(async () => {
  directory = await mkdtemp(join(tmpdir(), "callflow-secrets-"));
  fixturesPath = join(directory, "fixtures.json");
  await writeFile(fixturesPath, JSON.stringify(fixtures([OWNER, VIEWER])));
});
after(() => rm(directory, { recursive: true, force: true }));

/** The runtime's command line for a script of this repository. */
function scriptCommand(script: string, ...args: string[]): string[] {
  return runtimeName() === "deno"
    ? ["run", "--allow-all", script, ...args]
    : [script, ...args];
}

/**
 * Starts `./server` (server/mod.ts) as each runtime runs it (`deno serve`
 * under Deno, where it prints no address), on a free port; resolves once
 * it answers.
 */
async function startServerEntry(
  env: Record<string, string>,
): Promise<{ server: ServerProcess; url: string }> {
  const port = await freePort();
  const args = runtimeName() === "deno"
    ? denoServeArgs(port)
    : ["server/mod.ts"];
  const server = new ServerProcess(process.execPath, args, {
    cwd: process.cwd(),
    env: { ...process.env, ...UNSET_SERVER_SETTINGS, ...env, PORT: `${port}` },
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await server.ready(`${url}/healthz`);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return { server, url };
}

/** Starts a server process; resolves with it and its URL once it listens. */
async function start(
  args: string[],
  env: Record<string, string>,
): Promise<{ server: ServerProcess; url: string }> {
  const server = new ServerProcess(process.execPath, args, {
    cwd: process.cwd(),
    env: { ...process.env, ...UNSET_SERVER_SETTINGS, ...env },
  });
  const deadline = Date.now() + 30_000;
  for (;;) {
    const url = /listening on (http:\/\/\S+)/.exec(server.stdout)?.[1];
    if (url !== undefined) {
      // The rest of the start-up lines follow the address.
      await new Promise((resolve) => setTimeout(resolve, 200));
      return { server, url };
    }
    if (!server.running || Date.now() > deadline) {
      await server.stop();
      throw new Error(`the server did not start\n${server.output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Uses each token (and a wrong one), so the access log has lines. */
async function useTokens(url: string): Promise<void> {
  for (const token of [OWNER, VIEWER, `${OWNER}x`]) {
    const response = await fetch(`${url}/v1/call/${CALL}/message`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(response.status, token.endsWith("x") ? 401 : 200);
    await response.body?.cancel();
  }
}

function assertNoSecret(output: string, secrets: string[]): void {
  for (const secret of secrets) {
    assert.equal(
      output.includes(secret),
      false,
      `${secret} printed:\n${output}`,
    );
  }
}

const LOGGED = { LOG_LEVEL: "info", HOST: "127.0.0.1", PORT: "0" };
/** Each entry, and whether it announces its tokens (`deno serve`, Bun's
 * default export: no). */
const entries: Array<
  [string, (env: Record<string, string>) => ReturnType<typeof start>, boolean]
> = [
  [
    "server/main.ts (npm start)",
    (env) => start(scriptCommand("server/main.ts"), env),
    true,
  ],
  [
    "callflow-api serve",
    (env) => start(binCommand(["serve", "--port", "0"])[1], env),
    true,
  ],
  ["server/mod.ts", startServerEntry, runtimeName() === "node"],
];

describe("no token is printed", () => {
  for (const [name, startEntry, announces] of entries) {
    it(`${name} with a fixtures file says how many tokens, and logs none`, async () => {
      const { server, url } = await startEntry({
        ...LOGGED,
        FIXTURES: fixturesPath,
      });
      try {
        await useTokens(url);
        // The access log's lines are batched a tick.
        await new Promise((resolve) => setTimeout(resolve, 200));
        if (announces) {
          assert.match(server.stdout, /Tokens: 2 loaded \(not shown\)/);
        }
        assert.match(server.stdout, /"status":401|\s401\s/);
      } finally {
        await server.stop();
      }
      assertNoSecret(server.output, [OWNER, VIEWER]);
    });
  }

  it("callflow-api mock says how many tokens at start and on PUT /__mock/fixtures", async () => {
    const port = await freePort();
    const { server, url } = await start(
      binCommand([
        "mock",
        "--port",
        String(port),
        "--fixtures",
        fixturesPath,
        "--verbose",
      ])[1],
      {},
    );
    try {
      await useTokens(url);
      const put = await fetch(`${url}/__mock/fixtures`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(fixtures([SWAPPED])),
      });
      assert.equal(put.status, 204);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.match(server.stdout, /Tokens: 2 loaded \(not shown\)/);
      assert.match(server.stdout, /Fixtures replaced\. Tokens: 1 loaded/);
    } finally {
      await server.stop();
    }
    assertNoSecret(server.output, [OWNER, VIEWER, SWAPPED]);
  });

  it("the demo data's tokens, which are public, are still listed", async () => {
    const { server } = await start(scriptCommand("server/main.ts"), LOGGED);
    await server.stop();
    assert.match(server.stdout, /demo-owner\s+owner\s+Acme/);
  });
});

describe("no DATABASE_URL password is printed", () => {
  it("while serving from the database, with a fixtures file", async () => {
    const db = await createTestDatabase();
    try {
      const withPassword = new URL(db.url);
      withPassword.password = PASSWORD;
      const { server, url } = await start(scriptCommand("server/main.ts"), {
        ...LOGGED,
        DATABASE_URL: withPassword.href,
        DATABASE_POOL_SIZE: String(db.max),
        FIXTURES: fixturesPath,
      });
      try {
        await useTokens(url);
      } finally {
        await server.stop();
      }
      assert.match(server.stdout, /Tokens: 2 loaded \(not shown\)/);
      assertNoSecret(server.output, [PASSWORD, OWNER, VIEWER]);
    } finally {
      await db.drop();
    }
  });

  it("when the database cannot be reached", async () => {
    const port = await freePort();
    const server = new ServerProcess(
      process.execPath,
      scriptCommand("server/main.ts"),
      {
        cwd: process.cwd(),
        env: {
          ...process.env,
          ...UNSET_SERVER_SETTINGS,
          ...LOGGED,
          DATABASE_URL: `postgres://app:${PASSWORD}@127.0.0.1:${port}/app`,
        },
      },
    );
    const code = await Promise.race([
      server.exited,
      new Promise((resolve) => setTimeout(() => resolve("running"), 30_000)),
    ]);
    await server.stop();
    assert.notEqual(code, 0, server.output);
    assert.notEqual(server.stderr, "", server.output);
    assertNoSecret(server.output, [PASSWORD]);
  });
});
