/**
 * The OpenAPI 3.1 description of the API, served at `GET /openapi.json`.
 *
 * @module
 */

const errorResponse = (description: string) => ({
  description,
  content: {
    "application/json": {
      schema: { $ref: "#/components/schemas/ErrorResponseSchema" },
    },
  },
});

const validationErrorResponse = {
  description: "Validation Error",
  content: {
    "application/json": {
      schema: { $ref: "#/components/schemas/HTTPValidationError" },
    },
  },
};

const uuidPathParam = (name: string) => ({
  name,
  in: "path",
  required: true,
  schema: { type: "string", format: "uuid", title: name },
});

const commonErrors = {
  "401": errorResponse(
    "Missing, malformed or unknown bearer token (`UNAUTHORIZED`)",
  ),
  "413": errorResponse(
    "A request body on a route that takes none (`PAYLOAD_TOO_LARGE`); the connection is closed",
  ),
  "422": validationErrorResponse,
  "429": {
    ...errorResponse(
      "Too many unknown tokens from this client address (`TOO_MANY_FAILED_AUTHENTICATIONS`)",
    ),
    headers: { "Retry-After": { $ref: "#/components/headers/RetryAfter" } },
  },
  "500": errorResponse("Unexpected failure (`INTERNAL_SERVER_ERROR`)"),
};

/** The hardening headers every answer carries (src/hardening_headers.ts). */
const PUBLIC_HEADERS = {
  "X-Content-Type-Options": {
    $ref: "#/components/headers/XContentTypeOptions",
  },
};

/** ...and those of every answer of a route that needs a token. */
const PRIVATE_HEADERS = {
  ...PUBLIC_HEADERS,
  "Cache-Control": { $ref: "#/components/headers/CacheControl" },
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
): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(responses).map(([status, response]) => [
      status,
      { ...response, headers: { ...response.headers, ...headers } },
    ]),
  );
}

/** The shape of {@linkcode openApiDocument}. */
export interface OpenApiDocument {
  /** The OpenAPI version the document follows, `3.1.0`. */
  openapi: string;
  /** The API's title, version and description. */
  info: { title: string; version: string; description: string };
  /** The security requirements of every operation: a bearer token. */
  security: Record<string, string[]>[];
  /** The operations, by path, then by lowercase HTTP method. */
  paths: Record<string, Record<string, unknown>>;
  /** The security schemes, and the schemas and headers the operations refer to. */
  components: {
    securitySchemes: Record<string, unknown>;
    headers: Record<string, unknown>;
    schemas: Record<string, unknown>;
  };
}

/**
 * The OpenAPI document. Its schemas are the spec's; the tests check every
 * response the handler gives against them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openApiDocument } from "./openapi.ts";
 *
 * assert.equal(openApiDocument.openapi, "3.1.0");
 * assert.ok("/v1/call/message/bulk" in openApiDocument.paths);
 * ```
 */
