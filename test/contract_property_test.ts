/**
 * Schemathesis's checks, built from fast-check and Ajv: requests generated
 * from the served OpenAPI document's own operations and schemas, valid and
 * invalid (path ids that are good, unknown, another project's or not UUIDs;
 * export bodies that fit `BulkTranscriptRequest` or break it; small bodies of
 * any JSON shape on the routes that take none; every demo role's token, an
 * unknown, a malformed and a missing one; other headers; methods the path
 * does not answer), and on every answer:
 *
 * - no 5xx;
 * - the status is declared for that operation;
 * - the content type is the declared one and the body fits its schema;
 * - the declared headers are there and fit their schemas;
 * - a request the document calls valid is accepted: 2xx, or 401/403/404/409
 *   from the data's state (an unknown token, a role, an id not in the
 *   project, an `EMPTY` trigger) — and exactly the 2xx when nothing in the
 *   data forbids it;
 * - a request the document calls invalid is refused with a declared 4xx;
 * - a method the path does not answer is 405 with `Allow` naming the path's
 *   methods;
 * - a small body on a route that takes none changes nothing: the answer is
 *   the one without it (docs/behaviour.md).
 *
 * Then the document's `links` are followed from real answers. Against the
 * handler and the mock in-process, and over HTTP against `npm start`'s
 * server and the standalone mock (`callflow-api mock`), all on demo data.
 * Seeded and bounded: `CONTRACT_SEED`, `CONTRACT_RUNS` (in-process; a third
 * of it over HTTP) explore further.
 *
 * @module
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import { createHandler } from "../src/handler.ts";
import { MemoryStore } from "../src/store/memory_store.ts";
import { demoFixtures } from "../src/store/demo_fixtures.ts";
import { DEFAULT_AUTH_FAILURE_LIMIT } from "../src/auth/failed_auth.ts";
import { SMALL_BODY_BYTES } from "../src/http/request_body.ts";
import { createMockServer } from "../mock/mod.ts";
import { schemaProblems } from "./support/openapi_check.ts";
import { startServerMain } from "./support/server_main.ts";
import { type RunningCli, startMockCli } from "./support/mock_cli.ts";
import type { StartedServer } from "./support/server_main.ts";

const env = (globalThis as { process?: { env: Record<string, string> } })
  .process?.env ?? {};
const SEED = Number(env.CONTRACT_SEED ?? 20261126);
const RUNS = Number(env.CONTRACT_RUNS ?? 1000);
const HTTP_RUNS = Math.ceil(RUNS / 3);

type Json = Record<string, unknown>;

/** Anything that answers a Request: a handler, or a server over HTTP. */
type Send = (request: Request) => Promise<Response>;

// --- The document, as served ---------------------------------------------

interface Operation {
  path: string;
  method: string;
  operationId: string;
  responses: Record<string, Json>;
  requestBody?: { content: Record<string, { schema: Json }> };
  parameters?: { name: string; in: string; schema: Json }[];
  security?: unknown[];
}

interface Document {
  paths: Record<string, Record<string, Json>>;
  components: { headers: Record<string, Json>; schemas: Json };
}

function operationsOf(document: Document): Operation[] {
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({
      ...(operation as unknown as Operation),
      path,
      method: method.toUpperCase(),
    }))
  );
}

