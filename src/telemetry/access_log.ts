/**
 * The access log the server entries write: one line per finished request,
 * JSON by default, or a short human-readable line for a terminal. Fed by the
 * handler's `onRequestFinished`; holds no token, body or query string because
 * the handler never reports them.
 *
 * @module
 */
import type { FinishedRequest } from "./finished_request.ts";

/** How much is logged: `debug` adds the health probes, `off` logs nothing. */
export type LogLevel = "debug" | "info" | "warn" | "error" | "off";

/** Every level, from the most to the least verbose. */
export const LOG_LEVELS: readonly LogLevel[] = [
  "debug",
  "info",
  "warn",
  "error",
  "off",
];

/** `json`: one JSON object a line; `pretty`: a short line for people. */
export type LogFormat = "json" | "pretty";

/** Options of {@linkcode createAccessLog}. */
export interface AccessLogOptions {
  /** The least severe line written. Default `info`. */
  level?: LogLevel;
  /** The line format. Default `json`. */
  format?: LogFormat;
  /** Where lines go. Default `console.log` (stdout). */
  write?: (line: string) => void;
}

/**
 * Whether a path is a probe's, logged at `debug` only. Compared, not looked
 * up in a `Set`: each request's path is a new string, which a `Set` would
 * hash whole (a tenth of a µs for a long path on Bun).
 */
const isProbe = (path: string) => path === "/healthz" || path === "/readyz";

/**
 * The level of a finished request's line: `debug` for the health probes,
 * `error` for a 5xx or an export the server aborted, `warn` for a 4xx or an
 * export the client aborted, `info` otherwise.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { levelOf } from "./access_log.ts";
 *
 * const request = {
 *   time: "2026-01-01T00:00:00.000Z", requestId: "r", method: "GET",
 *   path: "/healthz", status: 200, durationMs: 1, bytes: 15,
 * };
 * assert.equal(levelOf(request), "debug");
 * assert.equal(levelOf({ ...request, path: "/v1/x", status: 404 }), "warn");
 * ```
 */
export function levelOf(request: FinishedRequest): Exclude<LogLevel, "off"> {
  if (isProbe(request.path)) return "debug";
  if (request.status >= 500 || request.aborted === "error") return "error";
  if (request.status >= 400 || request.aborted === "client") return "warn";
  return "info";
}

/**
 * A finished request as one JSON line: `time`, `level`, `request_id`,
 * `method`, `path`, `status`, `duration_ms`, `bytes`, then `project_id`,
 * `error_code`, `aborted` and `trace_id` (OpenTelemetry) when they apply.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { jsonLine } from "./access_log.ts";
 *
 * const request = {
 *   time: "2026-01-01T00:00:00.000Z", requestId: "r1", method: "DELETE",
 *   path: "/v1/integration/x", status: 422, durationMs: 0.4, bytes: 120,
 *   errorCode: "VALIDATION_ERROR",
 * };
 * const line = jsonLine(request);
 * assert.equal(JSON.parse(line).error_code, "VALIDATION_ERROR");
 * // Strings that need escaping are escaped as JSON.stringify does.
 * assert.equal(
 *   jsonLine({ ...request, path: '/a"\\b\u00e9' }),
 *   JSON.stringify({ time: request.time, level: "warn", request_id: "r1",
 *     method: "DELETE", path: '/a"\\b\u00e9', status: 422, duration_ms: 0.4,
 *     bytes: 120, error_code: "VALIDATION_ERROR" }),
 * );
 * assert.equal(
 *   line,
 *   '{"time":"2026-01-01T00:00:00.000Z","level":"warn","request_id":"r1",' +
 *     '"method":"DELETE","path":"/v1/integration/x","status":422,' +
 *     '"duration_ms":0.4,"bytes":120,"error_code":"VALIDATION_ERROR"}',
 * );
 * ```
 */
export function jsonLine(request: FinishedRequest): string {
  return jsonLineAt(request, levelOf(request));
}

/** {@linkcode jsonLine} at a level already found. */
function jsonLineAt(
  request: FinishedRequest,
  level: Exclude<LogLevel, "off">,
): string {
  // Written out rather than through an object: the same text as
  // JSON.stringify of one, in a fraction of the time. The time and the level
  // never need escaping; numbers print as JSON prints them. What repeats
  // from one line to the next comes from `segments`, in three pieces.
  let line = segments.opening(request.time, level) +
    jsonString(request.requestId) +
    segments.route(request.method, request.path, request.status) +
    request.durationMs + segments.size(request.bytes, request.projectId);
  if (request.errorCode !== undefined) {
    line += `,"error_code":${jsonString(request.errorCode)}`;
  }
  if (request.aborted !== undefined) line += `,"aborted":"${request.aborted}"`;
  if (request.traceId !== undefined) line += `,"trace_id":"${request.traceId}"`;
  return line + "}";
}

/** Printable ASCII but `"` and `\`: JSON.stringify would quote it as it is. */
const PLAIN_JSON = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** A string as JSON; the plain ones (ids, paths, codes) just quoted. */
function jsonString(text: string): string {
  return PLAIN_JSON.test(text) ? `"${text}"` : JSON.stringify(text);
}

