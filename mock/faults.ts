/**
 * Fault and latency injection: rules that make the mock answer an error,
 * answer late, drop the connection or cut a response short, for a number of
 * requests or until cleared.
 *
 * @module
 */
import { matchPath, OPERATION_IDS } from "./operations.ts";

/**
 * A fault rule as a test writes it (the JSON body of `POST /__mock/faults`).
 * It matches by `operation`, or by `path` (and optionally `method`); its
 * effect is one of `status`, `drop_connection` or `cut_after_bytes`, each
 * optionally after `delay_ms`, or `delay_ms` alone (answer normally, late).
 */
export interface FaultRule {
  /** The OpenAPI `operationId`, e.g. `testTrigger`. */
  operation?: string;
  /** A path pattern: `*` or `{name}` is one segment, a final `**` the rest. */
  path?: string;
  /** With `path`: the method to match (default: any). */
  method?: string;
  /** Answer this status (400 to 599) with an ErrorResponseSchema body. */
  status?: number;
  /** With `status`: the body's `error_code`. Default: from the status. */
  error_code?: string;
  /** With `status`: the body's `message`. Default: says it was injected. */
  message?: string;
  /** With `status`: extra response headers, e.g. `{"Retry-After": "1"}`. */
  headers?: Record<string, string>;
  /** Wait this long (milliseconds, at most 600000) before answering. */
  delay_ms?: number;
  /** Drop the connection instead of answering. */
  drop_connection?: true;
  /** Answer normally but abort the body after this many bytes. */
  cut_after_bytes?: number;
  /** Apply to this many matching requests, then vanish. Default: until cleared. */
  times?: number;
}

/** A rule in force: its id and how many more requests it applies to. */
export interface Fault extends FaultRule {
  /** The rule's id, e.g. `fault-1`, for `DELETE /__mock/faults/{id}`. */
  id: string;
  /** Requests it still applies to; `null`: until cleared. */
  remaining: number | null;
}

/** A fault rule that breaks the format; the message names the field. */
export class FaultRuleError extends Error {
  /**
   * Creates the error.
   *
   * @param message What is wrong, naming the field.
   */
  constructor(message: string) {
    super(message);
    this.name = "FaultRuleError";
  }
}

const FIELDS = new Set([
  "operation",
  "path",
  "method",
  "status",
  "error_code",
  "message",
  "headers",
  "delay_ms",
  "drop_connection",
  "cut_after_bytes",
  "times",
]);
const MAX_DELAY_MS = 600_000;
const ERROR_CODE = /^[A-Z][A-Z0-9_]*$/;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

const CODES: Record<number, string> = {
  400: "BAD_REQUEST",
  401: "UNAUTHORIZED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  409: "CONFLICT",
  429: "TOO_MANY_REQUESTS",
  500: "INTERNAL_SERVER_ERROR",
  502: "BAD_GATEWAY",
  503: "SERVICE_UNAVAILABLE",
  504: "GATEWAY_TIMEOUT",
};

/**
 * Checks a fault rule, throwing {@linkcode FaultRuleError} naming the first
 * problem: unknown fields, no or two matchers, no or two effects, values out
 * of range.
 *
 * @param input The rule, e.g. parsed from JSON.
 * @returns The rule, with the method upper-cased.
 * @throws {FaultRuleError} when the rule breaks the format.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FaultRuleError, parseFaultRule } from "./faults.ts";
 *
 * const rule = parseFaultRule({ operation: "testTrigger", status: 503, times: 1 });
 * assert.equal(rule.status, 503);
 * assert.throws(() => parseFaultRule({ operation: "nope", status: 503 }), FaultRuleError);
 * ```
 */
