/**
 * The server's settings, read from the environment (`PORT`, `HOST`,
 * `FIXTURES`, `DATABASE_URL`, `DATABASE_DIRECT_URL`, `DATABASE_READ_URL`,
 * `DATABASE_POOL_SIZE`, `MAX_CONCURRENT_EXPORTS`, `MAX_EXPORTS_PER_PROJECT`,
 * `EXPORT_STALL_TIMEOUT`, `SHUTDOWN_TIMEOUT`, `LOG_LEVEL`, `LOG_FORMAT`, and
 * OpenTelemetry's standard `OTEL_*` variables): one reading shared by
 * `npm start`, the `./server` entry, `callflow-api serve` and the `./worker`
 * entry (which ignores the `OTEL_*` ones), so they all take the same settings
 * and refuse the
 * same mistakes.
 *
 * @module
 */
import {
  LOG_LEVELS,
  type LogFormat,
  type LogLevel,
} from "../../src/telemetry/mod.ts";
import {
  DEFAULT_MAX_CONCURRENT_EXPORTS,
  defaultProjectShare,
} from "../../src/operations/mod.ts";
import { DEFAULT_EXPORT_STALL_TIMEOUT_MS } from "../../src/operations/mod.ts";
import { DEFAULT_EXPORT_MIN_BYTES_PER_SECOND } from "../../src/http/mod.ts";
import {
  DEFAULT_AUTH_FAILURE_LIMIT,
  DEFAULT_AUTH_FAILURE_WINDOW_MS,
} from "../../src/auth/mod.ts";
import { SettingsError } from "./settings_error.ts";

export { SettingsError };

/** How long a graceful shutdown may take unless told otherwise, in seconds. */
export const DEFAULT_SHUTDOWN_TIMEOUT = 30;

/** What a server is started with. */
export interface ServerSettings {
  /** The port (`0`: any free one). Default 8787. */
  port: number;
  /** The interface. Default `127.0.0.1`. */
  hostname: string;
  /**
   * A fixtures file to seed from, or `demo`; when undefined, the demo set in
   * memory and nothing on Postgres (see `startFixtures` in _app.ts).
   */
  fixturesPath: string | undefined;
  /** Serve from Postgres at this URL instead of memory. */
  databaseUrl: string | undefined;
  /**
   * Migrate and seed through this URL (a direct connection, past a
   * transaction pooler at `databaseUrl`); default `databaseUrl`.
   */
  databaseDirectUrl: string | undefined;
  /** Read from this replica of `databaseUrl` while it answers. */
  databaseReadUrl: string | undefined;
  /** Postgres connections in the pool. Default 10. */
  poolSize: number;
  /** Bulk exports streaming at once; past it, 503. Default 16. */
  maxConcurrentExports: number;
  /** One project's share of them. Default half, at least 1. */
  maxExportsPerProject: number;
  /** Seconds an export's client may read nothing before it is cut. Default 60. */
  exportStallTimeout: number;
  /**
   * Bytes a second an export's client must read, averaged over each
   * `exportStallTimeout`, or be cut. Default 4096; 0: any rate.
   */
  exportMinRate: number;
  /**
   * Unknown tokens a client address may send in a window before its
   * requests are answered 429. Default 20.
   */
  authFailureLimit: number;
  /** The window those are counted in, in seconds. Default 60. */
  authFailureWindow: number;
  /**
   * How many proxies of its own stand in front of the server: the client
   * address is then read from the right of `X-Forwarded-For`. Default 0:
   * the peer's address, the header ignored.
   */
  trustProxy: number;
  /**
   * Whether a fixtures file may put tokens shorter than 32 characters into
   * a database (`ALLOW_SHORT_TOKENS=1`, for tests). Default false.
   */
  allowShortTokens: boolean;
  /** Seconds a graceful shutdown may take before it cuts. Default 30. */
  shutdownTimeout: number;
  /** The access log's level. Default `info`. */
  logLevel: LogLevel;
  /** The access log's format. Default `pretty` on a terminal, else `json`. */
  logFormat: LogFormat;
  /** OpenTelemetry, from its standard variables: nothing when unset. */
  telemetry: TelemetrySettings;
  /** Whether `GET /docs` serves the reference page (`DOCS=off`: not). */
  docs: boolean;
}

