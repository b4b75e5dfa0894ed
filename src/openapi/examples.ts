/**
 * The examples of the OpenAPI document: each one is what the demo server
 * (`npm start`, the built-in demo fixtures) answers to a request a test
 * replays, on the clock {@linkcode EXAMPLE_NOW}, so they cannot drift from
 * the server.
 *
 * @module
 */
import { demoFixtures } from "../store/mod.ts";

/** The clock the examples were taken at: a Sunday at noon, UTC. */
export const EXAMPLE_NOW = "2026-11-22T12:00:00.000Z";

/** The request id the 500 example was answered with. */
export const EXAMPLE_REQUEST_ID = "5f1c2d9e-8b7a-4c3d-9e2f-1a0b9c8d7e6f";

/** An OpenAPI Example Object. */
export interface Example {
  /** What the example shows. */
  summary: string;
  /** The example's value. */
  value: unknown;
}

const [firstCall, secondCall, silentCall, globexCall] = demoFixtures.calls;
const [webhookFlow, callEndedFlow, scheduleFlow] = demoFixtures.flows.slice(1);
const [, httpIntegration] = demoFixtures.integrations;

/** The ids the examples use, from the demo fixtures. */
export const EXAMPLE_IDS = {
  call: firstCall!.call_id,
  secondCall: secondCall!.call_id,
  otherProjectsCall: globexCall!.call_id,
  integration: httpIntegration!.integration_id,
  scheduleFlow: scheduleFlow!.flow_id,
  callEndedFlow: callEndedFlow!.flow_id,
  webhookFlow: webhookFlow!.flow_id,
  emptyFlow: demoFixtures.flows[0]!.flow_id,
} as const;

const error = (summary: string, errorCode: string, message: string) => ({
  summary,
  value: { status: "error", error_code: errorCode, message },
});

function badUuid(name: string) {
  return {
    summary: "A path id that is not a UUID",
    value: {
      detail: [{
        type: "uuid_parsing",
        loc: ["path", name],
        msg: "Input should be a valid UUID, invalid character: found `n` at 0",
        input: "not-a-uuid",
        ctx: { error: "invalid character: found `n` at 0" },
      }],
    },
  };
}

/**
 * The examples, by name. A name says which operation, status and case it
 * belongs to; the document refers to them by name.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { examples } from "./examples.ts";
 *
 * assert.equal(examples.unauthorizedMissing.value.error_code, "UNAUTHORIZED");
 * ```
 */
export const examples = {
  healthy: { summary: "The process is up", value: { status: "ok" } },
  ready: { summary: "The store answers", value: { status: "ok" } },
  notReady: error(
    "Shutting down, or the store did not answer in time",
    "SERVICE_UNAVAILABLE",
    "The server is shutting down",
  ),
  bulkRequest: {
    summary: "Two calls of the demo project",
    value: { call_ids: [firstCall!.call_id, secondCall!.call_id] },
  },
  callMessages: {
    summary: "The first demo call's transcript",
    value: firstCall!.messages,
  },
  noMessages: {
    summary: "A call without messages",
    value: silentCall!.messages,
  },
  scheduleEvents: {
    summary: "A weekday 09:00 Europe/Paris schedule: its next three times",
    value: {
      events: [
        "2026-11-23T08:00:00.000Z",
        "2026-11-24T08:00:00.000Z",
        "2026-11-25T08:00:00.000Z",
      ].map((time) => ({ event: "schedule.fired", scheduled_for: time })),
    },
  },
  callEndedEvents: {
    summary: "A call_ended trigger: the project's latest calls",
    value: {
      events: [silentCall!, secondCall!, firstCall!].map((call) => ({
        event: "call.ended",
        call_id: call.call_id,
        created_at: call.created_at,
        message_count: call.messages.length,
      })),
    },
  },
  webhookEvents: {
    summary: "A webhook trigger: its sample payload, as configured",
    value: { events: [{ order_id: "ord_123", status: "shipped" }] },
  },
  unauthorizedMissing: error(
    "No Authorization header",
    "UNAUTHORIZED",
    "Missing bearer token",
  ),
  unauthorizedInvalid: error(
    "A token the server does not know",
    "UNAUTHORIZED",
    "Invalid bearer token",
  ),
  roleForbidden: error(
    "The billing role may not read transcripts",
    "UNAUTHORIZED_ROLE",
    "Role 'billing' is not allowed to perform this operation",
  ),
  triggerRoleForbidden: error(
    "The viewer role may not test triggers",
    "UNAUTHORIZED_ROLE",
    "Role 'viewer' is not allowed to perform this operation",
  ),
  deletionForbidden: error(
    "The viewer role may not delete integrations (the spec's code)",
    "INTERNAL_SERVER_ERROR",
    "Missing required permissions to delete integrations: integrations:delete",
  ),
  noTranscripts: error(
    "None of the calls is the caller's, or none has messages",
    "NO_TRANSCRIPTS_FOUND",
    "None of the requested calls has a transcript",
  ),
  callNotFound: error(
    "Another project's call",
    "CALL_NOT_FOUND",
    `Call ${globexCall!.call_id} not found`,
  ),
  integrationNotFound: error(
    "Deleted already",
    "INTEGRATION_NOT_FOUND",
    `Integration ${httpIntegration!.integration_id} not found`,
  ),
  flowNotFound: error(
    "No such flow in the caller's project",
    "FLOW_NOT_FOUND",
    `Flow ${firstCall!.call_id} not found`,
  ),
  triggerNotConfigured: error(
    "A flow whose trigger is EMPTY",
    "TRIGGER_NOT_CONFIGURED",
    `Flow ${demoFixtures.flows[0]!.flow_id} has no trigger configured`,
  ),
  badBody: error(
    "A body that is not UTF-8",
    "BAD_REQUEST",
    "There was an error parsing the body",
  ),
  bodyTimeout: error(
    "A body that stopped arriving",
    "REQUEST_TIMEOUT",
    "The request body did not arrive in time",
  ),
  bodyTooLarge: error(
    "A body over 1 MiB",
    "PAYLOAD_TOO_LARGE",
    "Request body is larger than 1048576 bytes",
  ),
  bodyNotTaken: error(
    "A body over 64 KiB sent to a route that takes none",
    "PAYLOAD_TOO_LARGE",
    "This route takes no request body, and ignores one of at most 65536 bytes",
  ),
  tooManyFailedAuthentications: error(
    "An address past its unknown tokens in a minute",
    "TOO_MANY_FAILED_AUTHENTICATIONS",
    "Too many requests with an unknown token from this address; retry in 60 s",
  ),
  tooManyExports: error(
    "Every export slot is busy",
    "TOO_MANY_EXPORTS",
    "The server is streaming its maximum of 1 exports at once; retry shortly",
  ),
  methodNotAllowed: error(
    "GET on the bulk export",
    "METHOD_NOT_ALLOWED",
    "Method GET is not allowed on /v1/call/message/bulk",
  ),
  unexpected: error(
    "A store failure",
    "INTERNAL_SERVER_ERROR",
    `An unexpected error occurred (request id ${EXAMPLE_REQUEST_ID})`,
  ),
  emptyCallIds: {
    summary: "An empty call_ids",
    value: {
      detail: [{
        type: "too_short",
        loc: ["body", "call_ids"],
        msg: "List should have at least 1 item after validation, not 0",
        input: [],
        ctx: { field_type: "List", min_length: 1, actual_length: 0 },
      }],
    },
  },
  badCallId: badUuid("call_id"),
  badIntegrationId: badUuid("integration_id"),
  badFlowId: badUuid("flow_id"),
} as const satisfies Record<string, Example>;
