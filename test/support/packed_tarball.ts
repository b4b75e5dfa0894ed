/**
 * The package as `npm pack` makes it, packed once per test run: when
 * `CALLFLOW_TARBALL` names a tarball (scripts/test.sh packs once and sets it
 * for the tests that install the package), that one; else this process packs
 * the source tree once into a temporary folder.
 *
 * @module
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** A packed package. */
export interface PackedTarball {
  /** The tarball's absolute path. */
  path: string;
  /** Its size in bytes. */
  size: number;
  /** The files it holds, relative to the package (`dist/mod.js`, ...). */
  files: string[];
}

let packed: PackedTarball | undefined;

/**
 * The packed package (packed at most once per process).
 *
 * @returns The tarball and what it holds.
 */
export function packedTarball(): PackedTarball {
  if (packed !== undefined) return packed;
  let path = process.env.CALLFLOW_TARBALL;
  if (path === undefined || path === "") {
    const directory = mkdtempSync(join(tmpdir(), "callflow-pack-"));
    process.once("exit", () => rmSync(directory, { recursive: true }));
    // Node 24 first, so `prepack` (the build) runs on it.
    const output = execFileSync(
      "npm",
      ["pack", "--json", "--pack-destination", directory],
      {
        cwd: ROOT,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
        env: {
          ...process.env,
          PATH: `${dirname(process.execPath)}:${
            join(ROOT, "node_modules", ".bin")
          }:${process.env.PATH}`,
        },
      },
    );
    // The whole of stdout is the JSON: the build writes to stderr.
    const [{ filename }] = JSON.parse(output) as [{ filename: string }];
    path = join(directory, filename);
  }
  const files = execFileSync("tar", ["-tzf", path], { encoding: "utf8" })
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => line.replace(/^package\//, ""));
  packed = { path, size: statSync(path).size, files };
  return packed;
}