/** The OTLP encodings the exporters speak: `http/protobuf` by default. */
export type OtlpProtocol = "http/protobuf" | "http/json";

/**
 * OpenTelemetry's standard variables, read. The endpoint, headers, timeout
 * and compression of OTLP (`OTEL_EXPORTER_OTLP_*`) and the resource
 * (`OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`) are read by the SDK
 * itself.
 */
export interface TelemetrySettings {
  /** `OTEL_TRACES_EXPORTER=otlp`: spans over OTLP/HTTP. */
  traces?: { protocol: OtlpProtocol };
  /**
   * `OTEL_METRICS_EXPORTER=prometheus`: a `/metrics` endpoint on
   * `OTEL_EXPORTER_PROMETHEUS_HOST` (default `localhost`) and
   * `OTEL_EXPORTER_PROMETHEUS_PORT` (default 9464); `otlp`: pushed over
   * OTLP/HTTP every `OTEL_METRIC_EXPORT_INTERVAL` ms (default 60000).
   */
  metrics?:
    | { exporter: "prometheus"; host: string; port: number }
    | { exporter: "otlp"; protocol: OtlpProtocol; intervalMs: number };
}

/**
 * Reads the settings from environment variables.
 *
 * @param env The environment, e.g. `process.env`.
 * @param terminal Whether stdout is a terminal (picks the default format).
 * @returns The settings.
 * @throws {SettingsError} naming the setting, for a malformed value, or
 *   for `DATABASE_DIRECT_URL` or `DATABASE_READ_URL` without `DATABASE_URL`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readServerSettings } from "./settings.ts";
 *
 * const settings = readServerSettings({ PORT: "8080", LOG_LEVEL: "debug" });
 * assert.equal(settings.port, 8080);
 * assert.equal(settings.logFormat, "json");
 * assert.equal(settings.maxExportsPerProject, 8); // half of 16
 * assert.equal(
 *   readServerSettings({ MAX_CONCURRENT_EXPORTS: "5" }).maxExportsPerProject,
 *   2,
 * );
 * assert.throws(() => readServerSettings({ PORT: " 80" }), /PORT must be/);
 * assert.throws(
 *   () => readServerSettings({ DATABASE_READ_URL: "postgres://replica/app" }),
 *   /DATABASE_READ_URL needs DATABASE_URL/,
 * );
 * ```
 */
