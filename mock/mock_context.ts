/**
 * What the mock's steps note on a request's context, beside the API's own
 * fields.
 *
 * @module
 */
import type { Context } from "../src/http/mod.ts";
import type { Middleware } from "../src/http/mod.ts";

/** The mock's own fields of a request's context (its `vars`). */
export interface MockVars {
  /** The `operationId` of the request's operation, when it has one. */
  operation: string;
  /** The id of the fault rule applied (or `prefer`), when one was. */
  fault: string;
  /** Set when a fault rule cut the answer's body short. */
  cut: boolean;
}

/** A request's context, as the mock's steps see it. */
export type MockContext = Context<MockVars>;

/** One of the mock's pipeline steps. */
export type MockStep = Middleware<MockVars>;