export function parseFaultRule(input: unknown): FaultRule {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw new FaultRuleError("A fault rule must be a JSON object");
  }
  const rule = input as Record<string, unknown>;
  for (const key of Object.keys(rule)) {
    if (!FIELDS.has(key)) {
      throw new FaultRuleError(
        `Unknown field "${key}": expected ${[...FIELDS].join(", ")}`,
      );
    }
  }
  const out: FaultRule = {};
  if ((rule.operation === undefined) === (rule.path === undefined)) {
    throw new FaultRuleError(
      'Give either "operation" (an operationId) or "path" (a path pattern)',
    );
  }
  if (rule.operation !== undefined) {
    if (!OPERATION_IDS.includes(rule.operation as string)) {
      throw new FaultRuleError(
        `"operation" must be one of ${OPERATION_IDS.join(", ")}`,
      );
    }
    if (rule.method !== undefined) {
      throw new FaultRuleError('"method" goes with "path", not "operation"');
    }
    out.operation = rule.operation as string;
  } else {
    if (typeof rule.path !== "string" || !rule.path.startsWith("/")) {
      throw new FaultRuleError('"path" must be a string starting with "/"');
    }
    out.path = rule.path;
    if (rule.method !== undefined) {
      if (typeof rule.method !== "string" || !TOKEN.test(rule.method)) {
        throw new FaultRuleError('"method" must be an HTTP method name');
      }
      out.method = rule.method.toUpperCase();
    }
  }
  const effects = ["status", "drop_connection", "cut_after_bytes"].filter((
    key,
  ) => rule[key] !== undefined);
  if (effects.length > 1) {
    throw new FaultRuleError(
      `Give one effect, not ${effects.map((key) => `"${key}"`).join(" and ")}`,
    );
  }
  if (effects.length === 0 && rule.delay_ms === undefined) {
    throw new FaultRuleError(
      'Give an effect: "status", "delay_ms", "drop_connection" or "cut_after_bytes"',
    );
  }
  if (rule.status !== undefined) {
    out.status = integer(rule.status, "status", 400, 599);
  }
  for (const key of ["error_code", "message", "headers"] as const) {
    if (rule[key] !== undefined && out.status === undefined) {
      throw new FaultRuleError(`"${key}" goes with "status"`);
    }
  }
  if (rule.error_code !== undefined) {
    if (
      typeof rule.error_code !== "string" || !ERROR_CODE.test(rule.error_code)
    ) {
      throw new FaultRuleError(
        '"error_code" must be SCREAMING_SNAKE_CASE, e.g. "SERVICE_UNAVAILABLE"',
      );
    }
    out.error_code = rule.error_code;
  }
  if (rule.message !== undefined) {
    if (typeof rule.message !== "string") {
      throw new FaultRuleError('"message" must be a string');
    }
    out.message = rule.message;
  }
  if (rule.headers !== undefined) out.headers = headers(rule.headers);
  if (rule.delay_ms !== undefined) {
    out.delay_ms = integer(rule.delay_ms, "delay_ms", 0, MAX_DELAY_MS);
  }
  if (rule.drop_connection !== undefined) {
    if (rule.drop_connection !== true) {
      throw new FaultRuleError('"drop_connection" must be true');
    }
    out.drop_connection = true;
  }
  if (rule.cut_after_bytes !== undefined) {
    out.cut_after_bytes = integer(
      rule.cut_after_bytes,
      "cut_after_bytes",
      0,
      Number.MAX_SAFE_INTEGER,
    );
  }
  if (rule.times !== undefined) {
    out.times = integer(rule.times, "times", 1, Number.MAX_SAFE_INTEGER);
  }
  return out;
}

function integer(
  value: unknown,
  name: string,
  min: number,
  max: number,
): number {
  if (
    !Number.isInteger(value) || (value as number) < min ||
    (value as number) > max
  ) {
    throw new FaultRuleError(
      `"${name}" must be an integer from ${min} to ${max}`,
    );
  }
  return value as number;
}

function headers(value: unknown): Record<string, string> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new FaultRuleError('"headers" must be an object of strings');
  }
  const out: Record<string, string> = {};
  for (const [name, text] of Object.entries(value)) {
    if (
      !TOKEN.test(name) || typeof text !== "string" || /[\r\n\0]/.test(text)
    ) {
      throw new FaultRuleError(
        `"headers" must map header names to strings; "${name}" does not`,
      );
    }
    out[name] = text;
  }
  return out;
}

/** The rules in force, applied first match first. */
export class FaultSet {
  #faults: Fault[] = [];
  #next = 1;

