/**
 * The request pipeline: an ordered list of steps, each given the request's
 * {@linkcode Context} and the rest of the list as `next`. A step may answer
 * itself, or call `next()` and look at (or replace) the answer on its way
 * back. What a step throws is rendered into an answer where it was thrown,
 * so every step before it sees an answer, never an exception: Hono's
 * `compose` with its `onError`, without Hono's context.
 *
 * @module
 */
import type { Context } from "./context.ts";

/** The rest of the pipeline, from the step after the caller's. */
export type Next = () => Promise<Response>;

/**
 * One step of the pipeline.
 *
 * @typeParam Vars What the layer's own steps note on the context.
 */
export type Middleware<Vars extends object = Record<never, never>> = (
  context: Context<Vars>,
  next: Next,
) => Promise<Response>;

/**
 * Renders what a step threw as the answer (see {@linkcode compose}).
 *
 * @typeParam Vars What the layer's own steps note on the context.
 */
export type ErrorRenderer<Vars extends object = Record<never, never>> = (
  context: Context<Vars>,
  error: unknown,
) => Response;

/**
 * Composes steps into one: the first runs first, and each runs the rest by
 * calling `next()`. The last step must answer without calling `next()`.
 *
 * @param steps The steps, in order.
 * @param onError Renders what a step throws (or rejects with) into the
 *   answer that the steps before it receive from `next()`.
 * @returns A function that runs them on a context.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Context } from "./context.ts";
 * import { compose, type Middleware } from "./pipeline.ts";
 *
 * const order: string[] = [];
 * const outer: Middleware = async (_context, next) => {
 *   order.push("outer in");
 *   const response = await next();
 *   order.push("outer out");
 *   return response;
 * };
 * const answer: Middleware = (context) => {
 *   order.push("answer");
 *   return Promise.resolve(context.empty(204));
 * };
 * const fail: Middleware = () => Promise.reject(new Error("no"));
 * const onError = (context: Context) => context.empty(500);
 *
 * const run = compose([outer, answer], onError);
 * const response = await run(new Context(new Request("http://api.test/")));
 * assert.equal(response.status, 204);
 * assert.deepEqual(order, ["outer in", "answer", "outer out"]);
 *
 * const failing = compose([outer, fail], onError);
 * const failed = await failing(new Context(new Request("http://api.test/")));
 * assert.equal(failed.status, 500);
 * assert.equal(order.at(-1), "outer out");
 * ```
 */
export function compose<Vars extends object>(
  steps: readonly Middleware<Vars>[],
  onError: ErrorRenderer<Vars>,
): (context: Context<Vars>) => Promise<Response> {
  return (context) => {
    let called = -1;
    const render = (error: unknown) => onError(context, error);
    const dispatch = (index: number): Promise<Response> => {
      if (index <= called) {
        return Promise.reject(new Error("next() called more than once"));
      }
      called = index;
      const step = steps[index];
      if (step === undefined) {
        return Promise.reject(
          new Error("The pipeline's last step called next()"),
        );
      }
      try {
        return step(context, () => dispatch(index + 1)).catch(render);
      } catch (error) {
        return Promise.resolve(render(error));
      }
    };
    return dispatch(0);
  };
}