export const openApiDocument: OpenApiDocument = {
  openapi: "3.1.0",
  info: {
    title: "Call, Integration and Workflow API",
    version: "0.1.0",
    description:
      "Bulk transcript export, integration deletion and workflow trigger tests.",
  },
  security: [{ HTTPBearer: [] }],
  paths: {
    "/healthz": {
      get: {
        operationId: "healthz",
        summary: "Liveness probe",
        description:
          "The process answers. Touches no store; needs no token. Not in the access log at the default level.",
        security: [],
        responses: withHeaders(PUBLIC_HEADERS, {
          "200": {
            description: "The process is up",
            content: {
              "application/json": {
                schema: { $ref: "#/components/schemas/HealthResponse" },
              },
            },
          },
        }),
      },
    },
    "/readyz": {
      get: {
        operationId: "readyz",
        summary: "Readiness probe",
        description:
          "The store answers a trivial query within a short deadline (2 s by default). Needs no token. Not in the access log at the default level. A store that serves degraded (a read replica down, reads going to the primary) is still ready: `status` is `degraded` and `detail` says why.",
        security: [],
        responses: withHeaders(PUBLIC_HEADERS, {
          "200": {
            description: "Ready to serve",
            content: {
              "application/json": {
                schema: { $ref: "#/components/schemas/ReadinessResponse" },
              },
            },
          },
          "503": errorResponse(
            "The store did not answer in time (`SERVICE_UNAVAILABLE`)",
          ),
        }),
      },
    },
    "/v1/call/message/bulk": {
      post: {
        operationId: "bulkDownloadTranscripts",
        summary: "Bulk download transcripts",
        description:
          "A ZIP with one `<call_id>.json` per requested call that has messages, each holding the call's message list. Calls without messages, unknown calls and other projects' calls are skipped; duplicate ids give one file.",
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: { $ref: "#/components/schemas/BulkTranscriptRequest" },
            },
          },
        },
        responses: withHeaders(PRIVATE_HEADERS, {
          "200": {
            description: "The transcripts as one ZIP archive",
            headers: {
              "Content-Disposition": {
                schema: {
                  type: "string",
                  const: 'attachment; filename="transcripts.zip"',
                },
              },
            },
            content: {
              "application/zip": {
                schema: { type: "string", contentMediaType: "application/zip" },
              },
            },
          },
          ...commonErrors,
          "403": errorResponse("The role may not read transcripts"),
          "404": errorResponse(
            "None of the requested calls has a transcript (`NO_TRANSCRIPTS_FOUND`)",
          ),
          "413": errorResponse("Body over 1 MiB (`PAYLOAD_TOO_LARGE`)"),
        }),
      },
    },
    "/v1/call/{call_id}/message": {
      get: {
        operationId: "listCallMessages",
        summary: "List a call's messages",
        parameters: [uuidPathParam("call_id")],
        responses: withHeaders(PRIVATE_HEADERS, {
          "200": {
            description: "The call's messages, in order",
            content: {
              "application/json": {
                schema: {
                  type: "array",
                  items: { $ref: "#/components/schemas/CallMessage" },
                },
              },
            },
          },
          ...commonErrors,
          "403": errorResponse(
            "The role may not read transcripts (`UNAUTHORIZED_ROLE`)",
          ),
          "404": errorResponse("No such call (`CALL_NOT_FOUND`)"),
        }),
      },
    },
    "/v1/integration/{integration_id}": {
      delete: {
        operationId: "deleteIntegration",
        summary: "Delete an integration",
        description:
          "Permanently deletes the integration with all its tools: an HTTP integration's HTTP tools in cascade, an MCP integration's tool cache cleared.",
        parameters: [uuidPathParam("integration_id")],
        responses: withHeaders(PRIVATE_HEADERS, {
          "204": { description: "Deleted" },
          ...commonErrors,
          "403": errorResponse(
            "Missing required permissions to delete integrations (`INTERNAL_SERVER_ERROR`)",
          ),
          "404": errorResponse("No such integration (`INTEGRATION_NOT_FOUND`)"),
        }),
      },
    },
    "/v1/workflow/{flow_id}/trigger/test": {
      post: {
        operationId: "testTrigger",
        summary: "Test the trigger",
        description:
          "Runs the flow's trigger in test mode, without side effects, and returns the sample events it produces.",
        parameters: [uuidPathParam("flow_id")],
        responses: withHeaders(PRIVATE_HEADERS, {
          "200": {
            description: "The sample events",
            content: {
              "application/json": {
                schema: { $ref: "#/components/schemas/TriggerTestResponse" },
              },
            },
          },
          ...commonErrors,
          "400": errorResponse(
            "The trigger is EMPTY (`TRIGGER_NOT_CONFIGURED`)",
          ),
          "403": errorResponse(
            "The role may not test triggers (`UNAUTHORIZED_ROLE`)",
          ),
          "404": errorResponse("No such flow (`FLOW_NOT_FOUND`)"),
        }),
      },
    },
  },
  components: {
    securitySchemes: {
      HTTPBearer: { type: "http", scheme: "bearer" },
    },
    headers: {
      XContentTypeOptions: {
        description: "Browsers must not guess another type",
        schema: { type: "string", const: "nosniff" },
      },
      CacheControl: {
        description: "What a token gives access to is never stored",
        schema: { type: "string", const: "no-store" },
      },
      RetryAfter: {
        description: "Seconds to wait before trying again",
        schema: { type: "integer", minimum: 1 },
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
        description: "One entry of a call's transcript, returned verbatim.",
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
            items: { type: "object", additionalProperties: true },
          },
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
          error_code: {
            type: "string",
            pattern: "^[A-Z][A-Z0-9_]*$",
            title: "Error Code",
          },
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
            items: { $ref: "#/components/schemas/ValidationError" },
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
