/**
 * OpenTelemetry, end to end: the server (server/main.ts, as a process of the
 * runtime running this file) configured only by the standard `OTEL_*`
 * variables sends its spans to an OTLP/HTTP receiver (http/protobuf and
 * http/json), and a real Prometheus, configured by the documented sample
 * (docs/operating.md),
 * scrapes its `/metrics`; in-process, the handler's spans and metrics through
 * the SDK's in-memory exporters (5xx, export timing, refused exports).
 *
 * @module
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import { context, metrics, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import {
  AggregationTemporality,
  MeterProvider,
  MetricReader,
} from "@opentelemetry/sdk-metrics";
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
} from "@opentelemetry/sdk-trace";
import { createHandler, MemoryStore, type Store } from "../mod.ts";
import { QueryTelemetry } from "../postgres/query_telemetry.ts";
import { readTelemetrySettings } from "../server/settings/settings.ts";
import { apiFixtures, CALLS, TOKENS } from "./support/api_fixtures.ts";
import {
  type OtlpReceiver,
  type ReceivedSpan,
  startOtlpReceiver,
} from "./support/otlp_receiver.ts";
import { codeBlockWith } from "./support/docs.ts";
import { createTestDatabase } from "./support/postgres.ts";
import {
  freePortInRange,
  hasPrometheus,
  type Prometheus,
  startPrometheus,
} from "./support/prometheus.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
const CALLER_SPAN_ID = "b7ad6b7169203331";
const TRACEPARENT = `00-${TRACE_ID}-${CALLER_SPAN_ID}-01`;
const SERVER = 2;
const CLIENT = 3;
const PATIENCE_MS = 20_000;

/** The documented sample Prometheus configuration (docs/operating.md). */
function readmeScrapeConfig(): string {
  return codeBlockWith("docs/operating.md", "yaml", "# prometheus.yml\n");
}

/** The command running server/main.ts on this file's runtime. */
function serverCommand(): [string, string[]] {
  if ("Deno" in globalThis) {
    const deno = (globalThis as unknown as { Deno: { execPath(): string } })
      .Deno;
    return [deno.execPath(), [
      "run",
      "--allow-net",
      "--allow-env",
      "--allow-read",
      "server/main.ts",
    ]];
  }
  return [process.execPath, ["server/main.ts"]];
}

/** A server/main.ts process; `stop()` sends SIGTERM and waits for its exit. */
interface ServerRun {
  url: string;
  output(): string;
  stop(): Promise<number | null>;
}