export function readServerSettings(
  env: Record<string, string | undefined>,
  terminal = false,
): ServerSettings {
  const nonEmpty = (value: string | undefined) =>
    value === undefined || value === "" ? undefined : value;
  const databaseUrl = nonEmpty(env.DATABASE_URL);
  for (const name of ["DATABASE_DIRECT_URL", "DATABASE_READ_URL"]) {
    if (databaseUrl === undefined && nonEmpty(env[name]) !== undefined) {
      throw new SettingsError(`${name} needs DATABASE_URL to be set too`);
    }
  }
  const maxConcurrentExports = parseCount(
    env.MAX_CONCURRENT_EXPORTS,
    "MAX_CONCURRENT_EXPORTS",
    DEFAULT_MAX_CONCURRENT_EXPORTS,
  );
  return {
    port: parsePort(env.PORT, "PORT") ?? 8787,
    hostname: nonEmpty(env.HOST) ?? "127.0.0.1",
    fixturesPath: nonEmpty(env.FIXTURES),
    databaseUrl,
    databaseDirectUrl: nonEmpty(env.DATABASE_DIRECT_URL),
    databaseReadUrl: nonEmpty(env.DATABASE_READ_URL),
    poolSize: parseCount(env.DATABASE_POOL_SIZE, "DATABASE_POOL_SIZE", 10),
    maxConcurrentExports,
    maxExportsPerProject: parseCount(
      env.MAX_EXPORTS_PER_PROJECT,
      "MAX_EXPORTS_PER_PROJECT",
      defaultProjectShare(maxConcurrentExports),
    ),
    exportStallTimeout: parseCount(
      env.EXPORT_STALL_TIMEOUT,
      "EXPORT_STALL_TIMEOUT",
      DEFAULT_EXPORT_STALL_TIMEOUT_MS / 1000,
    ),
    exportMinRate: nonEmpty(env.EXPORT_MIN_RATE) === undefined
      ? DEFAULT_EXPORT_MIN_BYTES_PER_SECOND
      : env.EXPORT_MIN_RATE === "0"
      ? 0
      : parsePositiveInteger(env.EXPORT_MIN_RATE!, "EXPORT_MIN_RATE"),
    authFailureLimit: parseCount(
      env.AUTH_FAILURE_LIMIT,
      "AUTH_FAILURE_LIMIT",
      DEFAULT_AUTH_FAILURE_LIMIT,
    ),
    authFailureWindow: parseCount(
      env.AUTH_FAILURE_WINDOW,
      "AUTH_FAILURE_WINDOW",
      DEFAULT_AUTH_FAILURE_WINDOW_MS / 1000,
    ),
    trustProxy: env.TRUST_PROXY === undefined || env.TRUST_PROXY === "" ||
        env.TRUST_PROXY === "0"
      ? 0
      : parsePositiveInteger(env.TRUST_PROXY, "TRUST_PROXY", 9),
    allowShortTokens: parseChoice(
      env.ALLOW_SHORT_TOKENS,
      "ALLOW_SHORT_TOKENS",
      ["0", "1"],
    ) === "1",
    shutdownTimeout: parseCount(
      env.SHUTDOWN_TIMEOUT,
      "SHUTDOWN_TIMEOUT",
      DEFAULT_SHUTDOWN_TIMEOUT,
    ),
    logLevel: parseChoice(env.LOG_LEVEL, "LOG_LEVEL", LOG_LEVELS) ?? "info",
    logFormat: parseChoice(env.LOG_FORMAT, "LOG_FORMAT", ["json", "pretty"]) ??
      (terminal ? "pretty" : "json"),
    telemetry: readTelemetrySettings(env),
    docs: (parseChoice(env.DOCS, "DOCS", ["on", "off"]) ?? "on") === "on",
  };
}

/**
 * Reads OpenTelemetry's standard variables. Unset (or `none`) exporters load
 * nothing, unlike the specification's default of `otlp`: telemetry is asked
 * for, never on by surprise. `OTEL_SDK_DISABLED=true` turns everything off.
 *
 * @param env The environment.
 * @returns What to export, and how.
 * @throws {SettingsError} for an exporter or protocol the server lacks.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readTelemetrySettings } from "./settings.ts";
 *
 * assert.deepEqual(readTelemetrySettings({}), {});
 * assert.deepEqual(
 *   readTelemetrySettings({
 *     OTEL_TRACES_EXPORTER: "otlp",
 *     OTEL_METRICS_EXPORTER: "prometheus",
 *     OTEL_EXPORTER_PROMETHEUS_PORT: "9100",
 *   }),
 *   {
 *     traces: { protocol: "http/protobuf" },
 *     metrics: { exporter: "prometheus", host: "localhost", port: 9100 },
 *   },
 * );
 * assert.throws(
 *   () => readTelemetrySettings({ OTEL_TRACES_EXPORTER: "zipkin" }),
 *   /OTEL_TRACES_EXPORTER must be one of otlp, none/,
 * );
 * ```
 */