/** A `$ref` into the document, resolved. */
function resolve(document: Document, value: Json): Json {
  const ref = value.$ref as string | undefined;
  if (ref === undefined) return value;
  const parts = ref.replace(/^#\//, "").split("/");
  let node: unknown = document;
  for (const part of parts) node = (node as Json)[part];
  return node as Json;
}

// --- The demo data's state, which decides 401/403/404/409 -------------------

const ACME = demoFixtures.projects[0]!.project_id;
const roleOf = new Map(
  demoFixtures.tokens.map((token) => [token.token, token]),
);
/** The spec's permissions, by operation (src/auth/authenticate.ts). */
const PERMITTED: Record<string, readonly string[]> = {
  listCallMessages: ["owner", "admin", "member", "viewer"],
  bulkDownloadTranscripts: ["owner", "admin", "member", "viewer"],
  testTrigger: ["owner", "admin", "member"],
  deleteIntegration: ["owner", "admin"],
};
const ids = {
  call: demoFixtures.calls.map((call) => call.call_id),
  integration: demoFixtures.integrations.map((i) => i.integration_id),
  flow: demoFixtures.flows.map((flow) => flow.flow_id),
};
const projectOf = new Map<string, string>([
  ...demoFixtures.calls.map((c) => [c.call_id, c.project_id] as const),
  ...demoFixtures.integrations.map((i) =>
    [i.integration_id, i.project_id] as const
  ),
  ...demoFixtures.flows.map((f) => [f.flow_id, f.project_id] as const),
]);
const emptyFlows = new Set(
  demoFixtures.flows.filter((f) => f.trigger.type === "EMPTY").map((f) =>
    f.flow_id
  ),
);
const withMessages = new Set(
  demoFixtures.calls.filter((c) => (c.messages ?? []).length > 0).map((c) =>
    c.call_id
  ),
);
const PARAM_KIND: Record<string, keyof typeof ids> = {
  call_id: "call",
  integration_id: "integration",
  flow_id: "flow",
};

// --- Generated requests -----------------------------------------------------

/** A token: each demo role's, unknown, malformed, or none. */
type Token =
  | { kind: "demo"; token: string }
  | { kind: "unknown"; token: string }
  | { kind: "malformed"; header: string }
  | { kind: "missing" };

const tokenArb: fc.Arbitrary<Token> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constantFrom(...roleOf.keys()).map((token) => ({
      kind: "demo" as const,
      token,
    })),
  },
  {
    weight: 1,
    arbitrary: fc.stringMatching(/^[A-Za-z0-9._~+/-]{1,40}$/)
      .filter((token) => !roleOf.has(token))
      .map((token) => ({ kind: "unknown" as const, token })),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "Bearer",
      "Bearer ",
      "Basic ZGVtbzpkZW1v",
      "Bearer two words",
      "Bearer demo-owner!",
      "demo-owner",
      "Token demo-owner",
    ).map((header) => ({ kind: "malformed" as const, header })),
  },
  { weight: 1, arbitrary: fc.constant({ kind: "missing" as const }) },
);

/** A path id: valid (known, another project's, unknown) or not a UUID. */
type PathId = { value: string; valid: boolean };

function pathIdArb(kind: keyof typeof ids): fc.Arbitrary<PathId> {
  return fc.oneof(
    {
      weight: 5,
      arbitrary: fc.constantFrom(...ids[kind]).map((value) => ({
        value,
        valid: true,
      })),
    },
    {
      weight: 2,
      arbitrary: fc.uuid({ version: 4 }).map((value) => ({
        value,
        valid: true,
      })),
    },
    {
      weight: 2,
      arbitrary: fc.oneof(
        fc.constantFrom(
          "nope",
          "0",
          "1f0e8d7c-6b5a-4493-8281-706f5e4d3c2",
          "{}",
        ),
        fc.stringMatching(/^[0-9a-zA-Z_-]{1,40}$/),
        fc.constantFrom(...ids[kind]).map((id) => `${id}x`),
      ).filter((value) =>
        !/^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i
          .test(value)
      )
        .map((value) => ({ value, valid: false })),
    },
  );
}

/** A body for the bulk export: fits BulkTranscriptRequest or breaks it. */
const bulkBodyArb: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      call_ids: fc.array(
        fc.oneof(fc.constantFrom(...ids.call), fc.uuid({ version: 4 })),
        { minLength: 1, maxLength: 6 },
      ),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.oneof(
      fc.constant({ call_ids: [] }),
      fc.constant({}),
      fc.record({
        call_ids: fc.array(fc.string({ maxLength: 12 }), {
          minLength: 1,
          maxLength: 3,
        }),
      }),
      fc.record({ call_ids: fc.jsonValue({ maxDepth: 2 }) }),
      fc.constant({ call_ids: Array(501).fill(ids.call[0]) }),
      fc.jsonValue({ maxDepth: 2 }),
    ),
  },
);

/** One generated request and what the document says of it. */
interface Case {
  operation: Operation;
  method: string;
  pathIds: Record<string, PathId>;
  token: Token;
  /** A JSON body (undefined: none). */
  body?: unknown;
  /** The body's content type (undefined: none sent). */
  contentType: string | undefined;
  /** Over HTTP, on a route that takes no body: a body past the 64 KiB bound. */
  large: boolean;
  requestId: string | undefined;
}

