/**
 * The CPU time of the commands a bench runs (Info-ZIP's `zip`, `curl`): this
 * process's children's time from `/proc/self/stat`, which counts each child
 * once it has ended and been waited for.
 *
 * @module
 */
import { readFileSync } from "node:fs";

/**
 * CPU seconds (user + system) of this process's children that have ended.
 *
 * @example
 * ```ts ignore
 * const before = childrenCpuSeconds();
 * execFileSync("zip", ["-q", "-6", "-r", "out.zip", "."]);
 * const zipCpu = childrenCpuSeconds() - before;
 * ```
 */
export function childrenCpuSeconds(): number {
  const fields = readFileSync("/proc/self/stat", "utf8")
    .replace(/^.*\) /s, "")
    .split(" ");
  // cutime and cstime: fields 16 and 17 of stat, 14 and 15 after the name.
  return (Number(fields[13]) + Number(fields[14])) / 100;
}
