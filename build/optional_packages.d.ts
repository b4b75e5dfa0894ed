// The OpenTelemetry SDK packages are optional dependencies: npm skips them on
// a Node older than their engines (22.15), as it runs on many machines. The
// build must work without them, so where one is not installed its imports
// are typed `any` here; where it is installed, its own types win (TypeScript
// looks for a package's files before an ambient declaration). `deno check`
// in `npm test` checks server/observability/telemetry_sdk.ts against the real types.
declare module "@opentelemetry/context-async-hooks";
declare module "@opentelemetry/core";
declare module "@opentelemetry/exporter-metrics-otlp-http";
declare module "@opentelemetry/exporter-metrics-otlp-proto";
declare module "@opentelemetry/exporter-prometheus";
declare module "@opentelemetry/exporter-trace-otlp-http";
declare module "@opentelemetry/exporter-trace-otlp-proto";
declare module "@opentelemetry/resources";
declare module "@opentelemetry/sdk-metrics";
declare module "@opentelemetry/sdk-trace";
