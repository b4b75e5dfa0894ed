/**
 * The bulk transcript body read and validated as FastAPI does it for
 * `BulkTranscriptRequest { call_ids: list[UUID] = Field(min_length=1,
 * max_length=500) }`. Every expected detail is the HTTPValidationError body
 * FastAPI 0.142 with pydantic-core 2.49 returns for the same request (JSON
 * errors as Python 3.13's `json` reports them), compared as rendered text.
 *
 * @module
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  parseBulkRequest,
  RequestValidationError,
} from "../src/validation/mod.ts";
import { HttpError } from "../src/errors/http_error.ts";

const U1 = "0b6f1c2e-8d3a-4c55-9a57-3e3c2d1f0a11";
const U2 = "6f9619ff-8b86-d011-b42d-00c04fc964ff";
const JSON_TYPE = "application/json";
const NOT_AN_OBJECT =
  "Input should be a valid dictionary or object to extract fields from";

const encoder = new TextEncoder();

function read(
  body: string | Uint8Array,
  contentType: string | null = JSON_TYPE,
): string[] {
  return parseBulkRequest(
    typeof body === "string" ? encoder.encode(body) : body,
    contentType,
  );
}

function failure(
  body: string | Uint8Array,
  contentType: string | null = JSON_TYPE,
): unknown {
  try {
    read(body, contentType);
  } catch (error) {
    return error;
  }
  return assert.fail("the body was accepted");
}

/** The HTTPValidationError body, rendered as the response renders it. */
function detail(
  body: string | Uint8Array,
  contentType: string | null = JSON_TYPE,
): string {
  const error = failure(body, contentType);
  assert.ok(error instanceof RequestValidationError, String(error));
  return JSON.stringify(error.toJSON());
}

/** Asserts the 400 FastAPI answers for a body it cannot decode. */
function assertUnparseable(body: string | Uint8Array): void {
  const error = failure(body);
  assert.ok(error instanceof HttpError, String(error));
  assert.deepStrictEqual(error.toJSON(), {
    status: "error",
    error_code: "BAD_REQUEST",
    message: "There was an error parsing the body",
  });
  assert.deepStrictEqual(error.status, 400);
}

