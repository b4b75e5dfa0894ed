/**
 * Ordinary clients as tests: the three operations and the message list
 * called the way Python's `requests` and `httpx`, axios, ky, Node's `fetch`
 * (undici) and `curl --json` call them by default, with and without a `{}`
 * body, against the API server (`server/main.ts`, what `npm start` runs) and
 * the standalone mock (`callflow-api mock`), both on the demo data plus one
 * integration per deletion, served by the runtime running this file (npm
 * test runs it under Node, Deno and Bun). Each answer is the one FastAPI gives (the
 * contract's reference; scripts/fastapi_differential.py compares them at
 * large): 200 with the events, 409 for an `EMPTY` trigger, 204 then 404 for
 * a deletion, 200 with the list, the bulk export's ZIP or its 422s, and a bad
 * path id 422 `uuid_parsing` whatever the body.
 *
 * `fetch` and ky cannot send a body with a `GET` (the Fetch standard
 * forbids it), so they call the message list without one. The Python
 * clients run on `FASTAPI_PYTHON` (set by `npm test`: .tmp/python), else
 * .tmp/python, and are skipped without `requests` and `httpx` unless
 * `FASTAPI_PYTHON` was set.
 *
 * @module
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import axios from "axios";
import ky from "ky";
import { demoFixtures } from "../../src/store/demo_fixtures.ts";
import { startMockCli } from "../support/mock_cli.ts";
import { startServerMain } from "../support/server_main.ts";

const TOKEN = "demo-owner";
const BULK = "/v1/call/message/bulk";
const CALL = "1f0e8d7c-6b5a-4493-8281-706f5e4d3c2b";
const WEBHOOK_FLOW = "a0b1c2d3-e4f5-4a6b-9c7d-8e9f0a1b2c3d";
const EMPTY_FLOW = "9e0f1a2b-3c4d-4e5f-8a6b-7c8d9e0f1a2b";
const ACME = demoFixtures.projects[0]!.project_id;

/** One request: no `json`, no body. */
interface Call {
  method: "GET" | "POST" | "DELETE";
  path: string;
  json?: unknown;
}

/** What came back. */
interface Answer {
  status: number;
  contentType: string | null;
  body: Uint8Array;
}

/** A client: how it sends a list of calls, in order. */
interface Client {
  name: string;
  /** Whether it can send a body with a GET. */
  getBody: boolean;
  send(base: string, calls: Call[]): Promise<Answer[]>;
}

const auth = { authorization: `Bearer ${TOKEN}` };

async function inOrder(
  calls: Call[],
  one: (call: Call) => Promise<Answer>,
): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (const call of calls) answers.push(await one(call));
  return answers;
}

/** A Fetch API response (fetch's, ky's), read whole. */
async function answerOf(response: Response): Promise<Answer> {
  return {
    status: response.status,
    contentType: response.headers.get("content-type"),
    body: new Uint8Array(await response.arrayBuffer()),
  };
}

const fetchClient: Client = {
  name: "fetch (undici)",
  getBody: false,
  send: (base, calls) =>
    inOrder(calls, async (call) => {
      // fetch(url, { method: "POST", body: JSON.stringify({}) }): sent as
      // text/plain unless told; the bulk export's docs say application/json.
      const headers: Record<string, string> = { ...auth };
      if (call.path === BULK) headers["content-type"] = "application/json";
      const response = await fetch(base + call.path, {
        method: call.method,
        headers,
        ...("json" in call ? { body: JSON.stringify(call.json) } : {}),
      });
      return await answerOf(response);
    }),
};

const axiosClient: Client = {
  name: "axios",
  getBody: true,
  send: (base, calls) =>
    inOrder(calls, async (call) => {
      // axios.post(url, {}), axios.delete(url, { data: {} }), axios.get.
      const response = await axios.request({
        method: call.method,
        url: base + call.path,
        headers: auth,
        data: call.json,
        responseType: "arraybuffer",
        validateStatus: () => true,
      });
      const type = response.headers["content-type"];
      return {
        status: response.status,
        contentType: typeof type === "string" ? type : null,
        body: new Uint8Array(response.data as ArrayBuffer),
      };
    }),
};

const kyClient: Client = {
  name: "ky",
  getBody: false,
  send: (base, calls) =>
    inOrder(calls, async (call) => {
      // ky.post(url, { json: {} }), its retries and all.
      const response = await ky(base + call.path, {
        method: call.method,
        headers: auth,
        throwHttpErrors: false,
        ...("json" in call ? { json: call.json } : {}),
      });
      return await answerOf(response);
    }),
};