export function readTelemetrySettings(
  env: Record<string, string | undefined>,
): TelemetrySettings {
  const settings: TelemetrySettings = {};
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return settings;
  const protocol = (signal: "TRACES" | "METRICS"): OtlpProtocol => {
    const name = `OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`;
    const specific = env[name] === "" ? undefined : env[name];
    return specific === undefined
      ? parseChoice(
        env.OTEL_EXPORTER_OTLP_PROTOCOL,
        "OTEL_EXPORTER_OTLP_PROTOCOL",
        OTLP_PROTOCOLS,
      ) ?? "http/protobuf"
      : parseChoice(specific, name, OTLP_PROTOCOLS)!;
  };
  const traces = parseChoice(
    env.OTEL_TRACES_EXPORTER,
    "OTEL_TRACES_EXPORTER",
    ["otlp", "none"],
  );
  if (traces === "otlp") settings.traces = { protocol: protocol("TRACES") };
  const metrics = parseChoice(
    env.OTEL_METRICS_EXPORTER,
    "OTEL_METRICS_EXPORTER",
    ["prometheus", "otlp", "none"],
  );
  if (
    (settings.traces !== undefined || metrics === "prometheus" ||
      metrics === "otlp") && env.OTEL_DENO === "true" && "Deno" in globalThis
  ) {
    throw new SettingsError(
      "OTEL_DENO=true cannot be combined with OTEL_TRACES_EXPORTER or OTEL_METRICS_EXPORTER: the server sets up the OpenTelemetry SDK itself; unset OTEL_DENO",
    );
  }
  if (metrics === "prometheus") {
    settings.metrics = {
      exporter: "prometheus",
      host: env.OTEL_EXPORTER_PROMETHEUS_HOST || "localhost",
      port: parsePort(
        env.OTEL_EXPORTER_PROMETHEUS_PORT || undefined,
        "OTEL_EXPORTER_PROMETHEUS_PORT",
      ) ?? 9464,
    };
  } else if (metrics === "otlp") {
    const interval = env.OTEL_METRIC_EXPORT_INTERVAL || "60000";
    if (!/^[1-9]\d{0,8}$/.test(interval)) {
      throw new SettingsError(
        `OTEL_METRIC_EXPORT_INTERVAL must be a positive integer (ms), got ${
          JSON.stringify(interval)
        }`,
      );
    }
    settings.metrics = {
      exporter: "otlp",
      protocol: protocol("METRICS"),
      intervalMs: Number(interval),
    };
  }
  return settings;
}

const OTLP_PROTOCOLS: readonly OtlpProtocol[] = ["http/protobuf", "http/json"];

/**
 * A port number written as plain digits from 0 to 65535; `undefined` when
 * the value is unset. Spaces, signs, decimals and exponents are refused.
 *
 * @param value The text, e.g. from `PORT` or `--port`.
 * @param name How to name the setting in the refusal.
 * @throws {SettingsError} `<name> must be an integer from 0 to 65535, got "…"`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parsePort } from "./settings.ts";
 *
 * assert.equal(parsePort("0", "PORT"), 0);
 * assert.throws(() => parsePort("8e3", "PORT"));
 * ```
 */
export function parsePort(
  value: string | undefined,
  name: string,
): number | undefined {
  if (value === undefined) return undefined;
  const port = Number(value);
  if (!/^\d{1,5}$/.test(value) || port > 65535) {
    throw new SettingsError(
      `${name} must be an integer from 0 to 65535, got ${
        JSON.stringify(value)
      }`,
    );
  }
  return port;
}

/**
 * A positive integer written as plain digits, at most `max`. Signs,
 * decimals, exponents and spaces are refused.
 *
 * @param value The text, e.g. from `--journal-limit`.
 * @param name How to name the setting in the refusal.
 * @param max The largest value taken.
 * @throws {SettingsError} `<name> must be a positive integer, got "…"`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parsePositiveInteger } from "./settings.ts";
 *
 * assert.equal(parsePositiveInteger("1000", "--journal-limit"), 1000);
 * assert.throws(
 *   () => parsePositiveInteger("0", "--journal-limit"),
 *   /--journal-limit must be a positive integer, got "0"/,
 * );
 * ```
 */
export function parsePositiveInteger(
  value: string,
  name: string,
  max: number = Number.MAX_SAFE_INTEGER,
): number {
  const number = Number(value);
  if (!/^\d+$/.test(value) || number < 1) {
    throw new SettingsError(
      `${name} must be a positive integer, got ${JSON.stringify(value)}`,
    );
  }
  if (number > max) {
    throw new SettingsError(
      `${name} must be at most ${max}, got ${JSON.stringify(value)}`,
    );
  }
  return number;
}

/** A count setting (at most 9999), or `fallback` when unset. */
function parseCount(
  value: string | undefined,
  name: string,
  fallback: number,
): number {
  if (value === undefined || value === "") return fallback;
  return parsePositiveInteger(value, name, 9999);
}

function parseChoice<T extends string>(
  value: string | undefined,
  name: string,
  choices: readonly T[],
): T | undefined {
  if (value === undefined || value === "") return undefined;
  if ((choices as readonly string[]).includes(value)) return value as T;
  throw new SettingsError(
    `${name} must be one of ${choices.join(", ")}, got ${
      JSON.stringify(value)
    }`,
  );
}
