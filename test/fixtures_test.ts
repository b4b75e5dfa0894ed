/**
 * The fixtures format: its canonical form, every refusal with the offending
 * path, reading it from a file, the start-up token listing, and a store that
 * is not half-seeded by a bad document.
 *
 * @module
 */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import {
  checkFixtures,
  type Fixtures,
  FixturesError,
  parseFixtures,
  parseTrigger,
  resolveFixtures,
} from "../src/store/fixtures.ts";
import {
  describeTokens,
  readFixturesFile,
} from "../server/files/fixtures_file.ts";
import { MemoryStore } from "../src/store/memory_store.ts";
import { demoFixtures } from "../src/store/demo_fixtures.ts";
import { hashToken } from "../src/store/sha256.ts";

const ACME = "0b6f1c2e-8d3a-4c55-9a57-3e3c2d1f0a11";
const GLOBEX = "9f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a00";
const CALL = "5d1f8a8e-2b7c-4f3e-8f00-6a7d5c4b3a21";
const CALL_2 = "6e2a9b9f-3c8d-4a4f-9a11-7b8e6d5c4b32";
const MCP = "7f3b0c0a-4d9e-4b50-8b22-8c9f7e6d5c43";
const HTTP = "8a4c1d1b-5e0f-4c61-9c33-9d0a8f7e6d54";
const TOOL = "9b5d2e2c-6f1a-4d72-8d44-0e1b9a8f7e65";
const TOOL_2 = "0c6e3f3d-7a2b-4e83-9e55-1f2c0b9a8f76";
const FLOW = "1d7f4a4e-8b3c-4f94-8f66-2a3d1c0b9a87";

// deno-lint-ignore no-explicit-any
type Loose = any;
/** A fixtures document loosely typed, so tests can break any field. */
type Doc = Loose;

/** A valid document touching every list; tests break one field of a copy. */
function validInput(): Record<string, unknown[]> {
  return {
    projects: [{ project_id: ACME, name: "Acme" }],
    tokens: [{ token: "t-owner", project_id: ACME, role: "owner" }],
    calls: [{
      call_id: CALL,
      project_id: ACME,
      created_at: "2026-03-01T10:00:00.000Z",
      messages: [{ role: "agent", text: "Hello" }],
    }],
    integrations: [
      {
        integration_id: MCP,
        project_id: ACME,
        kind: "mcp",
        name: "KB",
        cached_tools: [{ name: "search" }],
      },
      {
        integration_id: HTTP,
        project_id: ACME,
        kind: "http",
        name: "Orders",
        tools: [{ tool_id: TOOL, name: "get_order" }],
      },
    ],
    flows: [{
      flow_id: FLOW,
      project_id: ACME,
      name: "Nightly",
      trigger: { type: "schedule", cron: "0 2 * * *", timezone: "UTC" },
    }],
  };
}

/** The Acme project and one call, with `fields` of the call overridden. */
function oneCall(fields: Record<string, unknown> = {}): Doc {
  return {
    projects: [{ project_id: ACME, name: "Acme" }],
    calls: [{
      call_id: CALL,
      project_id: ACME,
      created_at: "2026-03-01T10:00:00Z",
      ...fields,
    }],
  };
}

/** The valid document with `change` applied to a deep copy. */
function withChange(
  change: (input: Doc) => void,
): Record<string, unknown[]> {
  const input = structuredClone(validInput()) as Doc;
  change(input);
  return input;
}

/** Asserts that `run` throws a FixturesError naming exactly `path`. */
function assertRefused(
  run: () => unknown,
  path: string | RegExp,
  problem?: RegExp,
): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof FixturesError, `not a FixturesError: ${error}`);
    if (typeof path === "string") {
      assert.equal(error.path, path);
    } else {
      assert.match(error.path, path);
    }
    assert.ok(
      error.message.includes(error.path),
      `message does not name the path: ${error.message}`,
    );
    if (problem !== undefined) assert.match(error.message, problem);
    return true;
  });
}