const curlClient: Client = {
  name: "curl --json",
  getBody: true,
  send: (base, calls) =>
    inOrder(calls, (call) => {
      const dir = mkdtempSync(join(tmpdir(), "callflow-curl-"));
      try {
        const file = join(dir, "body");
        const run = spawnSync("curl", [
          "-sS",
          "-X",
          call.method,
          "-H",
          `Authorization: Bearer ${TOKEN}`,
          ...("json" in call ? ["--json", JSON.stringify(call.json)] : []),
          "-o",
          file,
          "-w",
          "%{http_code} %{content_type}",
          base + call.path,
        ], { encoding: "utf8", timeout: 30_000 });
        assert.equal(run.status, 0, run.stderr);
        const [status, type] = run.stdout.split(" ");
        return Promise.resolve({
          status: Number(status),
          contentType: type || null,
          body: existsSync(file) ? readFileSync(file) : new Uint8Array(),
        });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }),
};

const OWN_PYTHON = fileURLToPath(
  new URL("../../.tmp/python/bin/python", import.meta.url),
);
const CHOSEN_PYTHON = process.env["FASTAPI_PYTHON"];
const PYTHON = CHOSEN_PYTHON ??
  (existsSync(OWN_PYTHON) ? OWN_PYTHON : "python3");
const pythonReady = spawnSync(PYTHON, ["-c", "import requests, httpx"], {
  stdio: "ignore",
  timeout: 30_000,
}).status === 0;
const RUNNER = fileURLToPath(new URL("python_clients.py", import.meta.url));

function pythonClient(name: "requests" | "httpx"): Client {
  return {
    name,
    getBody: true,
    send: (base, calls) => {
      const child = spawn(PYTHON, [RUNNER], {
        stdio: ["pipe", "pipe", "inherit"],
      });
      let output = "";
      child.stdout.on("data", (chunk: Uint8Array) => (output += String(chunk)));
      child.stdin.end(JSON.stringify({
        base,
        token: TOKEN,
        plans: { requests: [], httpx: [], [name]: calls },
      }));
      const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
      return new Promise((resolve, reject) => {
        child.once("close", (code) => {
          clearTimeout(timer);
          if (code !== 0) return reject(new Error(`${name}: exit ${code}`));
          const answers = JSON.parse(output)[name] as {
            status: number;
            content_type: string | null;
            body: string;
          }[];
          resolve(answers.map((answer) => ({
            status: answer.status,
            contentType: answer.content_type,
            body: Buffer.from(answer.body, "base64"),
          })));
        });
      });
    },
  };
}

/** A request, and what FastAPI answers to it. */
interface Case {
  name: string;
  call: Call;
  expect(answer: Answer): void;
}

function json(answer: Answer): unknown {
  assert.match(answer.contentType ?? "", /^application\/json/);
  return JSON.parse(new TextDecoder().decode(answer.body));
}

function error(status: number, errorCode: string) {
  return (answer: Answer) => {
    assert.equal(answer.status, status);
    assert.equal(
      (json(answer) as { error_code: string }).error_code,
      errorCode,
    );
  };
}

/** FastAPI's 422 for a bad path id: `uuid_parsing` at `["path", name]`. */
function badPath(name: string) {
  return (answer: Answer) => {
    assert.equal(answer.status, 422);
    const [issue] = (json(answer) as { detail: Record<string, unknown>[] })
      .detail;
    assert.equal(issue!["type"], "uuid_parsing");
    assert.deepEqual(issue!["loc"], ["path", name]);
    assert.equal(issue!["input"], "nope");
  };
}

const events = (answer: Answer) => {
  assert.equal(answer.status, 200);
  assert.deepEqual(json(answer), {
    events: [{ order_id: "ord_123", status: "shipped" }],
  });
};

const messages = (answer: Answer) => {
  assert.equal(answer.status, 200);
  const list = json(answer) as { role: string; text: string }[];
  assert.deepEqual(
    list,
    demoFixtures.calls.find((call) => call.call_id === CALL)!.messages,
  );
};

const deleted = (answer: Answer) => {
  assert.equal(answer.status, 204);
  assert.equal(answer.body.byteLength, 0);
};

/** The cases for one client, deleting its own two integrations. */
function cases(client: Client, [first, second]: string[]): Case[] {
  const trigger = (flow: string) => `/v1/workflow/${flow}/trigger/test`;
  const list = (call: string) => `/v1/call/${call}/message`;
  const integration = (id: string) => `/v1/integration/${id}`;
  const withBody: Call["json"][] = [{}];
  return [
    ...[undefined, ...withBody].flatMap((body): Case[] => {
      const sent = body === undefined ? {} : { json: body };
      const label = body === undefined ? "without a body" : "with {}";
      return [
        {
          name: `trigger test ${label}: 200 with the events`,
          call: { method: "POST", path: trigger(WEBHOOK_FLOW), ...sent },
          expect: events,
        },
        {
          name: `EMPTY trigger ${label}: 409`,
          call: { method: "POST", path: trigger(EMPTY_FLOW), ...sent },
          expect: error(409, "TRIGGER_NOT_CONFIGURED"),
        },
        {
          name: `trigger test of a bad id ${label}: 422`,
          call: { method: "POST", path: trigger("nope"), ...sent },
          expect: badPath("flow_id"),
        },
        {
          name: `delete of a bad id ${label}: 422`,
          call: { method: "DELETE", path: integration("nope"), ...sent },
          expect: badPath("integration_id"),
        },
        ...(body !== undefined && !client.getBody ? [] : [
          {
            name: `message list ${label}: 200 with the list`,
            call: { method: "GET", path: list(CALL), ...sent },
            expect: messages,
          } satisfies Case,
          {
            name: `message list of a bad id ${label}: 422`,
            call: { method: "GET", path: list("nope"), ...sent },
            expect: badPath("call_id"),
          } satisfies Case,
        ]),
      ];
    }),
    {
      name: "delete with {}: 204",
      call: { method: "DELETE", path: integration(first!), json: {} },
      expect: deleted,
    },
    {
      name: "the same delete again with {}: 404",
      call: { method: "DELETE", path: integration(first!), json: {} },
      expect: error(404, "INTEGRATION_NOT_FOUND"),
    },
    {
      name: "delete without a body: 204",
      call: { method: "DELETE", path: integration(second!) },
      expect: deleted,
    },
    {
      name: "the same delete again without a body: 404",
      call: { method: "DELETE", path: integration(second!) },
      expect: error(404, "INTEGRATION_NOT_FOUND"),
    },
    {
      name: "bulk export: 200 with the ZIP",
      call: { method: "POST", path: BULK, json: { call_ids: [CALL] } },
      expect: (answer) => {
        assert.equal(answer.status, 200);
        assert.equal(answer.contentType, "application/zip");
        const text = new TextDecoder("latin1").decode(answer.body);
        assert.ok(text.startsWith("PK\x03\x04"), "a ZIP");
        assert.ok(text.includes(`${CALL}.json`), "its entry");
      },
    },
    {
      name: "bulk export with {}: 422 missing call_ids",
      call: { method: "POST", path: BULK, json: {} },
      expect: (answer) => {
        assert.equal(answer.status, 422);
        assert.deepEqual(json(answer), {
          detail: [{
            type: "missing",
            loc: ["body", "call_ids"],
            msg: "Field required",
            input: {},
          }],
        });
      },
    },
    {
      name: "bulk export without a body: 422 missing body",
      call: { method: "POST", path: BULK },
      expect: (answer) => {
        assert.equal(answer.status, 422);
        assert.deepEqual(json(answer), {
          detail: [{
            type: "missing",
            loc: ["body"],
            msg: "Field required",
            input: null,
          }],
        });
      },
    },
  ];
}

const CLIENTS: Client[] = [
  fetchClient,
  axiosClient,
  kyClient,
  curlClient,
  pythonClient("requests"),
  pythonClient("httpx"),
];
/** Two integrations of its own per client, to delete. */
const OWN = CLIENTS.map(() => [crypto.randomUUID(), crypto.randomUUID()]);

const dir = mkdtempSync(join(tmpdir(), "callflow-clients-"));
const fixturesFile = join(dir, "fixtures.json");
writeFileSync(
  fixturesFile,
  JSON.stringify({
    ...demoFixtures,
    integrations: [
      ...demoFixtures.integrations,
      ...OWN.flat().map((id) => ({
        integration_id: id,
        project_id: ACME,
        kind: "http",
        name: "To delete",
        tools: [],
      })),
    ],
  }),
);

const targets: Record<string, { url: string; stop(): Promise<void> }> = {};
before(async () => {
  const api = startServerMain({ FIXTURES: fixturesFile });
  targets["API (server/main.ts)"] = {
    url: await api.url,
    stop: () => api.server.stop(),
  };
  const mock = await startMockCli([
    "mock",
    "--port",
    "0",
    "--fixtures",
    fixturesFile,
  ]);
  targets["standalone mock"] = mock;
});
after(async () => {
  await Promise.all(Object.values(targets).map((target) => target.stop()));
  rmSync(dir, { recursive: true, force: true });
});

for (const target of ["API (server/main.ts)", "standalone mock"]) {
  describe(`Ordinary clients against the ${target}`, () => {
    CLIENTS.forEach((client, index) => {
      const python = client.name === "requests" || client.name === "httpx";
      const skip = python && !pythonReady && CHOSEN_PYTHON === undefined &&
        `${PYTHON} lacks requests or httpx (FASTAPI_PYTHON)`;
      it(`${client.name}: FastAPI's answers`, { skip }, async () => {
        const plan = cases(client, OWN[index]!);
        const answers = await client.send(
          targets[target]!.url,
          plan.map((step) => step.call),
        );
        assert.equal(answers.length, plan.length);
        plan.forEach((step, at) => {
          try {
            step.expect(answers[at]!);
          } catch (failure) {
            const body = new TextDecoder().decode(answers[at]!.body);
            throw new Error(
              `${client.name}, ${step.name}: ${answers[at]!.status} ${body}`,
              { cause: failure },
            );
          }
        });
      });
    });
  });
}
