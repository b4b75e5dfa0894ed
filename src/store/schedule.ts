/**
 * Cron schedules, through croner: validation and the next fire times.
 *
 * @module
 */
import { Cron } from "croner";

/** What is wrong with a schedule, and in which field. */
export interface ScheduleProblem {
  /** The field at fault. */
  field: "cron" | "timezone";
  /** What is wrong with it, for the error message. */
  problem: string;
}

/**
 * Checks a cron expression and an IANA time zone: both must parse, and the
 * schedule must fire at least once (`0 9 31 2 *` never does).
 *
 * @returns `undefined` when the schedule is valid, else what is wrong.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { scheduleProblem } from "./schedule.ts";
 *
 * assert.equal(scheduleProblem("0 9 * * 1-5", "Europe/Paris"), undefined);
 * assert.equal(scheduleProblem("0 9 * *", "Europe/Paris")?.field, "cron");
 * assert.equal(scheduleProblem("0 9 * * *", "Mars/Olympus")?.field, "timezone");
 * ```
 */
export function scheduleProblem(
  cron: string,
  timezone: string,
): ScheduleProblem | undefined {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: timezone });
  } catch {
    return { field: "timezone", problem: `unknown time zone "${timezone}"` };
  }
  let job: Cron;
  try {
    job = new Cron(cron, { timezone, paused: true });
  } catch (error) {
    return {
      field: "cron",
      problem: `invalid cron expression "${cron}": ${(error as Error).message}`,
    };
  }
  if (job.nextRun() === null) {
    return { field: "cron", problem: `cron expression "${cron}" never fires` };
  }
  return undefined;
}

/**
 * The next `count` fire times of a schedule strictly after `after`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { nextFireTimes } from "./schedule.ts";
 *
 * assert.deepEqual(
 *   nextFireTimes("0 * * * *", "UTC", 2, new Date("2026-01-01T00:30:00Z")),
 *   [new Date("2026-01-01T01:00:00.000Z"), new Date("2026-01-01T02:00:00.000Z")],
 * );
 * ```
 */
export function nextFireTimes(
  cron: string,
  timezone: string,
  count: number,
  after: Date,
): Date[] {
  return new Cron(cron, { timezone, paused: true }).nextRuns(count, after);
}