describe("parseFixtures canonical form", () => {
  it("returns a document already in canonical form unchanged", () => {
    assert.deepEqual(parseFixtures(validInput()), validInput());
  });

  it("finds the built-in demo data canonical, as seeding trusts it", () => {
    // markChecked skips the check at every start: a copy must pass it unchanged.
    const check = checkFixtures(structuredClone(demoFixtures));
    assert.ok(check.ok);
    assert.deepEqual(check.fixtures, demoFixtures);
    assert.deepEqual(check.references, []);
    assert.equal(checkFixtures(demoFixtures).ok, true);
  });

  it("canonicalises every UUID form to lowercase hyphenated", () => {
    const fixtures = parseFixtures({
      projects: [{ project_id: ACME.toUpperCase(), name: "Acme" }],
      tokens: [{
        token: "t",
        project_id: ACME.replaceAll("-", ""),
        role: "viewer",
      }],
      calls: [{
        call_id: `{${CALL.toUpperCase()}}`,
        project_id: `urn:uuid:${ACME}`,
        created_at: "2026-03-01T10:00:00Z",
      }],
      integrations: [{
        integration_id: HTTP.replaceAll("-", "").toUpperCase(),
        project_id: ACME,
        kind: "http",
        name: "Orders",
        tools: [{ tool_id: `{${TOOL}}`, name: "get_order" }],
      }],
      flows: [{
        flow_id: `urn:uuid:${FLOW.toUpperCase()}`,
        project_id: ACME,
        name: "F",
        trigger: { type: "EMPTY" },
      }],
    });
    assert.equal(fixtures.projects[0]!.project_id, ACME);
    assert.equal(fixtures.tokens[0]!.project_id, ACME);
    assert.equal(fixtures.calls[0]!.call_id, CALL);
    assert.equal(fixtures.calls[0]!.project_id, ACME);
    assert.equal(fixtures.integrations[0]!.integration_id, HTTP);
    const integration = fixtures.integrations[0]!;
    assert.equal(integration.kind, "http");
    assert.deepEqual(
      integration.kind === "http" ? integration.tools : undefined,
      [{ tool_id: TOOL, name: "get_order" }],
    );
    assert.equal(fixtures.flows[0]!.flow_id, FLOW);
  });

  it("turns created_at with any offset into ISO 8601 UTC", () => {
    const at = (created_at: string) =>
      parseFixtures(oneCall({ created_at })).calls[0]!.created_at;
    assert.equal(at("2026-03-01T10:00:00+02:00"), "2026-03-01T08:00:00.000Z");
    assert.equal(at("2026-03-01T10:00:00-0530"), "2026-03-01T15:30:00.000Z");
    assert.equal(at("2026-03-01T10:00Z"), "2026-03-01T10:00:00.000Z");
    assert.equal(
      at("2026-03-01T23:59:59.123456+00:00"),
      "2026-03-01T23:59:59.123Z",
    );
  });

  it("defaults every missing list to an empty one", () => {
    assert.deepEqual(parseFixtures({}), {
      projects: [],
      tokens: [],
      calls: [],
      integrations: [],
      flows: [],
    });
    const fixtures = parseFixtures({
      ...oneCall(),
      integrations: [
        { integration_id: MCP, project_id: ACME, kind: "mcp", name: "KB" },
        { integration_id: HTTP, project_id: ACME, kind: "http", name: "O" },
      ],
    });
    assert.deepEqual(fixtures.calls[0]!.messages, []);
    assert.deepEqual(fixtures.integrations, [
      {
        integration_id: MCP,
        project_id: ACME,
        kind: "mcp",
        name: "KB",
        cached_tools: [],
      },
      {
        integration_id: HTTP,
        project_id: ACME,
        kind: "http",
        name: "O",
        tools: [],
      },
    ]);
  });

  it("keeps messages verbatim and in order", () => {
    const messages = [
      { z: 1, a: [1, { b: null }], text: "é\u0000\u{1F600}" },
      {},
      { role: "agent", nested: { deep: { deeper: true } } },
    ];
    const fixtures = parseFixtures(oneCall({ messages }));
    assert.deepEqual(fixtures.calls[0]!.messages, messages);
    assert.equal(
      JSON.stringify(fixtures.calls[0]!.messages),
      JSON.stringify(messages),
    );
  });

  it("keeps only a trigger's known fields", () => {
    assert.deepEqual(
      parseTrigger({ type: "call_ended", cron: "0 * * * *" }, "trigger"),
      { type: "call_ended" },
    );
    assert.deepEqual(
      parseTrigger({ type: "webhook", sample_payload: { a: 1 }, x: 2 }, "t"),
      { type: "webhook", sample_payload: { a: 1 } },
    );
  });

  it("lets entries refer to projects the caller already knows", () => {
    const fixtures = parseFixtures(
      { tokens: [{ token: "t", project_id: GLOBEX, role: "member" }] },
      { knownProjectIds: [GLOBEX] },
    );
    assert.deepEqual(fixtures.tokens, [
      { token: "t", project_id: GLOBEX, role: "member" },
    ]);
    assertRefused(
      () =>
        parseFixtures({
          tokens: [{ token: "t", project_id: GLOBEX, role: "member" }],
        }),
      "tokens[0].project_id",
    );
  });

  it("accepts a document that declares again a project the caller knows", () => {
    const fixtures = parseFixtures(
      { projects: [{ project_id: GLOBEX, name: "Globex, renamed" }] },
      { knownProjectIds: [GLOBEX] },
    );
    assert.deepEqual(fixtures.projects, [
      { project_id: GLOBEX, name: "Globex, renamed" },
    ]);
  });
});

