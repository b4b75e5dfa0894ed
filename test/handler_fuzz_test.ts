/**
 * A property-based fuzz test of the handler over the memory store, with
 * fast-check: random methods, paths (percent-escapes, byte order marks,
 * surrogates), headers (repeated content types, odd Authorization values and
 * content lengths) and bodies (deep nesting, huge numbers, lone surrogates,
 * bytes that are not UTF-8, digit runs), with valid and invalid tokens.
 *
 * Whatever the request: never a 5xx; every error body is ErrorResponseSchema
 * or HTTPValidationError; no stack, SQL, file path or token appears in a body
 * or header unless the request itself carried it; nothing is logged as an
 * unexpected error. Seeded, and the same 500 runs on each runtime however
 * fast the machine (a time bound made a loaded machine's run too short to
 * count); `FUZZ_SEED`, `FUZZ_RUNS` and `FUZZ_TIME_LIMIT` (ms) explore further,
 * e.g.
 * `FUZZ_SEED=7 FUZZ_RUNS=20000 FUZZ_TIME_LIMIT=60000 node --test
 * test/handler_fuzz_test.ts`.
 *
 * @module
 */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import fc from "fast-check";
import { parseFixtures } from "../src/store/fixtures.ts";
import { createHandler, type Handler } from "../src/handler.ts";
import { MemoryStore } from "../src/store/memory_store.ts";
import { runtimeName } from "../server/runtimes/mod.ts";
import {
  apiFixtures,
  CALLS,
  FLOWS,
  INTEGRATIONS,
  TOKENS,
} from "./support/api_fixtures.ts";

const env = (globalThis as { process?: { env: Record<string, string> } })
  .process?.env ?? {};
const SEED = Number(env.FUZZ_SEED ?? 20261122);
const RUNS = Number(env.FUZZ_RUNS ?? 500);
/** A time budget in ms, only when asked for: it ends the runs early. */
const TIME_LIMIT = env.FUZZ_TIME_LIMIT === undefined
  ? undefined
  : Number(env.FUZZ_TIME_LIMIT);

const encoder = new TextEncoder();

// --- Paths -----------------------------------------------------------------

const knownIds = [
  ...Object.values(CALLS),
  ...Object.values(INTEGRATIONS),
  ...Object.values(FLOWS),
];

const hex = (byte: number) =>
  `%${byte.toString(16).padStart(2, "0").toUpperCase()}`;

/** A path segment: ids, ids with a prefix or suffix, escapes, odd text. */
const segment: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...knownIds),
  fc.uuid(),
  fc.constantFrom(...knownIds).chain((id) =>
    fc.constantFrom(
      `%EF%BB%BF${id}`,
      `${id}%EF%BB%BF`,
      `%ED%A0%80${id}`,
      `{${id}}`,
      `urn:uuid:${id}`,
      id.toUpperCase(),
      id.replaceAll("-", ""),
      `${id}%00`,
      `${id}%`,
      `${id}%zz`,
      `${id}%ED%B0%80`,
    )
  ),
  fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 24 }).map((bytes) =>
    bytes.map(hex).join("")
  ),
  fc.string({ unit: "grapheme", maxLength: 20 }).map(encodeURIComponent),
  fc.string({ unit: "binary", maxLength: 20 }).map((text) =>
    // Lone surrogates cannot be percent-encoded by encodeURIComponent.
    text.replace(/[\ud800-\udfff]/g, "%ED%A0%80")
      .replace(/[#?\/\\]/g, "%2F")
  ),
  fc.constantFrom("", "%", "%2", "..", ".", "%2e%2e", "message", "bulk"),
);

const METHODS = ["GET", "POST", "DELETE", "PUT", "PATCH", "HEAD", "OPTIONS"];

const anyMethod = fc.oneof(
  fc.constantFrom(...METHODS),
  fc.stringMatching(/^[A-Za-z]{1,10}$/).filter((method) =>
    !["CONNECT", "TRACE", "TRACK"].includes(method.toUpperCase())
  ),
);

/** Mostly an API route with its own method, so requests reach the operations. */
const target: fc.Arbitrary<{ method: string; path: string }> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constant({ method: "POST", path: "/v1/call/message/bulk" }),
  },
  {
    weight: 2,
    arbitrary: segment.map((id) => ({
      method: "GET",
      path: `/v1/call/${id}/message`,
    })),
  },
  {
    weight: 2,
    arbitrary: segment.map((id) => ({
      method: "DELETE",
      path: `/v1/integration/${id}`,
    })),
  },
  {
    weight: 2,
    arbitrary: segment.map((id) => ({
      method: "POST",
      path: `/v1/workflow/${id}/trigger/test`,
    })),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      method: anyMethod,
      path: fc.oneof(
        fc.constantFrom(
          "/v1/call/message/bulk",
          "/openapi.json",
          `/v1/integration/${INTEGRATIONS.mcp}`,
        ),
        fc.array(segment, { maxLength: 5 }).map((parts) =>
          `/${parts.join("/")}`
        ),
      ),
    }),
  },
);