async function startServer(env: Record<string, string>): Promise<ServerRun> {
  const [command, args] = serverCommand();
  const childEnv: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith("OTEL_")) childEnv[key] = value;
  }
  const child: ChildProcess = spawn(command, args, {
    cwd: ROOT,
    env: {
      ...childEnv,
      PORT: "0",
      HOST: "127.0.0.1",
      DATABASE_URL: "",
      LOG_FORMAT: "json",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.setEncoding("utf8").on("data", (text) => output += text);
  child.stderr!.setEncoding("utf8").on("data", (text) => output += text);
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => resolve(code))
  );
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      process.kill(child.pid!, "SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), PATIENCE_MS);
      const code = await exited;
      clearTimeout(timer);
      return code;
    }
    return child.exitCode;
  };
  const deadline = Date.now() + PATIENCE_MS;
  for (;;) {
    const match = /API listening on (http:\/\/\S+)/.exec(output);
    if (match) return { url: match[1]!, output: () => output, stop };
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`The server did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Retries `check` until it passes, for at most {@linkcode PATIENCE_MS}. */
async function eventually<T>(check: () => Promise<T> | T): Promise<T> {
  const deadline = Date.now() + PATIENCE_MS;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

function spanNamed(spans: ReceivedSpan[], name: string): ReceivedSpan {
  const span = spans.find((candidate) => candidate.name === name);
  assert.ok(span, `no span ${name} in ${spans.map((s) => s.name).join(", ")}`);
  return span;
}

/** Access-log lines of the server's output, parsed. */
function accessLog(output: string): Record<string, unknown>[] {
  return output.split("\n").filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line));
}

async function fixturesFile(dir: string): Promise<string> {
  const path = join(dir, "fixtures.json");
  await writeFile(path, JSON.stringify(apiFixtures));
  return path;
}

/** GETs the first call's messages as the viewer, expecting 200, and drains them. */
async function readCallMessages(
  url: string,
  headers: Record<string, string> = {},
): Promise<void> {
  const messages = await fetch(`${url}/v1/call/${CALLS.first}/message`, {
    headers: { authorization: `Bearer ${TOKENS.viewer}`, ...headers },
  });
  assert.equal(messages.status, 200);
  await messages.arrayBuffer();
}

describe("OpenTelemetry from the OTEL_* variables, a server process", () => {
  let receiver: OtlpReceiver;
  let dir: string;
  before(async () => {
    receiver = await startOtlpReceiver();
    dir = await mkdtemp(join(tmpdir(), "telemetry-"));
  });
  after(async () => {
    await receiver.close();
    await rm(dir, { recursive: true, force: true });
  });

  it(
    "sends http/protobuf spans joining the caller's trace, and a real Prometheus scrapes the per-route series",
    {
      skip: !hasPrometheus() &&
        "no /usr/bin/prometheus (apt-get install prometheus)",
    },
    async () => {
      const metricsPort = await freePortInRange(45100, 45599);
      const server = await startServer({
        FIXTURES: await fixturesFile(dir),
        OTEL_SERVICE_NAME: "callflow-telemetry-test",
        OTEL_TRACES_EXPORTER: "otlp",
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_METRICS_EXPORTER: "prometheus",
        OTEL_EXPORTER_PROMETHEUS_HOST: "127.0.0.1",
        OTEL_EXPORTER_PROMETHEUS_PORT: String(metricsPort),
      });
      let prometheus: Prometheus | undefined;
      try {
        const config = readmeScrapeConfig()
          .replace(/scrape_interval: \S+/, "scrape_interval: 1s")
          .replace("localhost:9464", `127.0.0.1:${metricsPort}`);
        prometheus = await startPrometheus(
          config,
          await freePortInRange(45600, 45999),
        );
        await readCallMessages(server.url, { traceparent: TRACEPARENT });
        const missing = await fetch(
          `${server.url}/v1/call/${CALLS.unknown}/message`,
          {
            headers: { authorization: `Bearer ${TOKENS.viewer}` },
          },
        );
        assert.equal(missing.status, 404);
        await missing.arrayBuffer();

        const series = await eventually(async () => {
          const result = await prometheus!.query(
            'http_server_request_duration_count{job="callflow-api"}',
          );
          assert.ok(result.length >= 2, JSON.stringify(result));
          return result;
        });
        const byStatus = new Map(
          series.map((sample) => [
            sample.metric.http_response_status_code,
            sample.metric,
          ]),
        );
        for (const status of ["200", "404"]) {
          assert.equal(
            byStatus.get(status)?.http_route,
            "/v1/call/{call_id}/message",
          );
          assert.equal(byStatus.get(status)?.http_request_method, "GET");
        }
        const buckets = await prometheus.query(
          'http_server_request_duration_bucket{http_route="/v1/call/{call_id}/message",le="+Inf"}',
        );
        assert.equal(buckets.length, 2);
      } finally {
        await prometheus?.stop();
        assert.equal(await server.stop(), 0, server.output());
      }

      // Spans are batched: the shutdown on SIGTERM flushed them.
      assert.ok(
        [...receiver.contentTypes].includes("application/x-protobuf"),
        [...receiver.contentTypes].join(),
      );
      const span = spanNamed(receiver.spans, "GET /v1/call/{call_id}/message");
      assert.equal(span.traceId, TRACE_ID);
      assert.equal(span.parentSpanId, CALLER_SPAN_ID);
      assert.equal(span.kind, SERVER);
      assert.equal(span.resource["service.name"], "callflow-telemetry-test");
      assert.equal(span.attributes["http.request.method"], "GET");
      assert.equal(span.attributes["http.route"], "/v1/call/{call_id}/message");
      assert.equal(span.attributes["http.response.status_code"], 200);
      assert.equal(span.attributes["error.type"], undefined);
      const line = accessLog(server.output()).find((entry) =>
        entry.status === 200
      );
      assert.equal(line?.trace_id, TRACE_ID);
    },
  );

  it("sends OTLP metrics in http/json when the general protocol says so", async () => {
    receiver.metricNames.clear();
    receiver.contentTypes.clear();
    const server = await startServer({
      FIXTURES: await fixturesFile(dir),
      OTEL_METRICS_EXPORTER: "otlp",
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_METRIC_EXPORT_INTERVAL: "300",
    });
    try {
      await readCallMessages(server.url);
      await eventually(() =>
        assert.ok(
          receiver.metricNames.has("http.server.request.duration"),
          [...receiver.metricNames].join(", "),
        )
      );
    } finally {
      assert.equal(await server.stop(), 0, server.output());
    }
    assert.deepEqual([...receiver.contentTypes], ["application/json"]);
  });

  it("sends http/json spans with Postgres query spans nested, and OTLP metrics", async () => {
    receiver.spans.length = 0;
    receiver.contentTypes.clear();
    const db = await createTestDatabase();
    const server = await startServer({
      DATABASE_URL: db.url,
      DATABASE_POOL_SIZE: String(db.max),
      FIXTURES: await fixturesFile(dir),
      ALLOW_SHORT_TOKENS: "1",
      OTEL_TRACES_EXPORTER: "otlp",
      OTEL_METRICS_EXPORTER: "otlp",
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      // Metrics in protobuf: the per-signal protocol wins.
      OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: "http/protobuf",
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_METRIC_EXPORT_INTERVAL: "300",
    });
    try {
      await readCallMessages(server.url, { traceparent: TRACEPARENT });
      const zip = await fetch(`${server.url}/v1/call/message/bulk`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${TOKENS.viewer}`,
          "content-type": "application/json",
        },
        body: JSON.stringify({ call_ids: [CALLS.first, CALLS.second] }),
      });
      assert.equal(zip.status, 200);
      const size = (await zip.arrayBuffer()).byteLength;
      assert.ok(size > 0);
      await eventually(() => {
        for (
          const name of [
            "http.server.request.duration",
            "callflow.export.size",
            "callflow.export.active",
            "db.client.connection.count",
            "db.client.connection.pending_requests",
          ]
        ) {
          assert.ok(
            receiver.metricNames.has(name),
            `${name} not in ${[...receiver.metricNames].join(", ")}`,
          );
        }
      });
    } finally {
      assert.equal(await server.stop(), 0, server.output());
      await db.drop();
    }
    assert.deepEqual(
      [...receiver.contentTypes].sort(),
      ["application/json", "application/x-protobuf"],
    );
    const request = spanNamed(receiver.spans, "GET /v1/call/{call_id}/message");
    assert.equal(request.traceId, TRACE_ID);
    assert.equal(request.parentSpanId, CALLER_SPAN_ID);
    const queries = receiver.spans.filter((span) =>
      span.traceId === TRACE_ID && span.kind === CLIENT
    );
    assert.deepEqual(queries.map((span) => span.name).sort(), [
      "SELECT call_messages",
      "SELECT tokens",
    ]);
    for (const query of queries) {
      assert.equal(query.parentSpanId, request.spanId);
      assert.equal(query.attributes["db.system"], "postgresql");
      assert.equal(query.attributes["db.operation.name"], "SELECT");
    }
    // The export's batches are read as the ZIP is pulled, yet nest under it.
    const exportSpan = spanNamed(receiver.spans, "POST /v1/call/message/bulk");
    const batches = receiver.spans.filter((span) =>
      span.parentSpanId === exportSpan.spanId &&
      span.name === "SELECT call_messages"
    );
    assert.ok(batches.length >= 1);
  });
});