describe("parseFixtures refuses a broken document with the offending path", () => {
  it("refuses a document that is not an object", () => {
    assertRefused(() => parseFixtures([]), "fixtures");
    assertRefused(() => parseFixtures(null), "fixtures");
    assertRefused(() => parseFixtures("{}"), "fixtures");
  });

  it("refuses a list that is not an array", () => {
    assertRefused(
      () => parseFixtures({ projects: { project_id: ACME } }),
      "projects",
    );
    assertRefused(
      () => parseFixtures(withChange((d) => (d.calls[0].messages = "hi"))),
      "calls[0].messages",
    );
    assertRefused(
      () => parseFixtures(withChange((d) => (d.integrations[1].tools = {}))),
      "integrations[1].tools",
    );
  });

  it("refuses an entry that is not an object", () => {
    assertRefused(
      () => parseFixtures(withChange((d) => d.tokens.push("t"))),
      "tokens[1]",
    );
    assertRefused(
      () => parseFixtures(withChange((d) => (d.flows[0].trigger = "EMPTY"))),
      "flows[0].trigger",
    );
  });

  it("refuses a bad UUID", () => {
    assertRefused(
      () => parseFixtures(withChange((d) => (d.projects[0].project_id = "p1"))),
      "projects[0].project_id",
      /UUID/,
    );
    assertRefused(
      () =>
        parseFixtures(
          withChange((d) => (d.calls[0].call_id = `${CALL.slice(0, -1)}g`)),
        ),
      "calls[0].call_id",
    );
    assertRefused(
      () =>
        parseFixtures(
          withChange((d) => (d.integrations[0].integration_id = 7)),
        ),
      "integrations[0].integration_id",
    );
    assertRefused(
      () =>
        parseFixtures(
          withChange((d) => (d.integrations[1].tools[0].tool_id = undefined)),
        ),
      "integrations[1].tools[0].tool_id",
    );
    assertRefused(
      () => parseFixtures(withChange((d) => (d.flows[0].flow_id = `{${FLOW}`))),
      "flows[0].flow_id",
    );
    assertRefused(
      () => parseFixtures(withChange((d) => (d.tokens[0].project_id = "acme"))),
      "tokens[0].project_id",
      /UUID/,
    );
  });

  it("refuses an unknown role", () => {
    for (const role of ["superuser", "Owner", "", undefined]) {
      assertRefused(
        () => parseFixtures(withChange((d) => (d.tokens[0].role = role))),
        "tokens[0].role",
      );
    }
  });

  it("refuses an unknown trigger type", () => {
    for (const type of ["cron", "empty", undefined]) {
      assertRefused(
        () => parseFixtures(withChange((d) => (d.flows[0].trigger = { type }))),
        "flows[0].trigger.type",
      );
    }
  });

  it("refuses an invalid cron expression", () => {
    for (const cron of ["0 9 * *", "61 * * * *", "* * * * * * * *", "nope"]) {
      assertRefused(
        () =>
          parseFixtures(withChange((d) => (d.flows[0].trigger.cron = cron))),
        "flows[0].trigger.cron",
        /cron/,
      );
    }
    assertRefused(
      () => parseFixtures(withChange((d) => delete d.flows[0].trigger.cron)),
      "flows[0].trigger.cron",
    );
  });

  it("refuses an unknown time zone", () => {
    for (const timezone of ["Mars/Olympus", "Europe/Pariss"]) {
      assertRefused(
        () =>
          parseFixtures(
            withChange((d) => (d.flows[0].trigger.timezone = timezone)),
          ),
        "flows[0].trigger.timezone",
        /time zone/,
      );
    }
    assertRefused(
      () =>
        parseFixtures(withChange((d) => delete d.flows[0].trigger.timezone)),
      "flows[0].trigger.timezone",
    );
  });

  it("refuses a project_id that names no project, in every list", () => {
    const cases: [string, (d: Doc) => void][] = [
      ["tokens[0].project_id", (d) => (d.tokens[0].project_id = GLOBEX)],
      ["calls[0].project_id", (d) => (d.calls[0].project_id = GLOBEX)],
      [
        "integrations[1].project_id",
        (d) => (d.integrations[1].project_id = GLOBEX),
      ],
      ["flows[0].project_id", (d) => (d.flows[0].project_id = GLOBEX)],
    ];
    for (const [path, change] of cases) {
      assertRefused(() => parseFixtures(withChange(change)), path, /unknown/);
    }
  });

  it("refuses duplicate ids, also when written in another UUID form", () => {
    const cases: [string, (d: Doc) => void][] = [
      [
        "projects[1]",
        (d) => d.projects.push({ project_id: ACME.toUpperCase(), name: "B" }),
      ],
      [
        "calls[1]",
        (d) => d.calls.push({ ...d.calls[0], call_id: `{${CALL}}` }),
      ],
      [
        "integrations[2]",
        (d) =>
          d.integrations.push({
            ...d.integrations[0],
            integration_id: HTTP.replaceAll("-", ""),
          }),
      ],
      [
        "integrations[1].tools[1]",
        (d) => d.integrations[1].tools.push({ tool_id: TOOL, name: "again" }),
      ],
      ["flows[1]", (d) => d.flows.push({ ...d.flows[0] })],
    ];
    for (const [path, change] of cases) {
      assertRefused(() => parseFixtures(withChange(change)), path, /duplicate/);
    }
  });

  it("refuses a tool id used by two integrations", () => {
    assertRefused(
      () =>
        parseFixtures(withChange((d) =>
          d.integrations.push({
            integration_id: CALL_2,
            project_id: ACME,
            kind: "http",
            name: "Other",
            tools: [{ tool_id: TOOL_2, name: "a" }, {
              tool_id: TOOL,
              name: "b",
            }],
          })
        )),
      "integrations[2].tools[1]",
      /duplicate/,
    );
  });

  it("refuses a duplicate token, even in another project", () => {
    assertRefused(
      () =>
        parseFixtures(withChange((d) => {
          d.projects.push({ project_id: GLOBEX, name: "Globex" });
          d.tokens.push({
            token: "t-owner",
            project_id: GLOBEX,
            role: "admin",
          });
        })),
      "tokens[1]",
      /duplicate token/,
    );
  });

  it("refuses a message that is not a JSON object", () => {
    for (const message of ["hi", 1, null, [], [{ a: 1 }]]) {
      assertRefused(
        () =>
          parseFixtures(withChange((d) => d.calls[0].messages.push(message))),
        "calls[0].messages[1]",
        /object/,
      );
    }
    assertRefused(
      () =>
        parseFixtures(
          withChange((d) => d.integrations[0].cached_tools.push(3)),
        ),
      "integrations[0].cached_tools[1]",
    );
  });

  it("refuses a kind other than mcp or http", () => {
    for (const kind of ["grpc", "MCP", undefined]) {
      assertRefused(
        () => parseFixtures(withChange((d) => (d.integrations[0].kind = kind))),
        "integrations[0].kind",
      );
    }
  });

  it("refuses a missing or empty name", () => {
    const cases: [string, (d: Doc) => void][] = [
      ["projects[0].name", (d) => delete d.projects[0].name],
      ["integrations[0].name", (d) => (d.integrations[0].name = "")],
      [
        "integrations[1].tools[0].name",
        (d) => delete d.integrations[1].tools[0].name,
      ],
      ["flows[0].name", (d) => (d.flows[0].name = 42)],
    ];
    for (const [path, change] of cases) {
      assertRefused(() => parseFixtures(withChange(change)), path);
    }
  });

  it("refuses an empty or non-string token", () => {
    for (const token of ["", 12, undefined]) {
      assertRefused(
        () => parseFixtures(withChange((d) => (d.tokens[0].token = token))),
        "tokens[0].token",
      );
    }
  });

  it("refuses a created_at that is not an ISO 8601 date-time with offset", () => {
    for (
      const created_at of [
        "yesterday",
        "2026-03-01T10:00:00",
        "2026-03-01",
        0,
        "2026-02-30T10:00:00Z",
        "2025-02-29T10:00:00Z",
        "2026-03-01T24:00:00Z",
        "2026-03-01T10:60:00Z",
        // Offsets out of range once threw a RangeError from toISOString.
        "2026-03-01T10:00:00+25:00",
        "2026-03-01T10:00:00-24:00",
        "2026-03-01T10:00:00+01:60",
        "2026-03-01T10:00:00+9999",
      ]
    ) {
      assertRefused(
        () =>
          parseFixtures(
            withChange((d) => (d.calls[0].created_at = created_at)),
          ),
        "calls[0].created_at",
      );
    }
  });

  it("refuses a webhook without an object sample_payload", () => {
    for (const sample_payload of [undefined, null, "{}", [], [{ a: 1 }]]) {
      assertRefused(
        () =>
          parseFixtures(
            withChange((
              d,
            ) => (d.flows[0].trigger = { type: "webhook", sample_payload })),
          ),
        "flows[0].trigger.sample_payload",
      );
    }
  });

  it("names the first offending entry when several are broken", () => {
    assertRefused(
      () =>
        parseFixtures(withChange((d) => {
          d.calls[0].call_id = "bad";
          d.flows[0].name = "";
        })),
      "calls[0].call_id",
    );
  });
});

