/**
 * Reading and validating the bulk transcript body exactly as FastAPI does for
 * `BulkTranscriptRequest { call_ids: list[UUID] = Field(min_length=1,
 * max_length=500) }`, a single non-embedded body parameter: the body is read
 * as `fastapi.routing.get_request_handler` reads it, validated as Pydantic v2
 * validates it (`validate_python(..., from_attributes=True)`), and every
 * violation is reported with FastAPI's `loc`, `msg`, `input` and `ctx`.
 *
 * @module
 */

import { HttpError } from "../errors/mod.ts";
import {
  decodeJsonBytes,
  isJsonObject,
  parseJsonAsPython,
  parseJsonText,
} from "./_json_text.ts";
import type { JsonTextResult } from "./_json_text.ts";
import { RequestValidationError } from "./_request_validation_error.ts";
import type { ValidationIssue } from "./_request_validation_error.ts";
import { parseUuid } from "./_uuid.ts";

/** `Field(min_length=1, max_length=500)` of `call_ids`. */
const MIN_CALL_IDS = 1;
const MAX_CALL_IDS = 500;

/**
 * How deep an echoed `input` may nest before Starlette fails to render it:
 * FastAPI's `jsonable_encoder` recurses once per level under Python's
 * recursion limit of 1000, less the frames the server's stack already holds,
 * and a deeper input turns the 422 into a 500. Measured: a container 960
 * levels down fails, 959 renders (FastAPI 0.142, TestClient); the exact cut
 * depends on the server.
 */
const MAX_ECHO_DEPTH = 960;

/**
 * Reads the bulk transcript request body as FastAPI reads and validates it.
 *
 * - An empty body, or JSON `null`, is a missing body.
 * - With `application/json` or `application/*+json` (parameters allowed),
 *   the body is decoded as `json.loads(bytes)` decodes it; any other content
 *   type, or none (FastAPI's default `strict_content_type=True`), leaves it
 *   raw text, which is not an object.
 * - Malformed JSON is one `json_invalid` error at Python's position.
 * - Otherwise every violation is reported, in Pydantic's order: a
 *   non-object body, a missing or non-list `call_ids`, each item that is not
 *   a UUID string, then the length (more than 500 items is a single
 *   `too_long` error, as Pydantic stops counting there).
 *
 * @param body The raw request body, possibly empty.
 * @param contentType The Content-Type header, `null` when absent.
 * @returns The call ids in canonical form (lowercase, hyphenated), duplicates
 * removed, in order of first occurrence.
 * @throws {RequestValidationError} With every violation (422).
 * @throws {HttpError} 400 BAD_REQUEST when a JSON body cannot be decoded
 * (bytes that are not text, an integer of more than 4300 digits, nesting
 * too deep), as FastAPI's "There was an error parsing the body"; also where
 * FastAPI fails with a 500 rendering an echoed input nested 960 levels or
 * more (Python's `RecursionError` either way).
 *
 * Where FastAPI fails with a 500 because Starlette cannot render the input it
 * echoes, the 422 is answered all the same (a deliberate deviation): a lone
 * surrogate is written as a `\uXXXX` escape, a float out of range with the
 * client's digits, raw text that is not UTF-8 with U+FFFD for each bad byte.
 *
 * @example Canonicalising and deduplicating call ids
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseBulkRequest } from "./_bulk_request.ts";
 *
 * const body = new TextEncoder().encode(JSON.stringify({
 *   call_ids: [
 *     "{0B6F1C2E-8D3A-4C55-9A57-3E3C2D1F0A11}",
 *     "0b6f1c2e8d3a4c559a573e3c2d1f0a11",
 *   ],
 * }));
 * assert.deepEqual(parseBulkRequest(body, "application/json"), [
 *   "0b6f1c2e-8d3a-4c55-9a57-3e3c2d1f0a11",
 * ]);
 * ```
 */
