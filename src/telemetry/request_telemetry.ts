/**
 * The handler's OpenTelemetry instrumentation, through `@opentelemetry/api`
 * only: a no-op until an SDK registers itself (the server does, from the
 * standard `OTEL_*` variables; see server/observability/telemetry_sdk.ts). Per request: a
 * server span named `METHOD route` that continues an incoming W3C
 * `traceparent` and ends when the body's last byte is handed over, and the
 * `http.server.request.duration` histogram; per export: its bytes, the
 * exports in flight and the exports refused.
 *
 * @module
 */
import {
  type Attributes,
  context,
  type Counter,
  type Histogram,
  metrics,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  trace,
  type Tracer,
} from "@opentelemetry/api";
import type { AbortCause } from "../http/mod.ts";
import type { ExportSlots } from "../operations/mod.ts";

/** The instrumentation scope of everything the API reports. */
export const INSTRUMENTATION_SCOPE = "@callflow/api";

/** The route of the bulk export, whose bytes and slots are measured. */
const EXPORT_ROUTE = "/v1/call/message/bulk";

/** The methods semantic conventions name; any other is `_OTHER`. */
const KNOWN_METHODS = new Set([
  "CONNECT",
  "DELETE",
  "GET",
  "HEAD",
  "OPTIONS",
  "PATCH",
  "POST",
  "PUT",
  "TRACE",
]);

/** The bucket boundaries semantic conventions advise, in seconds. */
const DURATION_BUCKETS = [
  0.005,
  0.01,
  0.025,
  0.05,
  0.075,
  0.1,
  0.25,
  0.5,
  0.75,
  1,
  2.5,
  5,
  7.5,
  10,
];

/** Reads a request's headers for the propagator (`traceparent`, ...). */
const HEADER_GETTER: TextMapGetter<Headers> = {
  keys: (headers) => [...headers.keys()],
  get: (headers, key) => headers.get(key) ?? undefined,
};

/** How a request ended, as the instrumentation records it. */
export interface RequestOutcome {
  /** The route's pattern, e.g. `/v1/call/{call_id}/message`; none for a 404. */
  route: string | undefined;
  /** The response status. */
  status: number;
  /** Body bytes handed over. */
  bytes: number;
  /** Set when the body did not end normally. */
  aborted: AbortCause | undefined;
  /** The response's `error_code`, if it is an error. */
  errorCode: string | undefined;
}

/** One request being traced: see {@linkcode RequestTelemetry.start}. */
export interface TracedRequest {
  /** The trace id of the request's span, for the access log; none unsampled. */
  readonly traceId: string | undefined;
  /** Runs `work` with the request's span active (store spans nest under it). */
  run<T>(work: () => T): T;
  /** Ends the span and records the metrics; call once. */
  end(outcome: RequestOutcome): void;
}

/**
 * The instruments of one handler. `start` is called as a request arrives.
 *
 * @example Tracing a request (a no-op here: no SDK is registered)
 * ```ts
 * import assert from "node:assert/strict";
 * import { ExportSlots } from "../operations/export_slots.ts";
 * import { RequestTelemetry } from "./request_telemetry.ts";
 *
 * const telemetry = new RequestTelemetry(new ExportSlots());
 * const traced = telemetry.start(new Request("http://x/healthz"));
 * assert.equal(traced.run(() => 42), 42);
 * traced.end({
 *   route: "/healthz", status: 200, bytes: 15,
 *   aborted: undefined, errorCode: undefined,
 * });
 * assert.equal(traced.traceId, undefined); // nothing records it
 * ```
 */
export class RequestTelemetry {
  readonly #tracer: Tracer;
  readonly #duration: Histogram;
  readonly #exportBytes: Counter;
  readonly #exportsRefused: Counter;

  /**
   * Creates the tracer and the instruments from the global providers.
   *
   * @param exportSlots The handler's export slots, whose `running` count is
   *   reported as the exports in flight.
   */
  constructor(exportSlots: ExportSlots) {
    this.#tracer = trace.getTracer(INSTRUMENTATION_SCOPE);
    const meter = metrics.getMeter(INSTRUMENTATION_SCOPE);
    this.#duration = meter.createHistogram("http.server.request.duration", {
      description: "Duration of HTTP server requests, to the body's last byte",
      unit: "s",
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    });
    this.#exportBytes = meter.createCounter("callflow.export.size", {
      description: "Bytes of bulk-export ZIPs handed over for sending",
      unit: "By",
    });
    meter.createObservableUpDownCounter("callflow.export.active", {
      description: "Bulk exports holding a slot now (streaming or starting)",
      unit: "{export}",
    }).addCallback((result) => result.observe(exportSlots.running));
    this.#exportsRefused = meter.createCounter("callflow.export.refused", {
      description: "Bulk exports refused with 503 TOO_MANY_EXPORTS",
      unit: "{export}",
    });
  }

  /**
   * Starts a request's server span, as a child of the caller's span when
   * the request carries a W3C `traceparent`.
   *
   * @param request The incoming request.
   * @returns The traced request.
   */
  start(request: Request): TracedRequest {
    const started = performance.now();
    const method = KNOWN_METHODS.has(request.method)
      ? request.method
      : "_OTHER";
    const scheme = request.url.startsWith("https:") ? "https" : "http";
    // Semantic conventions name a span of an unknown method `HTTP`.
    const spanName = method === "_OTHER" ? "HTTP" : method;
    const parent = propagation.extract(
      context.active(),
      request.headers,
      HEADER_GETTER,
    );
    const span = this.#tracer.startSpan(spanName, {
      kind: SpanKind.SERVER,
      attributes: {
        "http.request.method": method,
        "url.scheme": scheme,
      },
    }, parent);
    const active = trace.setSpan(parent, span);
    return {
      traceId: span.isRecording() ? span.spanContext().traceId : undefined,
      run: <T>(work: () => T): T => context.with(active, work),
      end: (outcome) => {
        const attributes: Attributes = {
          "http.request.method": method,
          "url.scheme": scheme,
          "http.response.status_code": outcome.status,
        };
        if (outcome.route !== undefined) {
          attributes["http.route"] = outcome.route;
        }
        if (outcome.status >= 500) {
          attributes["error.type"] = String(outcome.status);
        }
        if (outcome.route !== undefined) {
          span.updateName(`${spanName} ${outcome.route}`);
        }
        this.#endSpan(span, outcome, attributes);
        this.#duration.record((performance.now() - started) / 1000, attributes);
        if (outcome.route !== EXPORT_ROUTE) return;
        if (outcome.errorCode === "TOO_MANY_EXPORTS") {
          this.#exportsRefused.add(1);
        } else if (outcome.status === 200) {
          this.#exportBytes.add(outcome.bytes, {
            "callflow.export.outcome": outcome.aborted ?? "complete",
          });
        }
      },
    };
  }

  #endSpan(span: Span, outcome: RequestOutcome, attributes: Attributes): void {
    span.setAttributes(attributes);
    span.setAttribute("http.response.body.size", outcome.bytes);
    if (outcome.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    if (outcome.aborted !== undefined) {
      span.setAttribute("callflow.response.aborted", outcome.aborted);
    }
    span.end();
  }
}