describe("checkFixtures", () => {
  it("lists references to undeclared projects, in document order", () => {
    const check = checkFixtures({
      projects: [{ project_id: ACME, name: "Acme" }],
      tokens: [
        { token: "a", project_id: ACME, role: "owner" },
        { token: "g", project_id: GLOBEX.toUpperCase(), role: "owner" },
      ],
      calls: [{
        call_id: CALL,
        project_id: GLOBEX,
        created_at: "2026-03-01T10:00:00Z",
        messages: [],
      }],
    });
    assert.ok(check.ok);
    assert.deepEqual(check.references, [
      { path: "tokens[1]", projectId: GLOBEX },
      { path: "calls[0]", projectId: GLOBEX },
    ]);
    assert.equal(resolveFixtures(check, (id) => id === GLOBEX), check.fixtures);
    assertRefused(
      () => resolveFixtures(check, () => false),
      "tokens[1].project_id",
    );
  });

  it("keeps the references met before a format problem", () => {
    const check = checkFixtures({
      tokens: [{ token: "g", project_id: GLOBEX, role: "owner" }],
      calls: [{ call_id: CALL, project_id: GLOBEX, created_at: "x" }],
    });
    assert.equal(check.ok, false);
    assert.deepEqual(check.references, [
      { path: "tokens[0]", projectId: GLOBEX },
      { path: "calls[0]", projectId: GLOBEX },
    ]);
    assertRefused(
      () => resolveFixtures(check, () => false),
      "tokens[0].project_id",
    );
    assertRefused(
      () => resolveFixtures(check, () => true),
      "calls[0].created_at",
    );
  });

  it("does not check again what it returned, nor what parseFixtures did", () => {
    const parsed = parseFixtures(
      { tokens: [{ token: "g", project_id: GLOBEX, role: "owner" }] },
      { knownProjectIds: [GLOBEX] },
    );
    const check = checkFixtures(parsed);
    assert.ok(check.ok);
    assert.equal(check.fixtures, parsed);
    assert.deepEqual(check.references, [{
      path: "tokens[0]",
      projectId: GLOBEX,
    }]);
    assert.equal(parseFixtures(parsed, { knownProjectIds: [GLOBEX] }), parsed);
    // A copy is a new document, checked anew.
    const copy: Doc = structuredClone(parsed);
    copy.tokens[0].role = "root";
    assertRefused(
      () => parseFixtures(copy, { knownProjectIds: [GLOBEX] }),
      "tokens[0].role",
    );
  });
});