export function parseBulkRequest(
  body: Uint8Array,
  contentType: string | null,
): string[] {
  if (body.length === 0) throw new RequestValidationError([missingBody()]);
  if (!isJsonContentType(contentType)) {
    throw new RequestValidationError([notAnObject(rawText.decode(body))]);
  }

  let text: string;
  let parsed: JsonTextResult;
  try {
    text = decodeJsonBytes(body);
    parsed = parseJsonText(text);
  } catch (error) {
    if (error instanceof TypeError || error instanceof RangeError) {
      throw new HttpError(
        400,
        "BAD_REQUEST",
        "There was an error parsing the body",
        { cause: error },
      );
    }
    throw error;
  }
  if (!parsed.ok) {
    throw new RequestValidationError([{
      type: "json_invalid",
      loc: ["body", parsed.position],
      msg: "JSON decode error",
      input: {},
      ctx: { error: parsed.error },
    }]);
  }

  // Validated once, on the value JSON.parse built; the inputs a failure
  // echoes come from the value Python builds (its spelling of numbers, its
  // order of keys), so that they render byte for byte as Starlette's.
  let python: { value: unknown } | undefined;
  const echo = (): unknown =>
    (python ??= { value: parseJsonAsPython(text) }).value;
  const validated = validateBody(parsed.value, echo);
  if (validated.ok) return [...new Set(validated.callIds)];
  const issues = validated.issues;
  if (mayNestAsDeepAs(text, MAX_ECHO_DEPTH) && echoesTooDeep(issues)) {
    throw new HttpError(
      400,
      "BAD_REQUEST",
      "There was an error parsing the body",
    );
  }
  throw new RequestValidationError(issues);
}

type Validated =
  | { ok: true; callIds: string[] }
  | { ok: false; issues: ValidationIssue[] };

/**
 * `_validate_value_with_model_field`, then the model's validator, over the
 * value JSON.parse built; `echo` gives the same body as Python holds it.
 */
function validateBody(value: unknown, echo: () => unknown): Validated {
  if (value === null) return { ok: false, issues: [missingBody()] };
  if (!isJsonObject(value)) {
    return { ok: false, issues: [notAnObject(echo())] };
  }
  const echoedItems = (): unknown =>
    (echo() as Record<string, unknown>)["call_ids"];
  if (!Object.hasOwn(value, "call_ids")) {
    return {
      ok: false,
      issues: [{
        type: "missing",
        loc: ["body", "call_ids"],
        msg: "Field required",
        input: echo(),
      }],
    };
  }
  const items = value["call_ids"];
  if (!Array.isArray(items)) {
    return {
      ok: false,
      issues: [{
        type: "list_type",
        loc: ["body", "call_ids"],
        msg: "Input should be a valid list",
        input: echoedItems(),
      }],
    };
  }
  // pydantic-core counts every item, valid or not, and raises `too_long`
  // the moment the count passes the maximum, dropping the item errors.
  if (items.length > MAX_CALL_IDS) {
    return { ok: false, issues: [tooLong(echoedItems() as unknown[])] };
  }
  const callIds: string[] = [];
  const issues: ValidationIssue[] = [];
  items.forEach((item: unknown, index) => {
    const loc = ["body", "call_ids", index];
    if (typeof item !== "string") {
      issues.push({
        type: "uuid_type",
        loc,
        msg: "UUID input should be a string, bytes or UUID object",
        input: (echoedItems() as unknown[])[index],
      });
      return;
    }
    const result = parseUuid(item);
    if (result.ok) {
      callIds.push(result.uuid);
    } else {
      issues.push({
        type: "uuid_parsing",
        loc,
        msg: `Input should be a valid UUID, ${result.error}`,
        input: item,
        ctx: { error: result.error },
      });
    }
  });
  if (issues.length > 0) return { ok: false, issues };
  if (items.length < MIN_CALL_IDS) {
    return {
      ok: false,
      issues: [{
        type: "too_short",
        loc: ["body", "call_ids"],
        msg: `List should have at least ${MIN_CALL_IDS} item after ` +
          `validation, not ${items.length}`,
        input: items,
        ctx: {
          field_type: "List",
          min_length: MIN_CALL_IDS,
          actual_length: items.length,
        },
      }],
    };
  }
  return { ok: true, callIds };
}