// --- Headers ---------------------------------------------------------------

/** Characters a header value may hold (no CR, LF or NUL; Latin-1 only). */
const headerText = fc.string({
  unit: fc.oneof(
    fc.integer({ min: 0x20, max: 0x7e }),
    fc.constant(0x09),
    fc.integer({ min: 0x80, max: 0xff }),
  ).map((code) => String.fromCharCode(code)),
  maxLength: 60,
}).map((text) => text.trim());

const authorization: fc.Arbitrary<string | undefined> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.constantFrom(...Object.values(TOKENS)).map((token) =>
      `Bearer ${token}`
    ),
  },
  fc.constantFrom(...Object.values(TOKENS)).map((token) =>
    `bEaReR   ${token}  `
  ),
  fc.constant(undefined),
  headerText,
  headerText.map((text) => `Bearer ${text}`),
  fc.constantFrom("Bearer", "Bearer ", "Basic dXNlcjpwYXNz", "Bearer a b"),
);

const contentType: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 6, arbitrary: fc.constant("application/json") },
  fc.constantFrom(
    "application/json",
    "application/json, application/json",
    "application/json, text/plain",
    "text/plain, application/json",
    "application/merge-patch+json; charset=utf-16",
    'application/json; charset="a,b"',
    "text/plain",
    "multipart/form-data; boundary=x",
    "application/",
    "/json",
    ";",
  ),
  fc.constant(undefined),
  headerText,
);

const contentLength: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 6, arbitrary: fc.constant(undefined) },
  fc.constantFrom(
    "0",
    "-1",
    "abc",
    "1e9",
    "99999999999999999999",
    "2000000",
    "1048577",
    " 5 ",
    "0x10",
  ),
);

// --- Bodies ----------------------------------------------------------------

const text = (value: string) => encoder.encode(value);

const nested = fc.integer({ min: 900, max: 12_000 }).chain((depth) =>
  fc.constantFrom(
    "[".repeat(depth) + "]".repeat(depth),
    '{"call_ids": ' + "[".repeat(depth) + "]".repeat(depth) + "}",
    '{"call_ids": [' + '{"a":'.repeat(depth) + "1" + "}".repeat(depth) + "]}",
    "[".repeat(depth),
  )
);

const hugeNumber = fc.constantFrom(
  "1e400",
  "-1e400",
  "1.5E+999",
  "1" + "0".repeat(4300),
  "1" + "0".repeat(4301),
  "-" + "9".repeat(5000),
  "0." + "1".repeat(5000),
  "1e-400",
  "NaN",
  "Infinity",
);