function caseArb(operations: Operation[]): fc.Arbitrary<Case> {
  return fc.constantFrom(...operations).chain((operation) => {
    const params = (operation.parameters ?? []).filter((p) => p.in === "path");
    const takesBody = operation.requestBody !== undefined;
    const declared = operations.filter((o) => o.path === operation.path)
      .map((o) => o.method);
    const others = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"].filter(
      (m) =>
        !declared.includes(m) && !(m === "HEAD" && declared.includes("GET")),
    );
    return fc.record({
      operation: fc.constant(operation),
      method: fc.oneof(
        { weight: 8, arbitrary: fc.constant(operation.method) },
        { weight: 1, arbitrary: fc.constantFrom(...others) },
      ),
      pathIds: fc.record(
        Object.fromEntries(
          params.map((p) => [p.name, pathIdArb(PARAM_KIND[p.name]!)]),
        ),
      ) as fc.Arbitrary<Record<string, PathId>>,
      token: tokenArb,
      body: takesBody
        ? bulkBodyArb
        : fc.option(fc.jsonValue({ maxDepth: 2 }), { nil: undefined, freq: 2 }),
      // Only a JSON content type makes the export's body JSON (isValid).
      contentType: fc.constantFrom(
        "application/json",
        "application/json; charset=utf-8",
        "application/vnd.api+json",
        undefined,
        "text/plain",
        "application/x-www-form-urlencoded",
      ),
      large: fc.oneof(
        { weight: 1, arbitrary: fc.constant(true) },
        { weight: 15, arbitrary: fc.constant(false) },
      ),
      requestId: fc.option(
        fc.oneof(
          fc.stringMatching(/^[A-Za-z0-9_.:-]{1,20}$/),
          fc.constantFrom("bad id", "é"),
        ),
        { nil: undefined },
      ),
    });
  });
}

function urlOf(base: string, c: Case): string {
  let path = c.operation.path;
  for (const [name, id] of Object.entries(c.pathIds)) {
    path = path.replace(`{${name}}`, encodeURIComponent(id.value));
  }
  return `${base}${path}`;
}

const encoder = new TextEncoder();

/** Whether a case sends a body past the bound to a route that takes none. */
function sendsLarge(target: Target, c: Case): boolean {
  return c.large && target.http && c.operation.requestBody === undefined &&
    !["GET", "HEAD"].includes(c.method);
}

function requestOf(target: Target, c: Case, withBody = true): Request {
  const base = target.base;
  const headers = new Headers();
  if (c.token.kind === "demo" || c.token.kind === "unknown") {
    headers.set("authorization", `Bearer ${c.token.token}`);
  } else if (c.token.kind === "malformed") {
    headers.set("authorization", c.token.header);
  }
  if (c.requestId !== undefined) headers.set("x-request-id", c.requestId);
  const large = withBody && sendsLarge(target, c);
  const hasBody = large ||
    withBody && c.body !== undefined && !["GET", "HEAD"].includes(c.method);
  if (hasBody && c.contentType !== undefined) {
    headers.set("content-type", c.contentType);
  }
  // Bytes, so that no content type is added when the case sends none.
  const text = JSON.stringify(c.body ?? {}) +
    (large ? " ".repeat(SMALL_BODY_BYTES) : "");
  return new Request(urlOf(base, c), {
    method: c.method,
    headers,
    ...(hasBody ? { body: encoder.encode(text) } : {}),
  });
}

// --- The checks -------------------------------------------------------------

/** A target, and how many unknown tokens it has seen (its 429 limit). */
interface Target {
  base: string;
  send: Send;
  unknownTokens: number;
  /** Over HTTP (a body declares its length), or in-process. */
  http: boolean;
  /** How many answers of each status, valid and invalid requests apart. */
  statuses: Map<string, number>;
}

/** Whether the request fits the document (its parameters, body, security). */
function isValid(document: Document, c: Case): boolean {
  if (Object.values(c.pathIds).some((id) => !id.valid)) return false;
  const needsToken = c.operation.security === undefined ||
    c.operation.security.length > 0;
  // A malformed or missing Authorization breaks the security requirement.
  if (
    needsToken && (c.token.kind === "malformed" || c.token.kind === "missing")
  ) {
    return false;
  }
  const media = c.operation.requestBody?.content["application/json"];
  if (media !== undefined) {
    // The document declares application/json, and FastAPI (0.142, tried)
    // reads a body as JSON only under a JSON content type (`+json` too):
    // with none, or another, it is bytes, 422 `model_attributes_type`.
    const json = c.contentType !== undefined &&
      /^application\/([^;]*\+)?json\b/.test(c.contentType);
    if (!json) return false;
    return schemaProblems(c.body, resolve(document, media.schema)).length === 0;
  }
  return true;
}