  /**
   * Adds a rule (checked first).
   *
   * @param rule The rule.
   * @returns The rule in force, with its id.
   * @throws {FaultRuleError} when the rule breaks the format.
   */
  add(rule: FaultRule): Fault {
    const fault: Fault = {
      id: `fault-${this.#next++}`,
      ...parseFaultRule(rule),
      remaining: rule.times ?? null,
    };
    this.#faults.push(fault);
    return { ...fault };
  }

  /** A copy of the rules in force, oldest first. */
  list(): Fault[] {
    return this.#faults.map((fault) => ({ ...fault }));
  }

  /**
   * Removes one rule, or every rule.
   *
   * @param id The rule's id; all rules when left out.
   * @returns Whether anything was removed.
   */
  clear(id?: string): boolean {
    const before = this.#faults.length;
    this.#faults = id === undefined
      ? []
      : this.#faults.filter((fault) => fault.id !== id);
    return this.#faults.length < before;
  }

  /**
   * The first rule matching a request, counted as used (and removed once its
   * `times` are used up), or `undefined`.
   *
   * @param method The request's method.
   * @param pathname The request's path.
   * @param operationId The request's operation, if any.
   * @returns A copy of the rule that applies.
   */
  take(
    method: string,
    pathname: string,
    operationId: string | undefined,
  ): Fault | undefined {
    const index = this.#faults.findIndex((fault) =>
      fault.operation !== undefined
        ? fault.operation === operationId
        : (fault.method === undefined || fault.method === method) &&
          matchPath(fault.path!, pathname)
    );
    if (index < 0) return undefined;
    const fault = this.#faults[index]!;
    if (fault.remaining !== null) {
      fault.remaining -= 1;
      if (fault.remaining === 0) this.#faults.splice(index, 1);
    }
    return { ...fault };
  }
}

/**
 * The `error_code` a status gets when a rule names none.
 *
 * @param status The status.
 * @returns e.g. `SERVICE_UNAVAILABLE` for 503, `INJECTED_FAULT` for others.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { defaultErrorCode } from "./faults.ts";
 *
 * assert.equal(defaultErrorCode(503), "SERVICE_UNAVAILABLE");
 * ```
 */
export function defaultErrorCode(status: number): string {
  return CODES[status] ?? "INJECTED_FAULT";
}

/**
 * A copy of a response whose body aborts after `limit` bytes: the client
 * sees an aborted transfer, never a complete body (even a shorter body ends
 * in an error rather than its end, and `Content-Length` promises one byte
 * past the cut, for clients of servers that end an errored body quietly, as
 * MSW 3 does). A bodiless answer (204) gets a dropped connection instead.
 *
 * @param response The response to cut.
 * @param limit Bytes to let through.
 * @returns The cut response.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { cutResponse } from "./faults.ts";
 *
 * const cut = cutResponse(new Response("hello world"), 5);
 * await assert.rejects(cut.text());
 * ```
 */
export function cutResponse(response: Response, limit: number): Response {
  // A bodiless answer (204) cannot be cut: its connection is dropped.
  if ([101, 204, 205, 304].includes(response.status)) return Response.error();
  const reader = response.body?.getReader();
  let sent = 0;
  const failure = () =>
    new Error(`Response cut after ${sent} bytes by an injected fault`);
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const result = reader === undefined
        ? { done: true as const, value: undefined }
        : await reader.read();
      if (result.done || sent >= limit) {
        controller.error(failure());
        reader?.cancel().catch(() => {});
        return;
      }
      const chunk = result.value.subarray(0, limit - sent);
      sent += chunk.byteLength;
      // The error comes on the next pull: erroring now could discard the
      // chunk before the reader takes it.
      controller.enqueue(chunk);
    },
    cancel(reason) {
      return reader?.cancel(reason);
    },
  }, { highWaterMark: 0 });
  // A length past the cut: a client that sees the body end early (MSW 3
  // ends it quietly when it errors) still knows the transfer broke off.
  const headers = new Headers(response.headers);
  headers.set("content-length", `${limit + 1}`);
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers,
  });
}