/** A reader collecting on demand. */
class PullReader extends MetricReader {
  constructor() {
    super({
      aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE,
    });
  }
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

describe("the handler's telemetry, in-process with the SDK", () => {
  const spans = new InMemorySpanExporter();
  const reader = new PullReader();
  const tracerProvider = new TracerProvider({
    spanProcessors: [new SimpleSpanProcessor({ exporter: spans })],
  });
  const meterProvider = new MeterProvider({ readers: [reader] });
  before(() => {
    context.setGlobalContextManager(
      new AsyncLocalStorageContextManager().enable(),
    );
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    trace.setGlobalTracerProvider(tracerProvider);
    metrics.setGlobalMeterProvider(meterProvider);
  });
  after(async () => {
    trace.disable();
    metrics.disable();
    propagation.disable();
    context.disable();
    await tracerProvider.shutdown();
    await meterProvider.shutdown();
  });

  async function seeded(): Promise<MemoryStore> {
    const store = new MemoryStore();
    await store.seed(apiFixtures);
    return store;
  }

  /** A metric's data points, collected now. */
  async function points(
    name: string,
  ): Promise<{ value: unknown; attributes: Record<string, unknown> }[]> {
    const { resourceMetrics } = await reader.collect();
    return resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics)
      .filter((metric) => metric.descriptor.name === name)
      .flatMap((metric) => [...metric.dataPoints]);
  }

  it("marks a 5xx with error.type and an error status", async () => {
    spans.reset();
    const failing: Store = {
      ...new MemoryStore(),
      findGrant: () => Promise.reject(new Error("store down")),
    } as unknown as Store;
    const handler = createHandler({
      store: failing,
      telemetry: true,
      logError: () => {},
    });
    const response = await handler(
      new Request(`http://x/v1/call/${CALLS.first}/message`, {
        headers: { authorization: `Bearer ${TOKENS.viewer}` },
      }),
    );
    assert.equal(response.status, 500);
    await response.arrayBuffer();
    const [span] = spans.getFinishedSpans();
    assert.equal(span?.name, "GET /v1/call/{call_id}/message");
    assert.equal(span?.attributes["error.type"], "500");
    assert.equal(span?.attributes["http.response.status_code"], 500);
    assert.equal(span?.status.code, 2); // ERROR
  });

  it("ends an export's span when its last byte is read, not before", async () => {
    spans.reset();
    const handler = createHandler({ store: await seeded(), telemetry: true });
    const response = await handler(
      new Request("http://x/v1/call/message/bulk", {
        method: "POST",
        headers: {
          authorization: `Bearer ${TOKENS.viewer}`,
          "content-type": "application/json",
        },
        body: JSON.stringify({ call_ids: [CALLS.first, CALLS.second] }),
      }),
    );
    assert.equal(response.status, 200);
    const reader = response.body!.getReader();
    let bytes = (await reader.read()).value!.byteLength;
    assert.deepEqual(spans.getFinishedSpans(), []);
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
    }
    const [span] = spans.getFinishedSpans();
    assert.equal(span?.name, "POST /v1/call/message/bulk");
    assert.equal(span?.attributes["http.response.body.size"], bytes);
    const [exported] = await points("callflow.export.size");
    assert.equal(exported?.value, bytes);
  });