/** The status a valid request must get from the demo data's state. */
function expectedFromState(c: Case): number[] {
  const id = Object.values(c.pathIds)[0]?.value;
  const op = c.operation.operationId;
  if (!(op in PERMITTED)) return [200];
  if (c.token.kind === "unknown") return [401];
  if (c.token.kind !== "demo") return [401];
  const token = roleOf.get(c.token.token)!;
  if (!PERMITTED[op]!.includes(token.role)) return [403];
  switch (op) {
    case "listCallMessages":
      return projectOf.get(id!) === token.project_id ? [200] : [404];
    case "testTrigger":
      if (projectOf.get(id!) !== token.project_id) return [404];
      return emptyFlows.has(id!) ? [409] : [200];
    case "deleteIntegration":
      // Deleted by an earlier case: 404 from the state.
      return projectOf.get(id!) === token.project_id ? [204, 404] : [404];
    case "bulkDownloadTranscripts": {
      const callIds = (c.body as { call_ids: string[] }).call_ids;
      const found = callIds.some((callId) =>
        withMessages.has(callId) && projectOf.get(callId) === token.project_id
      );
      return found ? [200] : [404];
    }
  }
  return [200];
}

async function checkAnswer(
  document: Document,
  target: Target,
  c: Case,
  response: Response,
): Promise<{ status: number; text: string }> {
  const label =
    `${c.method} ${new URL(response.url || urlOf(target.base, c)).pathname} ` +
    `token=${
      JSON.stringify(c.token)
    } type=${c.contentType} large=${c.large} body=${
      JSON.stringify(c.body)?.slice(0, 200)
    }`;
  const status = response.status;
  const text = await response.text();
  const methods = Object.keys(document.paths[c.operation.path]!);
  const kind = !methods.includes(c.method.toLowerCase()) &&
      !(c.method === "HEAD" && methods.includes("get"))
    ? "other method"
    : sendsLarge(target, c)
    ? "large body"
    : isValid(document, c)
    ? "valid"
    : "invalid";
  target.statuses.set(
    `${kind} ${status}`,
    (target.statuses.get(`${kind} ${status}`) ?? 0) + 1,
  );
  const where = `${label} -> ${status} ${text.slice(0, 300)}`;
  assert.ok(status < 500, `5xx: ${where}`);

  const declaredMethods = Object.keys(document.paths[c.operation.path]!)
    .map((m) => m.toUpperCase());
  const isHead = c.method === "HEAD" && declaredMethods.includes("GET");
  const answered = declaredMethods.includes(c.method) || isHead;
  if (!answered) {
    assert.equal(status, 405, `undeclared method: ${where}`);
    const allow = (response.headers.get("allow") ?? "").split(/,\s*/).sort();
    const expected = [
      ...declaredMethods,
      ...(declaredMethods.includes("GET") ? ["HEAD"] : []),
    ].sort();
    assert.deepEqual(allow, expected, `Allow on 405: ${where}`);
  }
  // A 405 is described by the operation of the path it was sent to.
  const operation = c.operation;
  const declared = operation.responses[String(status)];
  assert.ok(declared, `status not declared: ${where}`);
  const response_ = resolve(document, declared);

  // Headers: every declared one present and fitting its schema.
  for (
    const [name, ref] of Object.entries(
      (response_.headers ?? {}) as Record<string, Json>,
    )
  ) {
    const header = resolve(document, ref);
    const value = response.headers.get(name);
    if (header.required === true) {
      assert.notEqual(value, null, `header ${name} missing: ${where}`);
    }
    if (value !== null) {
      const schema = header.schema as Json;
      const typed = schema.type === "integer" ? Number(value) : value;
      assert.deepEqual(
        schemaProblems(typed, schema),
        [],
        `header ${name}=${value}: ${where}`,
      );
    }
  }
  // Content type and body.
  const content = response_.content as
    | Record<string, { schema: Json }>
    | undefined;
  if (content === undefined || c.method === "HEAD") {
    if (content === undefined) {
      assert.equal(text, "", `no body declared: ${where}`);
    }
  } else {
    const type = response.headers.get("content-type") ?? "";
    const media = content[type];
    assert.ok(media, `content type ${type} not declared: ${where}`);
    if (type === "application/json") {
      assert.deepEqual(
        schemaProblems(JSON.parse(text), media.schema),
        [],
        `body does not fit the schema: ${where}`,
      );
    }
  }

  const needsToken = operation.operationId in PERMITTED;
  const limited = needsToken &&
    target.unknownTokens > DEFAULT_AUTH_FAILURE_LIMIT;
  if (limited && status === 429) return { status, text };
  if (answered && sendsLarge(target, c)) {
    // Past the bound, a body on a route that takes none is refused before
    // anything else is judged, and the connection closed (behaviour.md).
    assert.equal(status, 413, where);
    assert.equal(JSON.parse(text).error_code, "PAYLOAD_TOO_LARGE", where);
    // Connection is a list (RFC 9110, 7.6.1): Deno's server adds its own
    // `close` to the handler's, which Headers joins as "close, close".
    const connection = (response.headers.get("connection") ?? "")
      .toLowerCase().split(/\s*,\s*/);
    assert.ok(connection.includes("close"), where);
  } else if (answered) {
    if (isValid(document, c)) {
      // Valid data is accepted: 2xx, or what the data's state decides.
      assert.ok(
        expectedFromState(c).includes(status),
        `valid request: expected ${expectedFromState(c)}: ${where}`,
      );
    } else {
      // Invalid data is refused with a declared 4xx. Which one follows
      // FastAPI's order (authentication, then validation): a missing or
      // malformed token is 401 whatever else is wrong.
      assert.ok(
        status >= 400 && status < 500,
        `invalid request accepted: ${where}`,
      );
      if (
        needsToken &&
        (c.token.kind === "malformed" || c.token.kind === "missing")
      ) {
        assert.equal(status, 401, where);
      }
    }
  }
  return { status, text };
}

