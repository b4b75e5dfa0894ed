/**
 * An OTLP/HTTP receiver for tests: collects the spans and metric names POSTed
 * to `/v1/traces` and `/v1/metrics`, in `http/protobuf` (decoded here from
 * the wire format, independently of the exporters' own serializers) or
 * `http/json`.
 *
 * @module
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** An attribute value as received. */
export type AttributeValue = string | number | boolean;

/** A span as received. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP's enum: 2 server, 3 client. */
  kind: number;
  attributes: Record<string, AttributeValue>;
  /** The resource's attributes (`service.name`, ...). */
  resource: Record<string, AttributeValue>;
}

/** A running receiver. */
export interface OtlpReceiver {
  /** Its base URL, for `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  url: string;
  spans: ReceivedSpan[];
  /** Names of the metrics received. */
  metricNames: Set<string>;
  /** The content types of the requests received. */
  contentTypes: Set<string>;
  close(): Promise<void>;
}

/** Starts a receiver on 127.0.0.1 and a free port. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const metricNames = new Set<string>();
  const contentTypes = new Set<string>();
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = new Uint8Array(Buffer.concat(chunks));
      const type = request.headers["content-type"] ?? "";
      contentTypes.add(type);
      const json = type.startsWith("application/json");
      if (request.url === "/v1/traces") {
        spans.push(...(json ? jsonSpans(body) : protobufSpans(body)));
      } else if (request.url === "/v1/metrics") {
        for (
          const name of json ? jsonMetricNames(body) : protobufMetricNames(body)
        ) {
          metricNames.add(name);
        }
      }
      response.writeHead(200, {
        "content-type": json ? "application/json" : "application/x-protobuf",
      });
      response.end(json ? "{}" : "");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    metricNames,
    contentTypes,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

// --- http/json

interface JsonKeyValue {
  key: string;
  value: Record<string, unknown>;
}

function jsonAttributes(
  list: JsonKeyValue[] = [],
): Record<string, AttributeValue> {
  const attributes: Record<string, AttributeValue> = {};
  for (const { key, value } of list) {
    const [kind, raw] = Object.entries(value)[0] ?? [];
    attributes[key] = kind === "intValue" ? Number(raw) : raw as AttributeValue;
  }
  return attributes;
}

function jsonSpans(body: Uint8Array): ReceivedSpan[] {
  const request = JSON.parse(new TextDecoder().decode(body));
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of request.resourceSpans ?? []) {
    const resource = jsonAttributes(resourceSpans.resource?.attributes);
    for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
      for (const span of scopeSpans.spans ?? []) {
        spans.push({
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId ?? "",
          name: span.name,
          kind: span.kind,
          attributes: jsonAttributes(span.attributes),
          resource,
        });
      }
    }
  }
  return spans;
}

function jsonMetricNames(body: Uint8Array): string[] {
  const request = JSON.parse(new TextDecoder().decode(body));
  return (request.resourceMetrics ?? []).flatMap((resource: {
    scopeMetrics?: { metrics?: { name: string }[] }[];
  }) =>
    (resource.scopeMetrics ?? []).flatMap((scope) =>
      (scope.metrics ?? []).map((metric) => metric.name)
    )
  );
}

// --- http/protobuf: the wire format, read field by field

/** A message's fields by number: varints as bigint, the rest as bytes. */
type Fields = Map<number, (bigint | Uint8Array)[]>;

function decode(bytes: Uint8Array): Fields {
  const fields: Fields = new Map();
  let offset = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const byte = bytes[offset++]!;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
    }
  };
  while (offset < bytes.length) {
    const key = Number(varint());
    const [field, wireType] = [key >> 3, key & 7];
    let value: bigint | Uint8Array;
    if (wireType === 0) value = varint();
    else if (wireType === 1) value = bytes.subarray(offset, offset += 8);
    else if (wireType === 5) value = bytes.subarray(offset, offset += 4);
    else if (wireType === 2) {
      const length = Number(varint());
      value = bytes.subarray(offset, offset += length);
    } else throw new Error(`Cannot decode wire type ${wireType}`);
    fields.set(field, [...fields.get(field) ?? [], value]);
  }
  return fields;
}

const messages = (fields: Fields, field: number) =>
  (fields.get(field) ?? []).map((value) => decode(value as Uint8Array));
const text = (fields: Fields, field: number) =>
  new TextDecoder().decode(
    (fields.get(field)?.[0] as Uint8Array) ?? new Uint8Array(),
  );
const hex = (fields: Fields, field: number) =>
  [...(fields.get(field)?.[0] as Uint8Array | undefined) ?? []]
    .map((byte) => byte.toString(16).padStart(2, "0")).join("");

function protobufAttributes(list: Fields[]): Record<string, AttributeValue> {
  const attributes: Record<string, AttributeValue> = {};
  for (const keyValue of list) {
    const value = messages(keyValue, 2)[0] ?? new Map();
    if (value.has(1)) attributes[text(keyValue, 1)] = text(value, 1);
    else if (value.has(2)) {
      attributes[text(keyValue, 1)] = value.get(2)![0] === 1n;
    } else if (value.has(3)) {
      attributes[text(keyValue, 1)] = Number(value.get(3)![0]);
    } else if (value.has(4)) {
      const bytes = value.get(4)![0] as Uint8Array;
      attributes[text(keyValue, 1)] = new DataView(
        bytes.buffer,
        bytes.byteOffset,
        8,
      ).getFloat64(0, true);
    }
  }
  return attributes;
}

function protobufSpans(body: Uint8Array): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of messages(decode(body), 1)) {
    const resource = protobufAttributes(
      messages(messages(resourceSpans, 1)[0] ?? new Map(), 1),
    );
    for (const scopeSpans of messages(resourceSpans, 2)) {
      for (const span of messages(scopeSpans, 2)) {
        spans.push({
          traceId: hex(span, 1),
          spanId: hex(span, 2),
          parentSpanId: hex(span, 4),
          name: text(span, 5),
          kind: Number(span.get(6)?.[0] ?? 0n),
          attributes: protobufAttributes(messages(span, 9)),
          resource,
        });
      }
    }
  }
  return spans;
}

function protobufMetricNames(body: Uint8Array): string[] {
  return messages(decode(body), 1).flatMap((resourceMetrics) =>
    messages(resourceMetrics, 2).flatMap((scopeMetrics) =>
      messages(scopeMetrics, 2).map((metric) => text(metric, 1))
    )
  );
}
