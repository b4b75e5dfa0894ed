/**
 * The OpenTelemetry JS SDK, set up from {@linkcode TelemetrySettings} (the
 * standard `OTEL_*` variables) as the global providers `@opentelemetry/api`
 * hands the handler and the Postgres store. Loaded by dynamic import only
 * when a variable asks for it, on Node, Bun and Deno alike; the packages are
 * optional dependencies of `@callflow/api`.
 *
 * @module
 */
import type { TelemetrySettings } from "../settings/settings.ts";

/** The SDK, running: flush and stop it on shutdown. */
export interface Telemetry {
  /** What runs, for the start-up line, e.g. `traces otlp http/protobuf`. */
  description: string;
  /** Exports what is pending, then stops the exporters (and `/metrics`). */
  shutdown(): Promise<void>;
}

/** The service name when `OTEL_SERVICE_NAME` is unset. */
const DEFAULT_SERVICE_NAME = "callflow-api";

/**
 * Registers the SDK's tracer and meter providers globally, as the settings
 * ask; does nothing (and loads nothing) when they ask for nothing. Call it
 * before the handler and the store are created: the metrics API has no
 * proxy, so instruments made earlier stay no-ops.
 *
 * @param settings The exporters to run.
 * @returns The running SDK, or `undefined` when nothing is asked for.
 * @throws {Error} naming the package to install when an optional one is
 *   missing, or the Prometheus port's listen error.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { startTelemetry } from "./telemetry_sdk.ts";
 *
 * assert.equal(await startTelemetry({}), undefined);
 * ```
 */
export async function startTelemetry(
  settings: TelemetrySettings,
): Promise<Telemetry | undefined> {
  const { traces, metrics: metricsSettings } = settings;
  if (traces === undefined && metricsSettings === undefined) return undefined;
  const api = await loadOptional(() => import("@opentelemetry/api"));
  const resources = await loadOptional(() =>
    import("@opentelemetry/resources")
  );
  const resource = resources.resourceFromAttributes({
    "service.name": DEFAULT_SERVICE_NAME,
  }).merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const stops: (() => Promise<void>)[] = [];
  const parts: string[] = [];

  if (traces !== undefined) {
    const [sdk, core, hooks, exporters] = await Promise.all([
      loadOptional(() => import("@opentelemetry/sdk-trace")),
      loadOptional(() => import("@opentelemetry/core")),
      loadOptional(() => import("@opentelemetry/context-async-hooks")),
      traces.protocol === "http/json"
        ? loadOptional(() => import("@opentelemetry/exporter-trace-otlp-http"))
        : loadOptional(() =>
          import("@opentelemetry/exporter-trace-otlp-proto")
        ),
    ]);
    const provider = new sdk.TracerProvider({
      resource,
      spanProcessors: [
        new sdk.BatchSpanProcessor({
          exporter: new exporters.OTLPTraceExporter(),
        }),
      ],
    });
    api.context.setGlobalContextManager(
      new hooks.AsyncLocalStorageContextManager().enable(),
    );
    api.propagation.setGlobalPropagator(
      new core.CompositePropagator({
        propagators: [
          new core.W3CTraceContextPropagator(),
          new core.W3CBaggagePropagator(),
        ],
      }),
    );
    api.trace.setGlobalTracerProvider(provider);
    stops.push(() => provider.shutdown());
    parts.push(`traces otlp ${traces.protocol}`);
  }

  if (metricsSettings !== undefined) {
    const sdk = await loadOptional(() => import("@opentelemetry/sdk-metrics"));
    let reader: InstanceType<typeof sdk.MetricReader>;
    if (metricsSettings.exporter === "prometheus") {
      const { PrometheusExporter } = await loadOptional(() =>
        import("@opentelemetry/exporter-prometheus")
      );
      const { host, port } = metricsSettings;
      reader = await new Promise((resolve, reject) => {
        const exporter: InstanceType<typeof PrometheusExporter> =
          new PrometheusExporter(
            { host, port },
            (error: Error | void) =>
              error === undefined || error === null
                ? resolve(exporter)
                : reject(
                  new Error(
                    `Cannot serve Prometheus metrics on ${host}:${port}: ${error.message}`,
                  ),
                ),
          );
      });
      parts.push(`metrics on http://${host}:${port}/metrics`);
    } else {
      const exporters = metricsSettings.protocol === "http/json"
        ? await loadOptional(() =>
          import("@opentelemetry/exporter-metrics-otlp-http")
        )
        : await loadOptional(() =>
          import("@opentelemetry/exporter-metrics-otlp-proto")
        );
      reader = new sdk.PeriodicExportingMetricReader({
        exporter: new exporters.OTLPMetricExporter(),
        exportIntervalMillis: metricsSettings.intervalMs,
      });
      parts.push(`metrics otlp ${metricsSettings.protocol}`);
    }
    const provider = new sdk.MeterProvider({ resource, readers: [reader] });
    api.metrics.setGlobalMeterProvider(provider);
    stops.push(() => provider.shutdown());
  }

  return {
    description: `OpenTelemetry: ${parts.join(", ")}`,
    shutdown: async () => {
      await Promise.allSettled(stops.map((stop) => stop()));
    },
  };
}

/**
 * Imports an optional package, naming it when it is not installed (any
 * other failure is thrown as it is).
 *
 * @param importer The dynamic import.
 * @returns The module.
 * @throws {Error} `Cannot start OpenTelemetry: <package> is missing (...)`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadOptional } from "./telemetry_sdk.ts";
 *
 * const absent = "@opentelemetry/not-installed";
 * await assert.rejects(
 *   loadOptional(() => import(absent)),
 *   /Cannot start OpenTelemetry: @opentelemetry\/not-installed is missing/,
 * );
 * ```
 */
export async function loadOptional<T>(importer: () => Promise<T>): Promise<T> {
  try {
    return await importer();
  } catch (error) {
    const name = /@opentelemetry\/[\w-]+/.exec(String(error))?.[0];
    if (name === undefined) throw error;
    throw new Error(
      `Cannot start OpenTelemetry: ${name} is missing (an optional dependency of @callflow/api: install it, or unset the OTEL_*_EXPORTER variables)`,
      { cause: error },
    );
  }
}