describe("readFixturesFile", () => {
  let directory: string | undefined;
  const file = async (name: string, text: string) => {
    directory ??= await mkdtemp(join(tmpdir(), "fixtures-test-"));
    const path = join(directory, name);
    await writeFile(path, text);
    return path;
  };
  after(async () => {
    if (directory !== undefined) {
      await rm(directory, { recursive: true, force: true });
    }
  });

  it("reads a file and returns the canonical fixtures", async () => {
    const input = withChange((d) => {
      d.projects[0].project_id = ACME.toUpperCase();
      d.calls[0].created_at = "2026-03-01T11:00:00+01:00";
      delete d.flows;
    });
    const path = await file("good.json", JSON.stringify(input));
    const fixtures = await readFixturesFile(path);
    assert.equal(fixtures.projects[0]!.project_id, ACME);
    assert.equal(fixtures.calls[0]!.created_at, "2026-03-01T10:00:00.000Z");
    assert.deepEqual(fixtures.flows, []);
    assert.deepEqual(fixtures.tokens, validInput().tokens);
  });

  it("refuses a file that breaks the format with the offending path", async () => {
    const path = await file(
      "dangling.json",
      JSON.stringify(withChange((d) => (d.calls[0].project_id = GLOBEX))),
    );
    await assert.rejects(readFixturesFile(path), (error: unknown) => {
      assert.ok(error instanceof FixturesError);
      assert.equal(error.path, "calls[0].project_id");
      return true;
    });
  });

  it("refuses a file that is not JSON, naming the file", async () => {
    const path = await file("broken.json", '{"projects": [');
    await assert.rejects(readFixturesFile(path), (error: unknown) => {
      assert.ok(error instanceof FixturesError);
      assert.equal(error.path, path);
      assert.match(error.message, /not valid JSON/);
      assert.ok(error.message.includes(path));
      return true;
    });
  });

  it("refuses a file that does not exist, naming the file", async () => {
    const path = join(tmpdir(), `no-such-fixtures-${crypto.randomUUID()}.json`);
    await assert.rejects(readFixturesFile(path), (error: unknown) => {
      assert.ok(error instanceof FixturesError);
      assert.equal(error.path, path);
      assert.match(error.message, /cannot read file/);
      assert.ok(error.message.includes(path));
      return true;
    });
  });
});