/**
 * The runs of a JSON line that repeat from one request to the next, each
 * kept with the values it was made of and made again when one differs: the
 * opening (time, level) within a millisecond, the route's part (method,
 * path, status) and the size's (bytes, project). A line is then six pieces
 * rather than some thirty, which a batch's write copies into one string
 * (flattens) at several times the cost of its bytes; a kept run is
 * flattened once, when made (see {@linkcode flattened}), and no regular
 * expression looks at its values again.
 */
const segments = {
  time: undefined as string | undefined,
  level: "",
  openingText: "",
  method: undefined as string | undefined,
  path: "",
  status: 0,
  routeText: "",
  bytes: -1,
  projectId: undefined as string | undefined,
  sizeText: "",
  /** `{"time":…,"level":…,"request_id":` */
  opening(time: string, level: string): string {
    if (time !== this.time || level !== this.level) {
      this.time = time;
      this.level = level;
      this.openingText = flattened(
        `{"time":"${time}","level":"${level}","request_id":`,
      );
    }
    return this.openingText;
  },
  /** `,"method":…,"path":…,"status":…,"duration_ms":` */
  route(method: string, path: string, status: number): string {
    if (
      method !== this.method || path !== this.path || status !== this.status
    ) {
      this.method = method;
      this.path = path;
      this.status = status;
      this.routeText = flattened(
        `,"method":${jsonString(method)},"path":${
          jsonString(path)
        },"status":${status},"duration_ms":`,
      );
    }
    return this.routeText;
  },
  /** `,"bytes":…`, then `,"project_id":…` when there is one. */
  size(bytes: number, projectId: string | undefined): string {
    if (bytes !== this.bytes || projectId !== this.projectId) {
      this.bytes = bytes;
      this.projectId = projectId;
      this.sizeText = flattened(
        projectId === undefined
          ? `,"bytes":${bytes}`
          : `,"bytes":${bytes},"project_id":${jsonString(projectId)}`,
      );
    }
    return this.sizeText;
  },
};

/**
 * The same string, made one piece: engines keep a string built by `+` as a
 * tree of its parts until something reads it by index, which copies them
 * into one, in place.
 */
function flattened(text: string): string {
  text.charCodeAt(0);
  return text;
}

/**
 * A finished request as a short line for a terminal, e.g.
 * `10:00:00.123 POST /v1/call/message/bulk 200 3.1 KiB 12.4 ms project 0b6f… [r1]`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { prettyLine } from "./access_log.ts";
 *
 * const line = prettyLine({
 *   time: "2026-01-01T10:00:00.123Z", requestId: "r1", method: "GET",
 *   path: "/openapi.json", status: 200, durationMs: 1.25, bytes: 2048,
 * });
 * assert.equal(line, "10:00:00.123 GET /openapi.json 200 2.0 KiB 1.3 ms [r1]");
 * ```
 */
export function prettyLine(request: FinishedRequest): string {
  const parts = [
    request.time.slice(11, 23),
    request.method,
    request.path,
    String(request.status),
    formatBytes(request.bytes),
    `${request.durationMs.toFixed(1)} ms`,
  ];
  if (request.projectId !== undefined) {
    parts.push(`project ${request.projectId}`);
  }
  if (request.errorCode !== undefined) parts.push(request.errorCode);
  if (request.aborted !== undefined) {
    parts.push(
      `aborted by ${request.aborted === "client" ? "client" : "error"}`,
    );
  }
  if (request.traceId !== undefined) parts.push(`trace ${request.traceId}`);
  parts.push(`[${request.requestId}]`);
  return parts.join(" ");
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/**
 * An access log: give it as the handler's `onRequestFinished`.
 *
 * @param options Level, format and where lines go.
 * @returns The listener.
 *
 * @example Logging every request but the probes, as JSON on stdout
 * ```ts
 * import assert from "node:assert/strict";
 * import { createHandler, MemoryStore } from "../../mod.ts";
 * import { createAccessLog } from "./access_log.ts";
 *
 * const lines: string[] = [];
 * const handler = createHandler({
 *   store: new MemoryStore(),
 *   onRequestFinished: createAccessLog({ write: (line) => lines.push(line) }),
 * });
 * await (await handler(new Request("http://x/openapi.json"))).arrayBuffer();
 * await (await handler(new Request("http://x/healthz"))).arrayBuffer();
 * assert.equal(lines.length, 1);
 * assert.equal(JSON.parse(lines[0]!).path, "/openapi.json");
 * ```
 */
export function createAccessLog(
  options: AccessLogOptions = {},
): (request: FinishedRequest) => void {
  const { level = "info", format = "json", write = console.log } = options;
  const threshold = LOG_LEVELS.indexOf(level);
  // The level is found once a line: the JSON line prints it.
  const render = format === "pretty" ? prettyLine : jsonLineAt;
  return (request) => {
    const level = levelOf(request);
    if (LOG_LEVELS.indexOf(level) < threshold) return;
    write(render(request, level));
  };
}