describe("parseBulkRequest", () => {
  it("returns canonical call ids, duplicates removed in first-occurrence order", () => {
    const simple = U1.replaceAll("-", "");
    assert.deepStrictEqual(
      read(JSON.stringify({
        call_ids: [
          `{${U1.toUpperCase()}}`,
          U2.toUpperCase(),
          simple,
          `urn:uuid:${U1}`,
          U2,
        ],
      })),
      [U1, U2],
    );
  });

  it("ignores extra keys and takes the last of repeated keys", () => {
    assert.deepStrictEqual(
      read(`{"call_ids": 5, "note": [1e400], "call_ids": ["${U1}"]}`),
      [U1],
    );
  });

  it("accepts JSON content types with parameters, in any case", () => {
    for (
      const contentType of [
        "application/json; charset=utf-8",
        " APPLICATION/JSON ",
        "application/vnd.api+json",
        "application/json;",
      ]
    ) {
      assert.deepStrictEqual(read(`{"call_ids": ["${U1}"]}`, contentType), [
        U1,
      ]);
    }
  });

  it("reads the first of repeated Content-Type fields, as Starlette does", () => {
    // Headers joins repeated fields with ", ".
    const body = `{"call_ids": ["${U1}"]}`;
    assert.deepStrictEqual(read(body, "application/json, application/json"), [
      U1,
    ]);
    assert.deepStrictEqual(read(body, "application/json, text/plain"), [U1]);
    assert.deepStrictEqual(
      read(body, 'application/json; x="a,b", text/plain'),
      [U1],
    );
    assert.deepStrictEqual(
      detail(body, "text/plain, application/json"),
      '{"detail":[{"type":"model_attributes_type","loc":["body"],' +
        `"msg":"${NOT_AN_OBJECT}","input":${JSON.stringify(body)}}]}`,
    );
  });

  it("decodes UTF-16 and UTF-8 with a byte order mark as json.loads does", () => {
    const text = `{"call_ids": ["${U1}"]}`;
    const utf16 = new Uint8Array(2 + 2 * text.length);
    utf16.set([0xff, 0xfe]);
    for (let index = 0; index < text.length; index += 1) {
      utf16[2 + 2 * index] = text.charCodeAt(index);
    }
    assert.deepStrictEqual(read(utf16), [U1]);
    assert.deepStrictEqual(
      read(new Uint8Array([0xef, 0xbb, 0xbf, ...encoder.encode(text)])),
      [U1],
    );
  });

  it("accepts exactly 500 call ids", () => {
    const ids = Array.from(
      { length: 500 },
      (_, index) =>
        `00000000-0000-0000-0000-${String(index).padStart(12, "0")}`,
    );
    assert.deepStrictEqual(read(JSON.stringify({ call_ids: ids })), ids);
  });

  it("reports an empty body or JSON null as a missing body", () => {
    const missing =
      '{"detail":[{"type":"missing","loc":["body"],"msg":"Field required",' +
      '"input":null}]}';
    assert.deepStrictEqual(detail(""), missing);
    assert.deepStrictEqual(detail("", "text/plain"), missing);
    assert.deepStrictEqual(detail("null"), missing);
  });

  it("does not parse a body without a Content-Type, as strict_content_type", () => {
    assert.deepStrictEqual(
      detail(`{"call_ids": ["${U1}"]}`, null),
      `{"detail":[{"type":"model_attributes_type","loc":["body"],"msg":"${NOT_AN_OBJECT}",` +
        `"input":"{\\"call_ids\\": [\\"${U1}\\"]}"}]}`,
    );
  });

  it("validates a body of another content type as raw text", () => {
    assert.deepStrictEqual(
      detail('{"call_ids": []}', "text/plain"),
      `{"detail":[{"type":"model_attributes_type","loc":["body"],"msg":"${NOT_AN_OBJECT}",` +
        '"input":"{\\"call_ids\\": []}"}]}',
    );
    assert.deepStrictEqual(
      detail('\ufeff{"a": "é"}', "application/json/x"),
      `{"detail":[{"type":"model_attributes_type","loc":["body"],"msg":"${NOT_AN_OBJECT}",` +
        '"input":"\ufeff{\\"a\\": \\"é\\"}"}]}',
    );
  });

  it("reports malformed JSON with Python's message and code-point position", () => {
    const invalid = (position: number, error: string) =>
      `{"detail":[{"type":"json_invalid","loc":["body",${position}],` +
      `"msg":"JSON decode error","input":{},"ctx":{"error":"${error}"}}]}`;
    assert.deepStrictEqual(
      detail('{"call_ids": ["é", "😀" x]}'),
      invalid(23, "Expecting ',' delimiter"),
    );
    assert.deepStrictEqual(
      detail('{"call_ids": ["😀" "x"]}'),
      invalid(18, "Expecting ',' delimiter"),
    );
    assert.deepStrictEqual(
      detail('{"call_ids": ["é",]}'),
      invalid(17, "Illegal trailing comma before end of array"),
    );
    assert.deepStrictEqual(
      detail("{call_ids: []}"),
      invalid(1, "Expecting property name enclosed in double quotes"),
    );
    assert.deepStrictEqual(
      detail('  \n  {"call_ids": [}'),
      invalid(19, "Expecting value"),
    );
    assert.deepStrictEqual(
      detail('{"call_ids": ["\\q"]}'),
      invalid(15, "Invalid \\\\escape"),
    );
  });

  it("reports a body that is not an object, echoed as Python renders it", () => {
    const notAnObject = (input: string) =>
      `{"detail":[{"type":"model_attributes_type","loc":["body"],"msg":"${NOT_AN_OBJECT}","input":${input}}]}`;
    assert.deepStrictEqual(detail(`["${U1}"]`), notAnObject(`["${U1}"]`));
    assert.deepStrictEqual(detail(`"${U1}"`), notAnObject(`"${U1}"`));
    assert.deepStrictEqual(detail("1.0"), notAnObject("1.0"));
    assert.deepStrictEqual(detail("true"), notAnObject("true"));
  });

  it("reports a missing call_ids with the body as Python holds it", () => {
    assert.deepStrictEqual(
      detail('{"b": 1.0, "1": [1E5, 12345678901234567890], "callIds": []}'),
      '{"detail":[{"type":"missing","loc":["body","call_ids"],"msg":"Field required",' +
        '"input":{"b":1.0,"1":[100000.0,12345678901234567890],"callIds":[]}}]}',
    );
  });

  it("reports call_ids that is not a list, a string included", () => {
    const listType = (input: string) =>
      '{"detail":[{"type":"list_type","loc":["body","call_ids"],' +
      `"msg":"Input should be a valid list","input":${input}}]}`;
    assert.deepStrictEqual(
      detail(`{"call_ids": {"${U1}": 1}}`),
      listType(`{"${U1}":1}`),
    );
    assert.deepStrictEqual(
      detail(`{"call_ids": "${U1}"}`),
      listType(`"${U1}"`),
    );
    assert.deepStrictEqual(detail('{"call_ids": null}'), listType("null"));
  });

  it("reports every item that is not a UUID, in order", () => {
    const items = [
      `"${U1}"`,
      '"abc"',
      "42",
      '"{x}"',
      "null",
      `"${U1.toUpperCase().slice(0, 35)}"`,
      "true",
      `["${U1}"]`,
      '"é"',
      "1e-7",
    ];
    const parsing = (index: number, input: string, error: string) =>
      `{"type":"uuid_parsing","loc":["body","call_ids",${index}],` +
      `"msg":"Input should be a valid UUID, ${error}","input":${input},` +
      `"ctx":{"error":"${error}"}}`;
    const type = (index: number, input: string) =>
      `{"type":"uuid_type","loc":["body","call_ids",${index}],` +
      `"msg":"UUID input should be a string, bytes or UUID object","input":${input}}`;
    assert.deepStrictEqual(
      detail(`{"call_ids": [${items.join(", ")}]}`),
      `{"detail":[${
        [
          parsing(1, '"abc"', "invalid length: found 3"),
          type(2, "42"),
          parsing(3, '"{x}"', "invalid character: found `x` at 1"),
          type(4, "null"),
          parsing(
            5,
            '"0B6F1C2E-8D3A-4C55-9A57-3E3C2D1F0A1"',
            "invalid group length in group 4: expected 12, found 11",
          ),
          type(6, "true"),
          type(7, `["${U1}"]`),
          parsing(8, '"é"', "invalid character: found `é` at 0"),
          type(9, "1e-07"),
        ].join(",")
      }]}`,
    );
  });

  it("reports an empty list as too short", () => {
    assert.deepStrictEqual(
      detail('{"call_ids": []}'),
      '{"detail":[{"type":"too_short","loc":["body","call_ids"],' +
        '"msg":"List should have at least 1 item after validation, not 0",' +
        '"input":[],"ctx":{"field_type":"List","min_length":1,"actual_length":0}}]}',
    );
  });

  it("reports more than 500 items as one too_long error, dropping item errors", () => {
    const items = ['"not-a-uuid"', "1.0", ...Array(499).fill(`"${U1}"`)];
    assert.deepStrictEqual(
      detail(`{"call_ids": [${items.join(", ")}]}`),
      '{"detail":[{"type":"too_long","loc":["body","call_ids"],' +
        '"msg":"List should have at most 500 items after validation, not 501",' +
        `"input":[${items.join(",")}],` +
        '"ctx":{"field_type":"List","max_length":500,"actual_length":501}}]}',
    );
    const many = Array(1200).fill(`"${U1}"`);
    const error = failure(`{"call_ids": [${many.join(",")}]}`);
    assert.ok(error instanceof RequestValidationError);
    assert.deepStrictEqual(error.issues.length, 1);
    assert.deepStrictEqual(
      error.issues[0]!.msg,
      "List should have at most 500 items after validation, not 1200",
    );
  });

  it("answers 400 for a JSON body Python cannot decode", () => {
    assertUnparseable(
      new Uint8Array([
        ...encoder.encode('{"call_ids": ["'),
        0xff,
        0x22,
        0x5d,
        0x7d,
      ]),
    );
    assertUnparseable(`{"call_ids": [${"1".repeat(4301)}]}`);
    assertUnparseable("[".repeat(9999) + "]".repeat(9999));
  });

  // FastAPI fails with a 500 on these, unable to render the input it echoes:
  // a client's bad input gets a 4xx here instead (a documented deviation).
  it("answers 422 where FastAPI cannot render the echoed input", () => {
    assert.deepStrictEqual(
      detail(new Uint8Array([0x61, 0xff, 0xfe, 0x62]), "text/plain"),
      '{"detail":[{"type":"model_attributes_type","loc":["body"],' +
        `"msg":"${NOT_AN_OBJECT}","input":"a\ufffd\ufffdb"}]}`,
    );
    assert.deepStrictEqual(
      detail('{"call_ids": -1.5E+400}'),
      '{"detail":[{"type":"list_type","loc":["body","call_ids"],' +
        '"msg":"Input should be a valid list","input":-1.5E+400}]}',
    );
    assert.deepStrictEqual(
      detail('{"call_ids": ["\\ud800"]}'),
      '{"detail":[{"type":"uuid_parsing","loc":["body","call_ids",0],' +
        '"msg":"Input should be a valid UUID, invalid character: found ' +
        '`\\ud800` at 0","input":"\\ud800","ctx":{"error":' +
        '"invalid character: found `\\ud800` at 0"}}]}',
    );
  });

  it("answers 400 where FastAPI recurses too deep rendering the input", () => {
    assertUnparseable(`{"call_ids": ${"[".repeat(962)}${"]".repeat(962)}}`);
    assertUnparseable(`{"x": ${"[".repeat(5000)}${"]".repeat(5000)}}`);
  });

  it("renders an echoed input nested 959 levels deep", () => {
    const nested = "[".repeat(959) + "]".repeat(959);
    assert.deepStrictEqual(
      detail(`{"call_ids": [${nested}]}`),
      '{"detail":[{"type":"uuid_type","loc":["body","call_ids",0],' +
        '"msg":"UUID input should be a string, bytes or UUID object",' +
        `"input":${nested}}]}`,
    );
  });
});