  it("counts exports in flight and refused", async () => {
    const handler = createHandler({
      store: await seeded(),
      telemetry: true,
      maxConcurrentExports: 1,
    });
    const exportRequest = () =>
      new Request("http://x/v1/call/message/bulk", {
        method: "POST",
        headers: {
          authorization: `Bearer ${TOKENS.viewer}`,
          "content-type": "application/json",
        },
        body: JSON.stringify({ call_ids: [CALLS.first] }),
      });
    const held = await handler(exportRequest());
    assert.equal(held.status, 200);
    const refused = await handler(exportRequest());
    assert.equal(refused.status, 503);
    await refused.arrayBuffer();
    assert.deepEqual(
      (await points("callflow.export.active")).map((point) => point.value),
      [1],
    );
    assert.deepEqual(
      (await points("callflow.export.refused")).map((point) => point.value),
      [1],
    );
    await held.arrayBuffer();
    assert.deepEqual(
      (await points("callflow.export.active")).map((point) => point.value),
      [0],
    );
    const durations = await points("http.server.request.duration");
    assert.ok(
      durations.some((point) =>
        point.attributes["http.route"] === "/v1/call/message/bulk" &&
        point.attributes["http.response.status_code"] === 503 &&
        point.attributes["error.type"] === "503"
      ),
    );
  });