function missingBody(): ValidationIssue {
  return { type: "missing", loc: ["body"], msg: "Field required", input: null };
}

function notAnObject(input: unknown): ValidationIssue {
  return {
    type: "model_attributes_type",
    loc: ["body"],
    msg: "Input should be a valid dictionary or object to extract fields from",
    input,
  };
}

function tooLong(items: unknown[]): ValidationIssue {
  return {
    type: "too_long",
    loc: ["body", "call_ids"],
    msg: `List should have at most ${MAX_CALL_IDS} items after validation, ` +
      `not ${items.length}`,
    input: items,
    ctx: {
      field_type: "List",
      max_length: MAX_CALL_IDS,
      actual_length: items.length,
    },
  };
}

/** What `str.strip()` strips among Latin-1 characters, at either end. */
// deno-lint-ignore no-control-regex -- Python counts \x1c-\x1f as spaces
const PYTHON_SPACE = /^[\t-\r\x1c-\x20\x85\xa0]+|[\t-\r\x1c-\x20\x85\xa0]+$/g;

/**
 * FastAPI's choice of parser: a Content-Type whose type, as
 * `email.message.Message.get_content_type` reads it, is `application/json`
 * or `application/<anything>+json`. A body without a Content-Type is not
 * parsed, as with FastAPI's default `strict_content_type=True`.
 */
function isJsonContentType(contentType: string | null): boolean {
  if (contentType === null || contentType === "") return false;
  // `_splitparam`: the part before `;`, stripped as `str.strip` does for
  // the Latin-1 characters a header holds, then lowercased.
  const type = firstHeaderValue(contentType).split(";", 1)[0]!
    .replace(PYTHON_SPACE, "").toLowerCase();
  const parts = type.split("/");
  if (parts.length !== 2) return false;
  const [main, sub = ""] = parts;
  return main === "application" && (sub === "json" || sub.endsWith("+json"));
}

/**
 * The first of repeated header fields, which is the one Starlette reads:
 * `Headers` joins repeated fields with `", "`, so the value is cut at the
 * first comma outside a quoted string. (A single Content-Type holding an
 * unquoted comma, which RFC 9110 does not allow, is cut there too.)
 */
function firstHeaderValue(value: string): string {
  let quoted = false;
  for (let index = 0; index < value.length; index += 1) {
    const character = value[index];
    if (quoted && character === "\\") index += 1;
    else if (character === '"') quoted = !quoted;
    else if (character === "," && !quoted) return value.slice(0, index);
  }
  return value;
}

/**
 * A non-JSON body is validated as bytes, and `jsonable_encoder` echoes them
 * with `bytes.decode()`: strict UTF-8, where FastAPI fails with a 500 on
 * other bytes. Here each malformed sequence becomes U+FFFD instead, as
 * `bytes.decode(errors="replace")` would write it, so the 422 still answers.
 */
const rawText = new TextDecoder("utf-8", { ignoreBOM: true });

/**
 * Whether the text holds at least `depth` openers, without which nothing in
 * it nests that deep: a cheap pass that spares walking the echoed inputs
 * (slow through the key-ordering proxies of many-keyed objects).
 */
function mayNestAsDeepAs(text: string, depth: number): boolean {
  let openers = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if ((code === 0x5b || code === 0x7b) && ++openers >= depth) return true;
  }
  return false;
}

/**
 * Whether an echoed input nests as deep as Python's recursion limit lets
 * `jsonable_encoder` go: FastAPI fails with `RecursionError` there, answered
 * here as the 400 a `RecursionError` while parsing gets. (Lone surrogates and
 * floats out of range, its other failures, render: see
 * {@linkcode parseBulkRequest}.)
 */
function echoesTooDeep(issues: ValidationIssue[]): boolean {
  const pending: [unknown, number][] = issues.map((issue) => [issue.input, 0]);
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [value, depth] = next;
    if (Array.isArray(value) || isJsonObject(value)) {
      if (depth >= MAX_ECHO_DEPTH) return true;
      for (const item of Object.values(value)) pending.push([item, depth + 1]);
    }
  }
  return false;
}
