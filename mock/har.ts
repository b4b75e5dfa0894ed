/**
 * The request journal as an HTTP Archive (HAR 1.2), the file format browser
 * devtools, Charles, mitmproxy, Insomnia, Postman and k6 read: served at
 * `GET /__mock/journal.har`, returned by `har()` of `createMockApi` and
 * `createMockServer`.
 *
 * @module
 */
import { bodyText, copyHeaders, type NotedRequest } from "./journal.ts";

/** A name and value, as HAR lists headers and query parameters. */
export interface HarPair {
  /** The name. */
  name: string;
  /** The value. */
  value: string;
}

/** One request and its answer, as a HAR entry (with the mock's own fields). */
export interface HarEntry {
  /** When the request arrived (ISO 8601). */
  startedDateTime: string;
  /** Milliseconds from arrival to the answer's last byte. */
  time: number;
  /** The request. */
  request: {
    method: string;
    url: string;
    httpVersion: string;
    cookies: never[];
    headers: HarPair[];
    queryString: HarPair[];
    postData?: { mimeType: string; text: string };
    headersSize: -1;
    bodySize: number;
    comment?: string;
  };
  /** The answer; status 0 when the connection was dropped. */
  response: {
    status: number;
    statusText: string;
    httpVersion: string;
    cookies: never[];
    headers: HarPair[];
    content: {
      size: number;
      mimeType: string;
      text?: string;
      encoding?: "base64";
      comment?: string;
    };
    redirectURL: string;
    headersSize: -1;
    bodySize: number;
    comment?: string;
    /** Why no answer arrived whole (browsers' HAR files say `_error` too). */
    _error?: string;
  };
  /** Nothing is cached. */
  cache: Record<never, never>;
  /** Where the time went: `wait` until the headers, `receive` the body. */
  timings: {
    blocked: -1;
    dns: -1;
    connect: -1;
    ssl: -1;
    send: number;
    wait: number;
    receive: number;
  };
  /** The address the request was sent to, when its URL names one. */
  serverIPAddress?: string;
  /** The journal's number of the entry (1 for the mock's first request). */
  _seq: number;
  /** The API's operationId, `null` for other paths. */
  _operationId: string | null;
  /** The answer's `error_code`, `null` for none. */
  _errorCode: string | null;
  /** The fault rule applied (`fault-1`), `prefer`, or `null`. */
  _fault: string | null;
  /** The request token's role, `null` when no token was accepted. */
  _role: string | null;
  /** The request token's project, `null` when no token was accepted. */
  _projectId: string | null;
}

/** A HAR 1.2 document. */
export interface Har {
  /** The archive. */
  log: {
    version: "1.2";
    creator: { name: string; version: string };
    entries: HarEntry[];
    comment: string;
    /** The journal's number of the newest request so far (0: none yet). */
    _seq: number;
    /** How many times the journal was cleared (a reader starts over). */
    _clears: number;
  };
}

/** What {@linkcode journalHar} reads from the journal. */
export interface HarSource {
  /** The records (see `RequestJournal.records`). */
  records: readonly NotedRequest[];
  /** The number of the newest request so far. */
  seq: number;
  /** How many times the journal was cleared. */
  clears: number;
  /** The journal's body limit in bytes (said in the log's comment). */
  bodyLimit: number;
}

/**
 * The HAR's `creator`: the mock, with the version of its HAR export (the
 * package's version cannot be read where MSW runs the mock: a browser).
 */
const CREATOR = { name: "callflow-api mock", version: "1" };