  it("nests a statement serving several requests under each of them", async () => {
    spans.reset();
    const telemetry = new QueryTelemetry({
      name: "primary",
      database: "app",
      max: 10,
    });
    const tracer = trace.getTracer("test");
    const requests = [tracer.startSpan("one"), tracer.startSpan("two")];
    const parents = [
      ...requests.map((span) => trace.setSpan(context.active(), span)),
      context.active(), // a request without a span of its own
    ];
    assert.equal(
      await telemetry.run(
        { operation: "SELECT", table: "flows" },
        () => Promise.resolve("rows"),
        parents,
      ),
      "rows",
    );
    assert.deepEqual(telemetry.connections(), { used: 0, waiting: 0 });
    await assert.rejects(
      telemetry.run(
        { operation: "SELECT", table: "flows" },
        () =>
          Promise.reject(Object.assign(new Error("gone"), { code: "57P01" })),
        parents,
      ),
      /gone/,
    );
    telemetry.close();
    for (const span of requests) span.end();
    const queries = spans.getFinishedSpans().filter((span) =>
      span.name === "SELECT flows"
    );
    const ids = requests.map((span) => span.spanContext().spanId).sort();
    assert.deepEqual(
      queries.map((query) => query.parentSpanContext?.spanId).sort(),
      [...ids, ...ids].sort(),
    );
    assert.deepEqual(
      queries.map((query) => query.attributes["error.type"]),
      [undefined, undefined, "57P01", "57P01"],
    );
  });

  it("touches no OpenTelemetry API without telemetry: true", async () => {
    spans.reset();
    const handler = createHandler({ store: await seeded() });
    const response = await handler(
      new Request("http://x/healthz", {
        headers: { traceparent: TRACEPARENT },
      }),
    );
    await response.arrayBuffer();
    assert.deepEqual(spans.getFinishedSpans(), []);
  });
});

describe("reading the OTEL_* variables", () => {
  it("loads nothing unless an exporter is asked for", () => {
    assert.deepEqual(readTelemetrySettings({ OTEL_SERVICE_NAME: "api" }), {});
    assert.deepEqual(
      readTelemetrySettings({
        OTEL_TRACES_EXPORTER: "none",
        OTEL_METRICS_EXPORTER: "none",
      }),
      {},
    );
    assert.deepEqual(
      readTelemetrySettings({
        OTEL_TRACES_EXPORTER: "otlp",
        OTEL_SDK_DISABLED: "true",
      }),
      {},
    );
  });

  it("takes the per-signal protocol over the general one", () => {
    assert.deepEqual(
      readTelemetrySettings({
        OTEL_TRACES_EXPORTER: "otlp",
        OTEL_METRICS_EXPORTER: "otlp",
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: "http/protobuf",
      }),
      {
        traces: { protocol: "http/json" },
        metrics: {
          exporter: "otlp",
          protocol: "http/protobuf",
          intervalMs: 60000,
        },
      },
    );
  });

  it("refuses gRPC, unknown exporters and bad ports, naming the variable", () => {
    assert.throws(
      () =>
        readTelemetrySettings({
          OTEL_TRACES_EXPORTER: "otlp",
          OTEL_EXPORTER_OTLP_PROTOCOL: "grpc",
        }),
      /OTEL_EXPORTER_OTLP_PROTOCOL must be one of http\/protobuf, http\/json, got "grpc"/,
    );
    assert.throws(
      () => readTelemetrySettings({ OTEL_METRICS_EXPORTER: "statsd" }),
      /OTEL_METRICS_EXPORTER must be one of prometheus, otlp, none/,
    );
    assert.throws(
      () =>
        readTelemetrySettings({
          OTEL_METRICS_EXPORTER: "prometheus",
          OTEL_EXPORTER_PROMETHEUS_PORT: "99999",
        }),
      /OTEL_EXPORTER_PROMETHEUS_PORT must be an integer from 0 to 65535/,
    );
  });

  it("refuses OTEL_DENO=true with an exporter under Deno only", () => {
    const env = { OTEL_DENO: "true", OTEL_TRACES_EXPORTER: "otlp" };
    if ("Deno" in globalThis) {
      assert.throws(() => readTelemetrySettings(env), /unset OTEL_DENO/);
    } else {
      assert.deepEqual(readTelemetrySettings(env), {
        traces: { protocol: "http/protobuf" },
      });
    }
  });
});