const body: fc.Arbitrary<Uint8Array | undefined> = fc.oneof(
  fc.constant(undefined),
  fc.constant(new Uint8Array()),
  fc.array(fc.constantFrom(...knownIds), { maxLength: 4 }).map((ids) =>
    text(JSON.stringify({ call_ids: ids }))
  ),
  nested.map(text),
  hugeNumber.map((number) => text(`{"call_ids": [${number}]}`)),
  hugeNumber.map((number) => text(`{"call_ids": ${number}}`)),
  fc.constantFrom(
    '{"call_ids": ["\\ud800"]}',
    '{"call_ids": "\\udfff"}',
    '{"call_ids": ["\\ud83d\\ude00"]}',
    '{"call_ids": ["\\u12"]}',
    "null",
    '{"call_ids": null}',
  ).map(text),
  // A lone surrogate encoded in UTF-8 (surrogatepass lets it through).
  fc.constant(
    new Uint8Array([
      ...text('{"call_ids": ["'),
      0xed,
      0xa0,
      0x80,
      0x22,
      0x5d,
      0x7d,
    ]),
  ),
  fc.uint8Array({ maxLength: 64 }),
  fc.integer({ min: 4000, max: 20_000 }).map((run) =>
    text(`{"call_ids": ["${"7".repeat(run)}"], "n": ${"8".repeat(run % 4400)}}`)
  ),
  fc.json({ maxDepth: 4 }).map(text),
  fc.json({ maxDepth: 3 }).map((json) => text(`{"call_ids": [${json}]}`)),
  fc.string({ unit: "binary", maxLength: 40 }).map((value) =>
    // UTF-16 LE with a byte order mark, lone surrogates included.
    new Uint8Array([
      0xff,
      0xfe,
      ...[...`{"call_ids": ["${value}"]}`].flatMap((character) => {
        const codes: number[] = [];
        for (let i = 0; i < character.length; i += 1) {
          const code = character.charCodeAt(i);
          codes.push(code & 0xff, code >> 8);
        }
        return codes;
      }),
    ])
  ),
);

const request = fc.record({
  target,
  authorization,
  contentType,
  contentLength,
  requestId: fc.option(headerText, { nil: undefined }),
  body,
}).map(({ target, ...rest }) => ({ ...target, ...rest }));

type FuzzRequest = typeof request extends fc.Arbitrary<infer T> ? T : never;

function toRequest(input: FuzzRequest): Request {
  const headers = new Headers();
  if (input.authorization !== undefined) {
    headers.set("authorization", input.authorization);
  }
  if (input.contentType !== undefined) {
    headers.set("content-type", input.contentType);
  }
  if (input.contentLength !== undefined) {
    headers.set("content-length", input.contentLength);
  }
  if (input.requestId !== undefined) {
    headers.set("x-request-id", input.requestId);
  }
  const withBody = !["GET", "HEAD"].includes(input.method.toUpperCase());
  return new Request(`http://127.0.0.1${input.path}`, {
    method: input.method,
    headers,
    ...(withBody && input.body !== undefined
      ? { body: input.body as Uint8Array<ArrayBuffer> }
      : {}),
  });
}

// --- What every answer must satisfy ------------------------------------------