/** Runs one case on a target: with its body and, on a bodiless route, without. */
async function runCase(
  document: Document,
  target: Target,
  c: Case,
): Promise<void> {
  if (c.token.kind === "unknown" && c.operation.operationId in PERMITTED) {
    target.unknownTokens++;
  }
  const first = await checkAnswer(
    document,
    target,
    c,
    await target.send(requestOf(target, c)),
  );
  const bodiless = c.operation.requestBody === undefined &&
    c.body !== undefined && !["GET", "HEAD"].includes(c.method) &&
    c.method === c.operation.method;
  if (
    !bodiless || sendsLarge(target, c) || first.status === 204 ||
    first.status === 429
  ) return;
  // A small body on a route that takes none is read and ignored.
  if (c.token.kind === "unknown") target.unknownTokens++;
  const without = await target.send(requestOf(target, c, false));
  const second = { status: without.status, text: await without.text() };
  assert.deepEqual(
    second,
    first,
    `${c.method} ${c.operation.path}: a ${
      JSON.stringify(c.body).length
    }-byte body changed the answer`,
  );
}

/** Follows the document's links from real answers. */
async function followLinks(
  document: Document,
  target: Target,
): Promise<number> {
  const auth = { authorization: "Bearer demo-owner" };
  let followed = 0;
  for (const operation of operationsOf(document)) {
    for (const [status, response] of Object.entries(operation.responses)) {
      const links = (response.links ?? {}) as Record<
        string,
        { operationId: string; parameters: Record<string, string> }
      >;
      for (const link of Object.values(links)) {
        // A request that gets this status, with the data the link reads.
        let request: Request;
        if (operation.operationId === "bulkDownloadTranscripts") {
          request = new Request(`${target.base}${operation.path}`, {
            method: "POST",
            headers: { ...auth, "content-type": "application/json" },
            body: JSON.stringify({ call_ids: [ids.call[0], ids.call[1]] }),
          });
        } else if (operation.operationId === "testTrigger") {
          const flow = demoFixtures.flows.find((f) =>
            f.trigger.type === "call_ended" && f.project_id === ACME
          )!;
          request = new Request(
            `${target.base}${
              operation.path.replace("{flow_id}", flow.flow_id)
            }`,
            { method: "POST", headers: auth },
          );
        } else {
          assert.fail(`no request to follow ${operation.operationId}'s links`);
        }
        const requestBody = await request.clone().text();
        const answer = await target.send(request);
        assert.equal(String(answer.status), status);
        const body = answer.headers.get("content-type") === "application/json"
          ? await answer.json()
          : await answer.arrayBuffer();
        const values: Record<string, unknown> = {};
        for (const [name, expression] of Object.entries(link.parameters)) {
          const [source, pointer] = expression.split("#");
          const root = source === "$request.body"
            ? JSON.parse(requestBody)
            : body;
          values[name] = pointer!.split("/").slice(1).reduce(
            (node: unknown, key) => (node as Json)?.[key],
            root,
          );
          assert.equal(typeof values[name], "string", `${expression} resolves`);
        }
        const next = operationsOf(document).find((o) =>
          o.operationId === link.operationId
        )!;
        let path = next.path;
        for (const [name, value] of Object.entries(values)) {
          path = path.replace(`{${name}}`, String(value));
        }
        const linked = await target.send(
          new Request(`${target.base}${path}`, {
            method: next.method,
            headers: auth,
          }),
        );
        assert.equal(linked.status, 200, `${link.operationId} at ${path}`);
        assert.deepEqual(
          schemaProblems(
            await linked.json(),
            (next.responses["200"]!.content as Record<
              string,
              { schema: Json }
            >)["application/json"]!.schema,
          ),
          [],
        );
        followed++;
      }
    }
  }
  return followed;
}

