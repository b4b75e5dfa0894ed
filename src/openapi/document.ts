/**
 * The OpenAPI 3.1 description of the API, served at `GET /openapi.json`:
 * typed bodies, every status the server answers with its error codes,
 * response headers, and examples taken from the demo server.
 *
 * @module
 */
import { type Example, EXAMPLE_IDS, examples } from "./examples.ts";

type ExampleName = keyof typeof examples;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const header = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** The `examples` of a media type, by name. */
function examplesOf(names: readonly ExampleName[]): Record<string, Example> {
  return Object.fromEntries(names.map((name) => [name, examples[name]]));
}

/** A JSON response with its schema and examples; every answer has `X-Request-Id`. */
function jsonResponse(
  description: string,
  schema: unknown,
  names: readonly ExampleName[],
  headers: Record<string, unknown> = {},
) {
  return {
    description,
    headers: { "X-Request-Id": header("XRequestId"), ...headers },
    content: {
      "application/json": { schema, examples: examplesOf(names) },
    },
  };
}

/**
 * An ErrorResponseSchema response whose `error_code` is one of `codes`
 * (the examples' codes).
 */
function errorResponse(
  description: string,
  names: readonly ExampleName[],
  headers: Record<string, unknown> = {},
) {
  const codes = [
    ...new Set(names.map((name) => {
      const value = examples[name].value as { error_code: string };
      return value.error_code;
    })),
  ];
  return jsonResponse(
    description,
    {
      allOf: [
        ref("ErrorResponseSchema"),
        {
          type: "object",
          properties: { error_code: { type: "string", enum: codes } },
        },
      ],
    },
    names,
    headers,
  );
}

const uuidPathParam = (name: string, example: string) => ({
  name,
  in: "path",
  required: true,
  description: `The ${name.replace("_id", "")}'s id, a UUID`,
  schema: { type: "string", format: "uuid", title: name },
  example,
});

const unauthorized = errorResponse(
  "Missing, malformed or unknown bearer token (`UNAUTHORIZED`), with a `WWW-Authenticate: Bearer` challenge",
  ["unauthorizedMissing", "unauthorizedInvalid"],
  { "WWW-Authenticate": header("WWWAuthenticate") },
);
const methodNotAllowed = errorResponse(
  "Another method than this path's (`METHOD_NOT_ALLOWED`); `Allow` lists the path's methods",
  ["methodNotAllowed"],
  { Allow: header("Allow") },
);
const unexpected = errorResponse(
  "Unexpected failure, a store failure included (`INTERNAL_SERVER_ERROR`); the message carries the request id",
  ["unexpected"],
);
const validationError = (names: readonly ExampleName[]) =>
  jsonResponse("Validation Error", ref("HTTPValidationError"), names);
const bodyNotTaken = errorResponse(
  "A request body over 64 KiB on a route that takes none (`PAYLOAD_TOO_LARGE`), and the connection closed; a smaller one is read and ignored",
  ["bodyNotTaken"],
);
const tooManyFailedAuthentications = errorResponse(
  "Too many unknown tokens from this client address in the window (`TOO_MANY_FAILED_AUTHENTICATIONS`); retry after `Retry-After` seconds. The store is not asked meanwhile.",
  ["tooManyFailedAuthentications"],
  { "Retry-After": header("RetryAfter") },
);

/**
 * A response with OpenAPI `links`: how a value of this call gives the
 * parameters of a next one, for tools that chain calls.
 */
function withLinks<T extends object>(
  response: T,
  links: Record<string, unknown>,
): T & { links: Record<string, unknown> } {
  return { ...response, links };
}

/** The hardening headers every answer carries (src/http/hardening_headers.ts). */
const PUBLIC_HEADERS = {
  "X-Content-Type-Options": header("XContentTypeOptions"),
};

/** ...and those of every answer of a route that needs a token. */
const PRIVATE_HEADERS = {
  ...PUBLIC_HEADERS,
  "Cache-Control": header("CacheControl"),
};