/** Text that must never leak, unless the request itself carried it. */
const LEAKS: [string, RegExp][] = [
  ["a stack frame", /\n\s+at |\bat [\w.<>]+ \(|@file:|node:internal/],
  ["SQL", /\b(SELECT|INSERT INTO|DELETE FROM|UPDATE \w+ SET)\b/i],
  ["a file path", /file:\/\/|\/work\/|\/home\/|\/tmp\/|\.ts:\d+|src\/\w+\.ts/],
  ["an error name", /\b(TypeError|RangeError|SyntaxError|ReferenceError)\b/],
];

const TOKEN = new RegExp(Object.values(TOKENS).join("|"));

function assertErrorShape(status: number, value: unknown): void {
  assert.ok(typeof value === "object" && value !== null, "a JSON object");
  const record = value as Record<string, unknown>;
  if ("detail" in record) {
    assert.equal(status, 422, "HTTPValidationError comes with 422");
    assert.deepEqual(Object.keys(record), ["detail"]);
    assert.ok(Array.isArray(record.detail) && record.detail.length > 0);
    for (const issue of record.detail as Record<string, unknown>[]) {
      assert.equal(typeof issue.type, "string");
      assert.equal(typeof issue.msg, "string");
      assert.ok(Array.isArray(issue.loc) && issue.loc.length > 0);
      for (const part of issue.loc as unknown[]) {
        assert.ok(typeof part === "string" || typeof part === "number");
      }
      assert.ok("input" in issue);
      const keys = Object.keys(issue).filter((key) => key !== "ctx");
      assert.deepEqual(keys, ["type", "loc", "msg", "input"]);
      if ("ctx" in issue) {
        assert.ok(typeof issue.ctx === "object" && issue.ctx !== null);
      }
    }
    return;
  }
  assert.deepEqual(Object.keys(record).sort(), [
    "error_code",
    "message",
    "status",
  ]);
  assert.equal(record.status, "error");
  assert.match(String(record.error_code), /^[A-Z][A-Z_]*$/);
  assert.equal(typeof record.message, "string");
}

async function check(
  handler: Handler,
  logged: unknown[],
  input: FuzzRequest,
): Promise<void> {
  logged.length = 0;
  let fetchRequest: Request;
  try {
    fetchRequest = toRequest(input);
  } catch {
    return; // Not a request a server could receive (e.g. a bad method).
  }
  const response = await handler(fetchRequest);
  const bytes = new Uint8Array(await response.arrayBuffer());
  const context = `${input.method} ${input.path} -> ${response.status}`;
  assert.ok(response.status < 500, `${context}: a 5xx`);
  assert.deepEqual(logged, [], `${context}: logged as unexpected`);

  const contentType = response.headers.get("content-type") ?? "";
  const bodyText = contentType === "application/zip"
    ? ""
    : new TextDecoder().decode(bytes);
  if (input.method === "HEAD") {
    // The GET's status and headers, never a body.
    assert.equal(bytes.byteLength, 0, `${context}: a body to HEAD`);
  } else if (response.status >= 400) {
    assert.equal(contentType, "application/json", context);
    assertErrorShape(response.status, JSON.parse(bodyText));
  }
  const decoded = new TextDecoder().decode(input.body ?? new Uint8Array());
  // What the client sent, but its credentials.
  const sent = [
    input.path,
    input.contentType ?? "",
    input.requestId ?? "",
    decoded,
    JSON.stringify(decoded),
  ].join("\n");
  const answered = [
    bodyText,
    ...[...response.headers].map(([name, value]) => `${name}: ${value}`),
  ].join("\n");
  for (
    const [what, pattern] of [...LEAKS, ["a token", TOKEN] as const]
  ) {
    if (
      pattern.test(answered) &&
      !pattern.test(`${sent}\n${what === "a token" ? "" : input.authorization}`)
    ) {
      assert.fail(`${context}: ${what} in the answer:\n${answered}`);
    }
  }
  // Nor is the Authorization value the client sent ever echoed.
  const credentials = input.authorization?.replace(/^bearer\s*/i, "").trim();
  if (
    credentials !== undefined && credentials.length >= 8 &&
    answered.includes(credentials) && !sent.includes(credentials)
  ) {
    assert.fail(`${context}: the Authorization value in the answer`);
  }
}

describe(`handler fuzz on ${runtimeName()} (seed ${SEED})`, () => {
  let handler: Handler;
  const logged: unknown[] = [];

  before(async () => {
    const store = new MemoryStore();
    await store.seed(parseFixtures(apiFixtures));
    handler = createHandler({
      store,
      logError: (_requestId, error) => logged.push(error),
    });
  });

  it("answers random requests without a 5xx, a leak or a logged error", async () => {
    const outcome = await fc.check(
      fc.asyncProperty(request, (input) => check(handler, logged, input)),
      {
        seed: SEED,
        numRuns: RUNS,
        ...(TIME_LIMIT === undefined
          ? {}
          : { interruptAfterTimeLimit: TIME_LIMIT }),
        markInterruptAsFailure: false,
        endOnFailure: true,
      },
    );
    if (outcome.failed) {
      assert.fail(
        `${fc.defaultReportMessage(outcome) ?? "failed"}\n` +
          `logged: ${logged.map(String).join("; ")}`,
      );
    }
  });
});