const STATUS_TEXT: Record<number, string> = {
  200: "OK",
  201: "Created",
  204: "No Content",
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  422: "Unprocessable Content",
  429: "Too Many Requests",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

/** A media type whose body HAR holds as text; any other is base64. */
const TEXTUAL = /^(text\/|application\/([\w.+-]*\+)?(json|xml)\b)/i;
const decoder = new TextDecoder();
const encoder = new TextEncoder();

/**
 * The journal's records as a HAR 1.2 document: one entry per request, oldest
 * first. Request bodies are the journal's (UTF-8 text, cut at its body
 * limit: then `comment` says so); answer bodies are text for JSON and text
 * media types, base64 for any other (the export's ZIP), and left out past
 * the journal's body limit (`content.size` is then the `Content-Length`, or
 * -1, and `content.comment` says why). `Authorization` stays masked. A
 * dropped connection has status 0 and `_error`; so does an answer a fault
 * cut short. Waits for the bodies still being read.
 *
 * @param source The journal's records and counters.
 * @returns The document.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMockState } from "./mock_state.ts";
 *
 * const state = createMockState();
 * await state.handler(new Request("http://127.0.0.1:4010/healthz"));
 * const har = await state.har();
 * assert.equal(har.log.entries[0]!.request.url, "http://127.0.0.1:4010/healthz");
 * assert.equal(har.log.entries[0]!.serverIPAddress, "127.0.0.1");
 * ```
 */
export async function journalHar(source: HarSource): Promise<Har> {
  const { records } = source;
  await Promise.all(records.map((record) => record.responseBody?.done));
  return {
    log: {
      version: "1.2",
      creator: CREATOR,
      entries: records.map((record) => harEntry(record, source.bodyLimit)),
      comment:
        `Recorded by the callflow-api mock. Authorization values are masked; bodies over ${source.bodyLimit} bytes are cut (requests) or left out (answers).`,
      _seq: source.seq,
      _clears: source.clears,
    },
  };
}

function harEntry(record: NotedRequest, bodyLimit: number): HarEntry {
  const requestHeaders = headerRecord(record, "headers")!;
  const responseHeaders = headerRecord(record, "responseHeaders");
  const body = record.responseBody;
  const receive = body?.receiveMs ?? 0;
  const address = ipAddress(record.origin);
  const error = record.status === null
    ? `Connection dropped${
      record.fault === null ? "" : ` by fault ${record.fault}`
    }`
    : body?.error ?? undefined;
  const mimeType = header(responseHeaders ?? {}, "content-type") ?? "";
  const requestBody = bodyText(record);
  return {
    startedDateTime: record.time,
    time: record.duration_ms + receive,
    request: {
      method: record.method,
      url: `${record.origin}${record.path}${
        record.query === "" ? "" : `?${record.query}`
      }`,
      httpVersion: "HTTP/1.1",
      cookies: [],
      headers: pairs(requestHeaders),
      queryString: [...new URLSearchParams(record.query)].map((
        [name, value],
      ) => ({ name, value })),
      ...(requestBody === null ? {} : {
        postData: {
          mimeType: requestHeaders["content-type"] ?? "",
          text: requestBody,
        },
      }),
      headersSize: -1,
      bodySize: requestBody === null
        ? 0
        : Number(requestHeaders["content-length"] ?? -1),
      ...(record.body_truncated
        ? { comment: `Body cut at the journal's limit of ${bodyLimit} bytes` }
        : {}),
    },
    response: {
      status: record.status ?? 0,
      statusText: record.status === null
        ? ""
        : STATUS_TEXT[record.status] ?? "",
      httpVersion: record.status === null ? "" : "HTTP/1.1",
      cookies: [],
      headers: pairs(responseHeaders ?? {}),
      content: content(body, mimeType, bodyLimit),
      redirectURL: header(responseHeaders ?? {}, "location") ?? "",
      headersSize: -1,
      bodySize: body?.size ?? 0,
      ...(error === undefined ? {} : { _error: error, comment: error }),
    },
    cache: {},
    timings: {
      blocked: -1,
      dns: -1,
      connect: -1,
      ssl: -1,
      send: 0,
      wait: record.duration_ms,
      receive,
    },
    ...(address === undefined ? {} : { serverIPAddress: address }),
    _seq: record.seq,
    _operationId: record.operation,
    _errorCode: record.error_code,
    _fault: record.fault,
    _role: record.grant?.role ?? null,
    _projectId: record.grant?.projectId ?? null,
  };
}

function content(
  body: NotedRequest["responseBody"],
  mimeType: string,
  bodyLimit: number,
): HarEntry["response"]["content"] {
  if (body === null) return { size: 0, mimeType };
  if (body.content === null) {
    return {
      size: body.size,
      mimeType,
      comment: body.error === null
        ? `Left out: over the journal's limit of ${bodyLimit} bytes`
        : "Left out: the body did not arrive whole",
    };
  }
  if (typeof body.content === "string") {
    return TEXTUAL.test(mimeType)
      ? { size: body.size, mimeType, text: body.content }
      : {
        size: body.size,
        mimeType,
        text: base64(encoder.encode(body.content)),
        encoding: "base64",
      };
  }
  return TEXTUAL.test(mimeType)
    ? { size: body.size, mimeType, text: decoder.decode(body.content) }
    : {
      size: body.size,
      mimeType,
      text: base64(body.content),
      encoding: "base64",
    };
}

/**
 * A record's headers as a record, copied from the `Headers` once (the copy
 * is kept in the record, so that the request's own headers can go).
 */
function headerRecord(
  record: NotedRequest,
  key: "headers" | "responseHeaders",
): Record<string, string> | null {
  const headers = record[key];
  if (!(headers instanceof Headers)) return headers;
  const copy = copyHeaders(headers);
  record[key] = copy;
  return copy;
}

/** A header's value by name, whatever the case of the record's names. */
function header(
  headers: Record<string, string>,
  name: string,
): string | undefined {
  if (name in headers) return headers[name];
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return value;
  }
  return undefined;
}

function pairs(headers: Record<string, string>): HarPair[] {
  return Object.entries(headers).map(([name, value]) => ({ name, value }));
}

/** The IP address an origin names (IPv6 without brackets), if it names one. */
function ipAddress(origin: string): string | undefined {
  let hostname: string;
  try {
    hostname = new URL(origin).hostname;
  } catch {
    return undefined;
  }
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(hostname)) return hostname;
  if (hostname.startsWith("[")) return hostname.slice(1, -1);
  return undefined;
}

function base64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}