/** An OpenAPI response object. */
interface ResponseObject {
  description: string;
  headers?: Record<string, unknown>;
  [field: string]: unknown;
}

/** Declares `headers` on each of `responses`, beside their own. */
function withHeaders(
  headers: Record<string, unknown>,
  responses: Record<string, ResponseObject>,
): Record<string, ResponseObject> {
  return Object.fromEntries(
    Object.entries(responses).map(([status, response]) => [
      status,
      { ...response, headers: { ...response.headers, ...headers } },
    ]),
  );
}

/** The address the document names when it is not served (`npm start`'s). */
export const DEFAULT_SERVER_URL = "http://127.0.0.1:8787";

/** The shape of {@linkcode openApiDocument}. */
export interface OpenApiDocument {
  /** The OpenAPI version the document follows, `3.1.0`. */
  openapi: string;
  /** The API's title, version, description, contact and license. */
  info: {
    title: string;
    version: string;
    description: string;
    contact: { name: string; url: string };
    license: { name: string; identifier: string };
  };
  /**
   * Where the API is served: the address the document was served from,
   * then any deployment, its `baseUrl` a variable.
   */
  servers: {
    url: string;
    description: string;
    variables?: Record<string, { default: string; description: string }>;
  }[];
  /** The security requirements of every operation: a bearer token. */
  security: Record<string, string[]>[];
  /** The operations' groups. */
  tags: { name: string; description: string }[];
  /** The operations, by path, then by lowercase HTTP method. */
  paths: Record<string, Record<string, unknown>>;
  /** The security schemes, headers and schemas the operations refer to. */
  components: {
    securitySchemes: Record<string, unknown>;
    headers: Record<string, unknown>;
    schemas: Record<string, unknown>;
  };
}

/**
 * The OpenAPI document, naming {@linkcode DEFAULT_SERVER_URL} as its server;
 * `GET /openapi.json` serves {@linkcode openApiDocumentFor} the address it
 * was asked at. Its schemas are the spec's; the tests check every response
 * the handler gives against them, and every example against the demo server.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openApiDocument } from "./document.ts";
 *
 * assert.equal(openApiDocument.openapi, "3.1.0");
 * assert.ok("/v1/call/message/bulk" in openApiDocument.paths);
 * assert.equal(openApiDocument.servers[0]?.url, "http://127.0.0.1:8787");
 * ```
 */
