/**
 * The OpenAPI 3.1 description of the standalone mock's control API, served
 * at `GET /__mock/openapi.json` so a client can be generated in any language.
 *
 * @module
 */

const json = (schema: unknown) => ({
  content: { "application/json": { schema } },
});
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const error = (description: string) => ({
  description,
  ...json(ref("ErrorResponseSchema")),
});
const noContent = { "204": { description: "Done" } };

/**
 * The control API's OpenAPI document.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { controlOpenApiDocument } from "./control_openapi.ts";
 *
 * assert.ok("/__mock/faults" in controlOpenApiDocument.paths);
 * ```
 */
export const controlOpenApiDocument: {
  openapi: string;
  info: { title: string; version: string; description: string };
  paths: Record<string, Record<string, unknown>>;
  components: { schemas: Record<string, unknown> };
} = {
  openapi: "3.1.0",
  info: {
    title: "Callflow API mock: control API",
    version: "1",
    description:
      "Controls the standalone mock server (`callflow-api mock`): reset, fixtures, state, request journal (also as HAR 1.2), fault injection, and a live page at /__mock/. Needs no token. Refuses foreign origins (403), bodies that are not application/json (415), and Host names that are not loopback ones unless the mock was started with --host.",
  },
  paths: {
    "/__mock/reset": {
      post: {
        operationId: "resetMock",
        summary: "Back to the fixtures; clears the journal and the faults",
        responses: noContent,
      },
    },
    "/__mock/fixtures": {
      put: {
        operationId: "replaceFixtures",
        summary: "Replace the whole state (and what a reset restores)",
        requestBody: { required: true, ...json(ref("Fixtures")) },
        responses: {
          ...noContent,
          "400": error("Not a valid fixtures document (`INVALID_FIXTURES`)"),
          "413": error("Over the size limit (`PAYLOAD_TOO_LARGE`)"),
          "415": error("Not application/json (`UNSUPPORTED_MEDIA_TYPE`)"),
        },
      },
    },
    "/__mock/state": {
      get: {
        operationId: "getState",
        summary: "The current state as a fixtures document",
        responses: {
          "200": { description: "The state", ...json(ref("Fixtures")) },
        },
      },
    },
    "/__mock/requests": {
      get: {
        operationId: "listRequests",
        summary: "The requests the mock answered, oldest first",
        responses: {
          "200": {
            description: "The journal",
            ...json({
              type: "object",
              required: ["requests"],
              properties: {
                requests: { type: "array", items: ref("JournalEntry") },
              },
            }),
          },
        },
      },
      delete: {
        operationId: "clearRequests",
        summary: "Forget the requests answered so far",
        responses: noContent,
      },
    },
    "/__mock/faults": {
      get: {
        operationId: "listFaults",
        summary: "The fault rules in force",
        responses: {
          "200": {
            description: "The rules",
            ...json({
              type: "object",
              required: ["faults"],
              properties: { faults: { type: "array", items: ref("Fault") } },
            }),
          },
        },
      },
      post: {
        operationId: "injectFault",
        summary: "Add a fault rule",
        requestBody: { required: true, ...json(ref("FaultRule")) },
        responses: {
          "201": { description: "The rule in force", ...json(ref("Fault")) },
          "400": error("Not a valid rule (`INVALID_FAULT`)"),
          "415": error("Not application/json (`UNSUPPORTED_MEDIA_TYPE`)"),
        },
      },
      delete: {
        operationId: "clearFaults",
        summary: "Remove every fault rule",
        responses: noContent,
      },
    },
    "/__mock/faults/{id}": {
      delete: {
        operationId: "deleteFault",
        summary: "Remove one fault rule",
        parameters: [{
          name: "id",
          in: "path",
          required: true,
          schema: { type: "string" },
        }],
        responses: {
          ...noContent,
          "404": error("No such rule (`FAULT_NOT_FOUND`)"),
        },
      },
    },
    "/__mock/journal.har": {
      get: {
        operationId: "getJournalHar",
        summary:
          "The journal as a HAR 1.2 document (HTTP Archive), oldest first",
        description:
          "Open it in a browser's network panel, Charles, Insomnia or k6. Authorization values are masked; bodies over the journal's body limit are cut (requests) or left out (answers: `content.size` is then the Content-Length, or -1). A dropped connection has status 0 and `_error`. Each entry carries `_seq`, `_operationId`, `_errorCode`, `_fault`, `_role` and `_projectId`.",
        parameters: [{
          name: "after",
          in: "query",
          required: false,
          description:
            "Only the requests numbered above this (an entry's `_seq`; the log's `_seq` is the newest's)",
          schema: { type: "integer", minimum: 0 },
        }, {
          name: "limit",
          in: "query",
          required: false,
          description: "At most this many requests, the oldest first",
          schema: { type: "integer", minimum: 0 },
        }],
        responses: {
          "200": { description: "The archive", ...json(ref("Har")) },
          "400": error(
            "`after` or `limit` is no whole number (`BAD_REQUEST`)",
          ),
        },
      },
    },
    "/__mock/rows": {
      get: {
        operationId: "getJournalRows",
        summary:
          "The journal as the live page's table shows it: a few fields a request, no headers or bodies",
        parameters: [{
          name: "after",
          in: "query",
          required: false,
          description: "Only the requests numbered above this",
          schema: { type: "integer", minimum: 0 },
        }],
        responses: {
          "200": { description: "The rows", ...json(ref("JournalRows")) },
          "400": error("`after` is no whole number (`BAD_REQUEST`)"),
        },
      },
    },
    "/__mock/": {
      get: {
        operationId: "getLivePage",
        summary:
          "The live page: the journal as it fills, the state, the faults (left out with --no-ui)",
        responses: {
          "200": {
            description: "An HTML page; its script and style are ui.js, ui.css",
            content: { "text/html": { schema: { type: "string" } } },
          },
          "404": error("Served with --no-ui (`NOT_FOUND`)"),
        },
      },
    },
    "/__mock/ui.js": {
      get: {
        operationId: "getLivePageScript",
        summary: "The live page's script",
        responses: {
          "200": {
            description: "JavaScript",
            content: { "text/javascript": { schema: { type: "string" } } },
          },
          "404": error("Served with --no-ui (`NOT_FOUND`)"),
        },
      },
    },
    "/__mock/ui.css": {
      get: {
        operationId: "getLivePageStyle",
        summary: "The live page's style sheet",
        responses: {
          "200": {
            description: "CSS",
            content: { "text/css": { schema: { type: "string" } } },
          },
          "404": error("Served with --no-ui (`NOT_FOUND`)"),
        },
      },
    },
    "/__mock/openapi.json": {
      get: {
        operationId: "getControlOpenApi",
        summary: "This document",
        responses: {
          "200": { description: "OpenAPI 3.1", ...json({ type: "object" }) },
        },
      },
    },
  },
  components: {
    schemas: {
      ErrorResponseSchema: {
        type: "object",
        required: ["status", "error_code", "message"],
        properties: {
          status: { type: "string", const: "error" },
          error_code: { type: "string" },
          message: { type: "string" },
        },
      },
      Fixtures: {
        type: "object",
        description:
          "A fixtures document, the format GET /__mock/state returns and the mock's --fixtures file takes: lists of projects, tokens, calls, integrations and flows; any list may be left out.",
        properties: {
          projects: { type: "array", items: { type: "object" } },
          tokens: { type: "array", items: { type: "object" } },
          calls: { type: "array", items: { type: "object" } },
          integrations: { type: "array", items: { type: "object" } },
          flows: { type: "array", items: { type: "object" } },
        },
      },
      JournalEntry: {
        type: "object",
        required: [
          "time",
          "method",
          "path",
          "query",
          "headers",
          "body",
          "body_truncated",
          "status",
          "error_code",
          "duration_ms",
          "operation",
          "fault",
        ],
        properties: {
          time: { type: "string", format: "date-time" },
          method: { type: "string" },
          path: { type: "string" },
          query: { type: "string", description: "Without the leading ?" },
          headers: {
            type: "object",
            additionalProperties: { type: "string" },
            description: "Lower-case names; authorization masked",
          },
          body: { type: ["string", "null"] },
          body_truncated: { type: "boolean" },
          status: {
            type: ["integer", "null"],
            description: "null: the connection was dropped",
          },
          error_code: { type: ["string", "null"] },
          duration_ms: { type: "integer" },
          operation: {
            type: ["string", "null"],
            description: "The API's operationId",
          },
          fault: {
            type: ["string", "null"],
            description: "The fault rule applied, or prefer",
          },
        },
      },
      JournalRows: {
        type: "object",
        required: ["seq", "clears", "rows"],
        properties: {
          seq: {
            type: "integer",
            description: "The newest request's number (0: none yet)",
          },
          clears: {
            type: "integer",
            description:
              "How many times the journal was cleared (a reader starts over)",
          },
          rows: {
            type: "array",
            items: {
              type: "object",
              required: [
                "seq",
                "time",
                "method",
                "target",
                "status",
                "error_code",
                "duration_ms",
                "operation",
                "fault",
                "role",
                "project_id",
              ],
              properties: {
                seq: { type: "integer" },
                time: { type: "string", format: "date-time" },
                method: { type: "string" },
                target: { type: "string", description: "Path and query" },
                status: {
                  type: ["integer", "null"],
                  description: "null: the connection was dropped",
                },
                error_code: { type: ["string", "null"] },
                duration_ms: { type: "integer" },
                operation: { type: ["string", "null"] },
                fault: { type: ["string", "null"] },
                role: { type: ["string", "null"] },
                project_id: { type: ["string", "null"] },
              },
            },
          },
        },
      },
      Har: {
        type: "object",
        description:
          "HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/), with the mock's `_`-prefixed fields",
        required: ["log"],
        properties: {
          log: {
            type: "object",
            required: ["version", "creator", "entries", "_seq", "_clears"],
            properties: {
              version: { type: "string", const: "1.2" },
              creator: { type: "object" },
              entries: { type: "array", items: { type: "object" } },
              _seq: {
                type: "integer",
                description: "The newest request's number (0: none yet)",
              },
              _clears: {
                type: "integer",
                description:
                  "How many times the journal was cleared (a reader starts over)",
              },
            },
          },
        },
      },
      FaultRule: {
        type: "object",
        additionalProperties: false,
        description:
          "Match by operation, or by path (and method). Effect: one of status, drop_connection, cut_after_bytes, each optionally after delay_ms; or delay_ms alone.",
        properties: {
          operation: {
            type: "string",
            enum: [
              "bulkDownloadTranscripts",
              "listCallMessages",
              "deleteIntegration",
              "testTrigger",
            ],
          },
          path: {
            type: "string",
            description: "* or {name}: one segment; a final **: the rest",
          },
          method: { type: "string" },
          status: { type: "integer", minimum: 400, maximum: 599 },
          error_code: { type: "string", pattern: "^[A-Z][A-Z0-9_]*$" },
          message: { type: "string" },
          headers: {
            type: "object",
            additionalProperties: { type: "string" },
          },
          delay_ms: { type: "integer", minimum: 0, maximum: 600000 },
          drop_connection: { type: "boolean", const: true },
          cut_after_bytes: { type: "integer", minimum: 0 },
          times: { type: "integer", minimum: 1 },
        },
      },
      Fault: {
        allOf: [ref("FaultRule"), {
          type: "object",
          required: ["id", "remaining"],
          properties: {
            id: { type: "string" },
            remaining: { type: ["integer", "null"] },
          },
        }],
      },
    },
  },
};
