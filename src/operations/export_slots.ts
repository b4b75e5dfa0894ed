/**
 * The bound on bulk exports running at once, whatever the store: each one
 * holds a ZIP writer, a batch of messages and a client's connection for as
 * long as the client reads. A project may hold only its share of the slots,
 * so that one busy project cannot keep every other one from exporting.
 *
 * @module
 */

/** How many exports may stream at once unless told otherwise. */
export const DEFAULT_MAX_CONCURRENT_EXPORTS = 16;

/**
 * A project's default share of `max` slots: half of them, at least 1.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { defaultProjectShare } from "./export_slots.ts";
 *
 * assert.equal(defaultProjectShare(16), 8);
 * assert.equal(defaultProjectShare(3), 1);
 * assert.equal(defaultProjectShare(1), 1);
 * ```
 */
export function defaultProjectShare(max: number): number {
  return Math.max(1, Math.floor(max / 2));
}

/** Why {@linkcode ExportSlots.take} gave no slot. */
export interface ExportRefusal {
  /** `server`: every slot is taken; `project`: this project's share is. */
  full: "server" | "project";
  /** The bound that was reached. */
  max: number;
}

/**
 * A counter of running exports, in all and per project.
 * {@linkcode ExportSlots.take} gives a slot (the function that gives it back,
 * once: later calls do nothing) or says which bound was reached. One instance
 * may be shared by several handlers (e.g. every request of a Worker isolate).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ExportSlots } from "./export_slots.ts";
 *
 * const slots = new ExportSlots(2); // a project's share: 1
 * const release = slots.take("project-a");
 * assert.equal(typeof release, "function");
 * assert.deepEqual(slots.take("project-a"), { full: "project", max: 1 });
 * assert.equal(typeof slots.take("project-b"), "function");
 * assert.deepEqual(slots.take("project-c"), { full: "server", max: 2 });
 * if (typeof release === "function") release();
 * assert.equal(typeof slots.take("project-a"), "function");
 * ```
 */
export class ExportSlots {
  /** How many exports may run at once. */
  readonly max: number;
  /** How many of them one project may run. */
  readonly maxPerProject: number;
  #running = 0;
  readonly #byProject = new Map<string, number>();

  /**
   * Creates the counter, with no export running.
   *
   * @param max How many exports may run at once: an integer from 1.
   * @param maxPerProject How many of them one project may run: an integer
   * from 1 (more than `max` counts as `max`). Default: half of `max`, at
   * least 1.
   * @throws {RangeError} for anything else.
   */
  constructor(
    max: number = DEFAULT_MAX_CONCURRENT_EXPORTS,
    maxPerProject: number = defaultProjectShare(max),
  ) {
    if (!Number.isInteger(max) || max < 1) {
      throw new RangeError(
        `maxConcurrentExports must be an integer from 1, got ${max}`,
      );
    }
    if (!Number.isInteger(maxPerProject) || maxPerProject < 1) {
      throw new RangeError(
        `maxExportsPerProject must be an integer from 1, got ${maxPerProject}`,
      );
    }
    this.max = max;
    this.maxPerProject = Math.min(maxPerProject, max);
  }

  /** How many exports hold a slot now. */
  get running(): number {
    return this.#running;
  }

  /**
   * How many exports of one project hold a slot now.
   *
   * @param projectId The project.
   */
  runningFor(projectId: string): number {
    return this.#byProject.get(projectId) ?? 0;
  }

  /**
   * Takes a slot for a project's export, if the server and the project's
   * share both have one free.
   *
   * @param projectId The exporting project.
   * @returns What gives the slot back, or why there is none.
   */
  take(projectId: string): (() => void) | ExportRefusal {
    if (this.#running >= this.max) return { full: "server", max: this.max };
    const ofProject = this.runningFor(projectId);
    if (ofProject >= this.maxPerProject) {
      return { full: "project", max: this.maxPerProject };
    }
    this.#running += 1;
    this.#byProject.set(projectId, ofProject + 1);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.#running -= 1;
      const left = this.runningFor(projectId) - 1;
      if (left === 0) this.#byProject.delete(projectId);
      else this.#byProject.set(projectId, left);
    };
  }
}