describe("describeTokens", () => {
  it("lists one aligned line per token: token, role, project name", () => {
    const fixtures = parseFixtures({
      projects: [
        { project_id: ACME, name: "Acme" },
        { project_id: GLOBEX, name: "Globex Corp" },
      ],
      tokens: [
        { token: "short", project_id: ACME, role: "owner" },
        { token: "a-much-longer-token", project_id: GLOBEX, role: "billing" },
        { token: "mid-token", project_id: ACME, role: "viewer" },
      ],
    });
    assert.equal(
      describeTokens(fixtures),
      [
        "  short                owner    Acme",
        "  a-much-longer-token  billing  Globex Corp",
        "  mid-token            viewer   Acme",
      ].join("\n"),
    );
  });

  it("lists nothing when there are no tokens", () => {
    assert.equal(describeTokens(parseFixtures({})), "");
  });
});

describe("MemoryStore.seed", () => {
  /** What the store answers for everything the tests seed. */
  async function snapshot(store: MemoryStore) {
    return {
      owner: await store.findGrant(await hashToken("t-owner")),
      globexToken: await store.findGrant(await hashToken("t-globex")),
      newToken: await store.findGrant(await hashToken("t-new")),
      call: await store.callMessages(ACME, CALL),
      call2: await store.callMessages(ACME, CALL_2),
      tools: store.integrationTools(HTTP),
      cache: store.integrationTools(MCP),
      flow: await store.findFlow(ACME, FLOW),
    };
  }

  it("changes nothing when the document is refused", async () => {
    const store = new MemoryStore();
    await store.seed(validInput() as Partial<Fixtures>);
    const before = await snapshot(store);
    assert.deepEqual(before.owner, { projectId: ACME, role: "owner" });
    assert.deepEqual(before.tools.tools, [{
      tool_id: TOOL,
      name: "get_order",
    }]);

    // Valid new records and replacements first, one bad entry last.
    const bad = {
      projects: [{ project_id: GLOBEX, name: "Globex" }],
      tokens: [
        { token: "t-new", project_id: ACME, role: "admin" },
        { token: "t-globex", project_id: GLOBEX, role: "owner" },
      ],
      calls: [{
        call_id: CALL_2,
        project_id: ACME,
        created_at: "2026-03-02T10:00:00Z",
        messages: [{ text: "new" }],
      }],
      integrations: [{
        integration_id: HTTP,
        project_id: ACME,
        kind: "http",
        name: "Orders v2",
        tools: [{ tool_id: TOOL_2, name: "replaced" }],
      }, {
        integration_id: MCP,
        project_id: ACME,
        kind: "mcp",
        name: "KB v2",
        cached_tools: [],
      }],
      flows: [{
        flow_id: FLOW,
        project_id: ACME,
        name: "Renamed",
        trigger: { type: "schedule", cron: "0 9 * *", timezone: "UTC" },
      }],
    };
    await assert.rejects(store.seed(bad as Partial<Fixtures>), FixturesError);
    const afterRefusal = await snapshot(store);
    assert.deepEqual(afterRefusal, before);
    assert.equal(afterRefusal.newToken, undefined);
    assert.equal(afterRefusal.globexToken, undefined);
    assert.equal(afterRefusal.call2, undefined);

    // The same document, once fixed, does load: the refusal was about the cron.
    bad.flows[0]!.trigger.cron = "0 9 * * *";
    await store.seed(bad as Partial<Fixtures>);
    const fixed = await snapshot(store);
    assert.deepEqual(fixed.newToken, { projectId: ACME, role: "admin" });
    assert.deepEqual(fixed.globexToken, { projectId: GLOBEX, role: "owner" });
    assert.deepEqual(fixed.call2, ['{"text":"new"}']);
    assert.deepEqual(fixed.tools.tools, [{
      tool_id: TOOL_2,
      name: "replaced",
    }]);
    assert.deepEqual(fixed.cache.cachedTools, []);
    assert.equal(fixed.flow?.name, "Renamed");
  });

  it("lets a later document refer to a project seeded before", async () => {
    const store = new MemoryStore();
    await store.seed({ projects: [{ project_id: GLOBEX, name: "Globex" }] });
    await store.seed({
      tokens: [{ token: "t-globex", project_id: GLOBEX, role: "viewer" }],
    });
    assert.deepEqual(await store.findGrant(await hashToken("t-globex")), {
      projectId: GLOBEX,
      role: "viewer",
    });
  });
});