/** The property run and the links on one target. */
function contractSuite(
  name: string,
  runs: number,
  start: () => Promise<{ target: Target; stop: () => Promise<void> }>,
) {
  describe(`the served contract holds: ${name}`, () => {
    let target: Target;
    let stop = async () => {};
    let document: Document;
    before(async () => {
      ({ target, stop } = await start());
      document =
        await (await target.send(new Request(`${target.base}/openapi.json`)))
          .json();
    });
    after(() => stop());

    it(`${runs} generated requests (seed ${SEED}) meet Schemathesis's checks`, async () => {
      const operations = operationsOf(document);
      await fc.assert(
        fc.asyncProperty(
          caseArb(operations),
          (c) => runCase(document, target, c),
        ),
        { seed: SEED, numRuns: runs, endOnFailure: true },
      );
      const seen = [...target.statuses].sort().map(([k, n]) => `${k}: ${n}`);
      console.log(`${name}: ${seen.join(", ")}`);
      // Both kinds were tried, and valid ones got through.
      assert.ok(target.statuses.has("valid 200"), seen.join(", "));
      assert.ok(target.statuses.has("invalid 422"), seen.join(", "));
    });

    it("the document's links lead from real answers to the operations they name", async () => {
      assert.equal(await followLinks(document, target), 2);
    });
  });
}

const sendOver = (base: string): Target => ({
  base,
  unknownTokens: 0,
  http: true,
  statuses: new Map(),
  send: (request) => fetch(request),
});

contractSuite("the handler in-process", RUNS, async () => {
  const store = new MemoryStore();
  await store.seed(demoFixtures);
  const handler = createHandler({ store, logError: () => {} });
  return {
    target: {
      base: "http://127.0.0.1:8787",
      unknownTokens: 0,
      http: false,
      statuses: new Map(),
      send: (r) => handler(r),
    },
    stop: async () => {},
  };
});

contractSuite("the mock in-process", RUNS, () => {
  const mock = createMockServer({ fixtures: demoFixtures });
  return Promise.resolve({
    target: {
      base: "http://localhost:4010",
      unknownTokens: 0,
      http: false,
      statuses: new Map(),
      send: (r) => Promise.resolve(mock.fetch(r)),
    },
    stop: async () => {},
  });
});

contractSuite("npm start's server over HTTP", HTTP_RUNS, async () => {
  // Unknown tokens are generated on purpose: the limit on failed
  // authentications (20 a minute from one address, tested in
  // failed_auth_test.ts) would answer the rest of the run 429.
  const started: StartedServer = startServerMain({
    AUTH_FAILURE_LIMIT: "9999",
  });
  return {
    target: sendOver(await started.url),
    stop: () => started.server.stop(),
  };
});

contractSuite("the standalone mock over HTTP", HTTP_RUNS, async () => {
  const mock: RunningCli = await startMockCli(["mock", "--port", "0"]);
  return { target: sendOver(mock.url), stop: () => mock.stop() };
});