export const openApiDocument: OpenApiDocument = {
  openapi: "3.1.0",
  info: {
    title: "Call, Integration and Workflow API",
    version: "0.1.0",
    description:
      "Bulk transcript export, integration deletion and workflow trigger tests. Every answer carries `X-Request-Id` and `X-Content-Type-Options: nosniff`, every answer of a route that needs a token `Cache-Control: no-store`; errors are `ErrorResponseSchema` bodies whose `error_code` is one of `ErrorCode`, request validation errors FastAPI's `HTTPValidationError`. Every GET route also answers HEAD.",
    contact: {
      name: "Callflow API",
      url: "https://github.com/callflow/api",
    },
    license: { name: "MIT", identifier: "MIT" },
  },
  servers: serversFor(DEFAULT_SERVER_URL),
  security: [{ HTTPBearer: [] }],
  tags: [
    { name: "calls", description: "Call transcripts" },
    { name: "integrations", description: "A project's integrations" },
    { name: "workflows", description: "Workflow triggers" },
    { name: "probes", description: "Liveness and readiness, no token" },
  ],
  paths: {
    "/healthz": {
      get: {
        operationId: "healthz",
        tags: ["probes"],
        summary: "Liveness probe",
        description:
          "The process answers. Touches no store; needs no token. Not in the access log at the default level.",
        security: [],
        responses: withHeaders(PUBLIC_HEADERS, {
          "200": jsonResponse("The process is up", ref("HealthResponse"), [
            "healthy",
          ]),
          "405": methodNotAllowed,
          "413": bodyNotTaken,
        }),
      },
    },
    "/readyz": {
      get: {
        operationId: "readyz",
        tags: ["probes"],
        summary: "Readiness probe",
        description:
          "The store answers a trivial query within a short deadline (2 s by default). Needs no token. Not in the access log at the default level. A store that serves degraded (a read replica down, reads going to the primary) is still ready: `status` is `degraded` and `detail` says why. While the server shuts down, 503.",
        security: [],
        responses: withHeaders(PUBLIC_HEADERS, {
          "200": jsonResponse("Ready to serve", ref("ReadinessResponse"), [
            "ready",
          ]),
          "405": methodNotAllowed,
          "413": bodyNotTaken,
          "503": errorResponse(
            "The store did not answer in time, or the server is shutting down (`SERVICE_UNAVAILABLE`)",
            ["notReady"],
          ),
        }),
      },
    },
    "/v1/call/message/bulk": {
      post: {
        operationId: "bulkDownloadTranscripts",
        tags: ["calls"],
        summary: "Bulk download transcripts",
        description:
          "A ZIP with one `<call_id>.json` per requested call that has messages, each holding the call's message list (as `listCallMessages` returns it). Calls without messages, unknown calls and other projects' calls are skipped; duplicate ids give one file. The archive is streamed as it is written.",
        requestBody: {
          required: true,
          description: "The calls to export: 1 to 500 ids, at most 1 MiB.",
          content: {
            "application/json": {
              schema: ref("BulkTranscriptRequest"),
              examples: examplesOf(["bulkRequest"]),
            },
          },
        },
        responses: withHeaders(PRIVATE_HEADERS, {
          "200": withLinks({
            description: "The transcripts as one ZIP archive",
            headers: {
              "X-Request-Id": header("XRequestId"),
              "Content-Disposition": header("ContentDisposition"),
            },
            content: {
              "application/zip": {
                schema: { type: "string", contentMediaType: "application/zip" },
              },
            },
          }, {
            ExportedCallMessages: {
              operationId: "listCallMessages",
              parameters: { call_id: "$request.body#/call_ids/0" },
              description:
                "The messages of the first requested call, as its `<call_id>.json` in the archive holds them (when it had any).",
            },
          }),
          "400": errorResponse(
            "A body that cannot be decoded, or whose error would nest too deep to echo (`BAD_REQUEST`)",
            ["badBody"],
          ),
          "401": unauthorized,
          "403": errorResponse(
            "The role may not read transcripts (`UNAUTHORIZED_ROLE`)",
            ["roleForbidden"],
          ),
          "404": errorResponse(
            "None of the requested calls has a transcript (`NO_TRANSCRIPTS_FOUND`)",
            ["noTranscripts"],
          ),
          "405": methodNotAllowed,
          "408": errorResponse(
            "The body stopped arriving before the deadline (`REQUEST_TIMEOUT`)",
            ["bodyTimeout"],
          ),
          "413": errorResponse("Body over 1 MiB (`PAYLOAD_TOO_LARGE`)", [
            "bodyTooLarge",
          ]),
          "422": validationError(["emptyCallIds"]),
          "429": tooManyFailedAuthentications,
          "500": unexpected,
          "503": errorResponse(
            "Too many exports stream at once, on the server or for the project (`TOO_MANY_EXPORTS`); retry after `Retry-After` seconds",
            ["tooManyExports"],
            { "Retry-After": header("RetryAfter") },
          ),
        }),
      },
    },
    "/v1/call/{call_id}/message": {
      get: {
        operationId: "listCallMessages",
        tags: ["calls"],
        summary: "List a call's messages",
        description:
          "The call's transcript, in order: the list each entry of the bulk export holds, `[]` for a call without messages.",
        parameters: [uuidPathParam("call_id", EXAMPLE_IDS.call)],
        responses: withHeaders(PRIVATE_HEADERS, {
          "200": jsonResponse(
            "The call's messages, in order",
            { type: "array", items: ref("CallMessage") },
            ["callMessages", "noMessages"],
          ),
          "401": unauthorized,
          "403": errorResponse(
            "The role may not read transcripts (`UNAUTHORIZED_ROLE`)",
            ["roleForbidden"],
          ),
          "404": errorResponse(
            "No such call in the caller's project (`CALL_NOT_FOUND`)",
            ["callNotFound"],
          ),
          "405": methodNotAllowed,
          "413": bodyNotTaken,
          "422": validationError(["badCallId"]),
          "429": tooManyFailedAuthentications,
          "500": unexpected,
        }),
      },
    },
    "/v1/integration/{integration_id}": {
      delete: {
        operationId: "deleteIntegration",
        tags: ["integrations"],
        summary: "Delete an integration",
        description:
          "Permanently deletes the integration with all its tools: an HTTP integration's HTTP tools in cascade, an MCP integration's tool cache cleared. A role without the permission gets 403 with the spec's code, `INTERNAL_SERVER_ERROR`.",
        parameters: [
          uuidPathParam("integration_id", EXAMPLE_IDS.integration),
        ],
        responses: withHeaders(PRIVATE_HEADERS, {
          "204": {
            description: "Deleted",
            headers: { "X-Request-Id": header("XRequestId") },
          },
          "401": unauthorized,
          "403": errorResponse(
            "Missing required permissions to delete integrations (`INTERNAL_SERVER_ERROR`, as the spec has it)",
            ["deletionForbidden"],
          ),
          "404": errorResponse(
            "No such integration in the caller's project (`INTEGRATION_NOT_FOUND`)",
            ["integrationNotFound"],
          ),
          "405": methodNotAllowed,
          "413": bodyNotTaken,
          "422": validationError(["badIntegrationId"]),
          "429": tooManyFailedAuthentications,
          "500": unexpected,
        }),
      },
    },
    "/v1/workflow/{flow_id}/trigger/test": {
      post: {
        operationId: "testTrigger",
        tags: ["workflows"],
        summary: "Test the trigger",
        description:
          "Runs the flow's trigger in test mode, without side effects, and returns the sample events it produces: a schedule's next three times, a call_ended trigger's latest calls, a webhook's sample payload as configured.",
        parameters: [uuidPathParam("flow_id", EXAMPLE_IDS.scheduleFlow)],
        responses: withHeaders(PRIVATE_HEADERS, {
          "200": withLinks(
            jsonResponse(
              "The sample events",
              ref("TriggerTestResponse"),
              ["scheduleEvents", "callEndedEvents", "webhookEvents"],
            ),
            {
              EventCallMessages: {
                operationId: "listCallMessages",
                parameters: { call_id: "$response.body#/events/0/call_id" },
                description:
                  "The messages of the call the first event names: a `call_ended` trigger's `call.ended` events carry `call_id` (the nil UUID of its example event is no call: 404). Schedule and webhook events carry none.",
              },
            },
          ),
          "401": unauthorized,
          "403": errorResponse(
            "The role may not test triggers (`UNAUTHORIZED_ROLE`)",
            ["triggerRoleForbidden"],
          ),
          "404": errorResponse(
            "No such flow in the caller's project (`FLOW_NOT_FOUND`)",
            ["flowNotFound"],
          ),
          "405": methodNotAllowed,
          "409": errorResponse(
            "The flow's trigger is EMPTY (`TRIGGER_NOT_CONFIGURED`): the request is well formed, the flow's state forbids it",
            ["triggerNotConfigured"],
          ),
          "413": bodyNotTaken,
          "422": validationError(["badFlowId"]),
          "429": tooManyFailedAuthentications,
          "500": unexpected,
        }),
      },
    },
  },
  components: {
    securitySchemes: {
      HTTPBearer: {
        type: "http",
        scheme: "bearer",
        description:
          "An API token of a project, sent as `Authorization: Bearer <token>`. Tokens are issued per project with a role (owner, admin, member, viewer, billing) that decides which operations it may call (403 otherwise); the demo server's are `demo-owner`, `demo-admin`, `demo-member`, `demo-viewer`, `demo-billing` and `demo-globex-owner`. A missing, malformed or unknown token is 401 `UNAUTHORIZED` with a `WWW-Authenticate: Bearer` challenge.",
      },
    },
    headers: {
      XRequestId: {
        required: true,
        description:
          "The request's id: the client's `X-Request-Id` when it sent a plain one (1 to 128 of `A-Za-z0-9_.:-`), a fresh UUID otherwise. A 500's message names it.",
        schema: { type: "string" },
      },
      WWWAuthenticate: {
        required: true,
        description:
          'The bearer challenge: `Bearer realm="api"`, with `error="invalid_token"` for a token the server does not know.',
        schema: { type: "string" },
      },
      Allow: {
        required: true,
        description: "The methods the path answers, e.g. `GET, HEAD`.",
        schema: { type: "string" },
      },
      RetryAfter: {
        required: true,
        description: "Seconds to wait before retrying.",
        schema: { type: "integer", minimum: 0 },
      },
      XContentTypeOptions: {
        required: true,
        description: "Browsers must not guess another type than the one sent.",
        schema: { type: "string", const: "nosniff" },
      },
      CacheControl: {
        required: true,
        description:
          "What a token gives access to is never stored by a cache or the browser.",
        schema: { type: "string", const: "no-store" },
      },
      ContentDisposition: {
        required: true,
        description: "The archive's file name.",
        schema: {
          type: "string",
          const: 'attachment; filename="transcripts.zip"',
        },
      },
    },
    schemas: {
      BulkTranscriptRequest: {
        type: "object",
        title: "BulkTranscriptRequest",
        required: ["call_ids"],
        properties: {
          call_ids: {
            type: "array",
            title: "Call Ids",
            minItems: 1,
            maxItems: 500,
            items: { type: "string", format: "uuid" },
          },
        },
      },
      CallMessage: {
        type: "object",
        title: "CallMessage",
        description:
          "One entry of a call's transcript, returned verbatim as it was stored: usually who spoke and what was said; other fields pass through.",
        properties: {
          role: {
            type: "string",
            description: "Who spoke, e.g. `agent` or `customer`",
          },
          text: { type: "string", description: "What was said" },
        },
        additionalProperties: true,
      },
      TriggerTestResponse: {
        type: "object",
        title: "TriggerTestResponse",
        required: ["events"],
        properties: {
          events: {
            type: "array",
            title: "Events",
            items: ref("TriggerEvent"),
          },
        },
      },
      TriggerEvent: {
        title: "TriggerEvent",
        description:
          "A sample event: one of the known kinds, which `event` tells apart, or a webhook's sample payload, any JSON object as configured.",
        oneOf: [ref("KnownTriggerEvent"), ref("WebhookPayload")],
      },
      KnownTriggerEvent: {
        title: "KnownTriggerEvent",
        description: "An event of a schedule or call_ended trigger.",
        oneOf: [ref("ScheduleFiredEvent"), ref("CallEndedEvent")],
        discriminator: {
          propertyName: "event",
          mapping: {
            "schedule.fired": "#/components/schemas/ScheduleFiredEvent",
            "call.ended": "#/components/schemas/CallEndedEvent",
          },
        },
      },
      ScheduleFiredEvent: {
        type: "object",
        title: "ScheduleFiredEvent",
        description: "One of a schedule trigger's next fire times.",
        required: ["event", "scheduled_for"],
        properties: {
          event: { type: "string", const: "schedule.fired" },
          scheduled_for: { type: "string", format: "date-time" },
        },
        additionalProperties: false,
      },
      CallEndedEvent: {
        type: "object",
        title: "CallEndedEvent",
        description:
          "One of the project's latest calls; with no calls, one example event (`example: true`, the nil UUID).",
        required: ["event", "call_id", "created_at", "message_count"],
        properties: {
          event: { type: "string", const: "call.ended" },
          call_id: { type: "string", format: "uuid" },
          created_at: { type: "string", format: "date-time" },
          message_count: { type: "integer", minimum: 0 },
          example: { type: "boolean", const: true },
        },
        additionalProperties: false,
      },
      WebhookPayload: {
        type: "object",
        title: "WebhookPayload",
        description:
          "A webhook trigger's sample payload, any JSON object as configured (its `event`, if any, is none of the known kinds).",
        additionalProperties: true,
        not: {
          required: ["event"],
          properties: { event: { enum: ["schedule.fired", "call.ended"] } },
        },
      },
      HealthResponse: {
        type: "object",
        title: "HealthResponse",
        required: ["status"],
        properties: { status: { type: "string", const: "ok" } },
      },
      ReadinessResponse: {
        type: "object",
        title: "ReadinessResponse",
        required: ["status"],
        properties: {
          status: { type: "string", enum: ["ok", "degraded"] },
          detail: { type: "string" },
        },
      },
      ErrorCode: {
        type: "string",
        title: "ErrorCode",
        description: "What went wrong, for a client to switch on.",
        enum: [
          "BAD_REQUEST",
          "CALL_NOT_FOUND",
          "FLOW_NOT_FOUND",
          "INTEGRATION_NOT_FOUND",
          "INTERNAL_SERVER_ERROR",
          "METHOD_NOT_ALLOWED",
          "NOT_FOUND",
          "NO_TRANSCRIPTS_FOUND",
          "PAYLOAD_TOO_LARGE",
          "REQUEST_TIMEOUT",
          "SERVICE_UNAVAILABLE",
          "TOO_MANY_EXPORTS",
          "TOO_MANY_FAILED_AUTHENTICATIONS",
          "TRIGGER_NOT_CONFIGURED",
          "UNAUTHORIZED",
          "UNAUTHORIZED_ROLE",
        ],
      },
      ErrorResponseSchema: {
        type: "object",
        title: "ErrorResponseSchema",
        required: ["error_code", "message"],
        properties: {
          status: {
            type: "string",
            const: "error",
            default: "error",
            title: "Status",
          },
          error_code: ref("ErrorCode"),
          message: { type: "string", title: "Message" },
        },
      },
      HTTPValidationError: {
        type: "object",
        title: "HTTPValidationError",
        properties: {
          detail: {
            type: "array",
            title: "Detail",
            items: ref("ValidationError"),
          },
        },
      },
      ValidationError: {
        type: "object",
        title: "ValidationError",
        required: ["loc", "msg", "type"],
        properties: {
          loc: {
            type: "array",
            title: "Location",
            items: { anyOf: [{ type: "string" }, { type: "integer" }] },
          },
          msg: { type: "string", title: "Message" },
          type: { type: "string", title: "Error Type" },
          input: { title: "Input" },
          ctx: { type: "object", title: "Context" },
        },
      },
    },
  },
};

function serversFor(origin: string): OpenApiDocument["servers"] {
  return [
    { url: origin, description: "The server this document was served from" },
    {
      url: "{baseUrl}",
      description: "Any deployment of this API",
      variables: {
        baseUrl: {
          default: origin,
          description:
            "The API's base URL: scheme, host and port, no trailing slash",
        },
      },
    },
  ];
}

/**
 * The document as served from an address: its server's `baseUrl` defaults
 * to the origin the document was asked at, so that a client generated from
 * it calls the server it came from.
 *
 * @param origin The request's origin, e.g. `http://127.0.0.1:8787`.
 * @returns The document, naming that server.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openApiDocumentFor } from "./document.ts";
 *
 * const document = openApiDocumentFor("https://api.example.com");
 * assert.equal(document.servers[0]?.url, "https://api.example.com");
 * assert.equal(
 *   document.servers[1]?.variables?.baseUrl?.default,
 *   "https://api.example.com",
 * );
 * ```
 */
export function openApiDocumentFor(origin: string): OpenApiDocument {
  return { ...openApiDocument, servers: serversFor(origin) };
}
