/**
 * The bound on bulk exports running at once, whatever the store: each one
 * holds a ZIP writer, a batch of messages and a client's connection for as
 * long as the client reads. A project may hold only its share of the slots,
 * and the share shrinks as more projects export, so that no two busy
 * projects can keep every other one from exporting.
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
   * A project's share when `exporting` projects export, itself included:
   * `maxPerProject` for a project alone; with others, the slots divided by
   * one more than the projects exporting (at most `maxPerProject`, at least
   * 1), so that a share is always left for one more project. With 16 slots
   * and the default 8 per project: 8 alone, 5 with one other, 4 with two.
   * A project above its share keeps its exports; it starts no new one until
   * it is below.
   *
   * @param exporting How many projects export, the asking one included.
   * @returns How many slots each of them may hold.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { ExportSlots } from "./export_slots.ts";
   *
   * const slots = new ExportSlots(16);
   * assert.deepEqual([1, 2, 3, 4].map((n) => slots.shareOf(n)), [8, 5, 4, 3]);
   * ```
   */
  shareOf(exporting: number): number {
    if (exporting <= 1) return this.maxPerProject;
    return Math.min(
      this.maxPerProject,
      Math.max(1, Math.floor(this.max / (exporting + 1))),
    );
  }

  /**
   * Takes a slot for a project's export, if the server has one free and the
   * project is below its share (see {@linkcode ExportSlots.shareOf}).
   *
   * @param projectId The exporting project.
   * @returns What gives the slot back, or why there is none.
   */
  take(projectId: string): (() => void) | ExportRefusal {
    if (this.#running >= this.max) return { full: "server", max: this.max };
    const ofProject = this.runningFor(projectId);
    const exporting = this.#byProject.size + (ofProject === 0 ? 1 : 0);
    const share = this.shareOf(exporting);
    if (ofProject >= share) return { full: "project", max: share };
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
