/**
 * Cron schedules, through croner: validation and the next fire times.
 *
 * @module
 */
import { Cron } from "croner";

/**
 * Checks a cron expression and an IANA time zone.
 *
 * @returns `undefined` when both are valid, else why not.
 *
 * @example
 * ```ts
 * import { scheduleProblem } from "./schedule.ts";
 *
 * scheduleProblem("0 9 * * 1-5", "Europe/Paris"); // undefined
 * scheduleProblem("0 9 * *", "Europe/Paris"); // "invalid cron expression: ..."
 * ```
 */
export function scheduleProblem(
  cron: string,
  timezone: string,
): string | undefined {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: timezone });
  } catch {
    return `unknown time zone "${timezone}"`;
  }
  try {
    new Cron(cron, { timezone, paused: true });
  } catch (error) {
    return `invalid cron expression "${cron}": ${(error as Error).message}`;
  }
  return undefined;
}

/**
 * The next `count` fire times of a schedule strictly after `after`.
 *
 * @example
 * ```ts
 * import { nextFireTimes } from "./schedule.ts";
 *
 * nextFireTimes("0 * * * *", "UTC", 2, new Date("2026-01-01T00:30:00Z"));
 * // [2026-01-01T01:00:00.000Z, 2026-01-01T02:00:00.000Z]
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
