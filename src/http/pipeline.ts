/**
 * The request pipeline: an ordered list of steps, each given the request's
 * {@linkcode Context} and the rest of the list as `next`. A step may answer
 * itself, or call `next()` and look at (or replace) the answer on its way
 * back. What a step throws is rendered into an answer before it reaches a
 * step that could see it (steps marked {@linkcode passThrough} see nothing
 * of it, and it is rendered past them), so every step sees an answer, never
 * an exception: Hono's `compose` with its `onError`, without Hono's context.
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

/** The mark of {@linkcode passThrough}. */
const PASS_THROUGH = Symbol("passThrough");

/**
 * Marks a step as one that does nothing with what `next()` answers or
 * throws: when it calls `next()` it returns that promise as its own (or
 * `.then(next)`, or `return next()` in an async function). The pipeline then
 * renders what the steps after it throw at the first unmarked step before
 * it, rather than give each step's `next()` a handler of its own: a
 * promise less a step. A step that reads, replaces or waits for the answer
 * must not be marked, or a throw would skip it.
 *
 * @param step The step.
 * @returns The same step, marked.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isPassThrough, type Middleware, passThrough } from "./pipeline.ts";
 *
 * const auth: Middleware = passThrough((_context, next) => next());
 * assert.equal(isPassThrough(auth), true);
 * assert.equal(isPassThrough(async (_context, next) => await next()), false);
 * ```
 */
export function passThrough<Step extends Middleware<never>>(
  step: Step,
): Step {
  (step as Step & { [PASS_THROUGH]?: true })[PASS_THROUGH] = true;
  return step;
}

/**
 * Whether a step was marked by {@linkcode passThrough}.
 *
 * @param step The step.
 * @returns `true` when marked.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isPassThrough } from "./pipeline.ts";
 *
 * assert.equal(isPassThrough((_context, next) => next()), false);
 * ```
 */
export function isPassThrough(step: Middleware<never>): boolean {
  return (step as { [PASS_THROUGH]?: true })[PASS_THROUGH] === true;
}

/**
 * Composes steps into one: the first runs first, and each runs the rest by
 * calling `next()`. The last step must answer without calling `next()`.
 *
 * @param steps The steps, in order.
 * @param onError Renders what a step throws (or rejects with) into the
 *   answer that the steps before it receive from `next()` (once, at the
 *   first step before it not marked {@linkcode passThrough}).
 * @returns A function that runs them on a context.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Context } from "./context.ts";
 * import { compose, type Middleware, passThrough } from "./pipeline.ts";
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
 *
 * // A marked step between: the throw is rendered before `outer` sees it.
 * const gate = passThrough((_context, next) => next());
 * const passing = compose([outer, gate, fail], onError);
 * const passed = await passing(new Context(new Request("http://api.test/")));
 * assert.equal(passed.status, 500);
 * assert.equal(order.at(-1), "outer out");
 * ```
 */
export function compose<Vars extends object>(
  steps: readonly Middleware<Vars>[],
  onError: ErrorRenderer<Vars>,
): (context: Context<Vars>) => Promise<Response> {
  // Whether what `next()` gives step i must be caught there: unless the
  // step passes it through, and then the first unmarked step before it (or
  // the pipeline's entry) catches it, with nothing in between to see it.
  const catches = steps.map((step) => !isPassThrough(step));
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
      const next = catches[index]
        ? () => dispatch(index + 1).catch(render)
        : () => dispatch(index + 1);
      try {
        return step(context, next);
      } catch (error) {
        return Promise.reject(error);
      }
    };
    return dispatch(0).catch(render);
  };
}
