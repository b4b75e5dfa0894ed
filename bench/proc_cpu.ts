/**
 * CPU time from `/proc`: of the commands a bench runs (Info-ZIP's `zip`,
 * `curl`), counted in this process's once each has ended and been waited
 * for; and of one thread of a process.
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

/**
 * CPU seconds (user + system) one thread of a process has used so far.
 *
 * @example
 * ```ts ignore
 * const mainThread = threadCpuSeconds(process.pid, process.pid);
 * ```
 */
export function threadCpuSeconds(pid: number, thread: number): number {
  const fields = readFileSync(`/proc/${pid}/task/${thread}/stat`, "utf8")
    .replace(/^.*\) /s, "")
    .split(" ");
  // utime and stime: fields 14 and 15 of stat, 12 and 13 after the name.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
