/**
 * Reads ZIP archives back with independent readers: Python's `zipfile`
 * (names, contents, CRCs) and Info-ZIP's `unzip -t`.
 *
 * @module
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Prints, for each archive named, its entries, or why it was refused. */
const READ_WITH_PYTHON = `
import json, sys, zipfile
def read(path):
    try:
        with zipfile.ZipFile(path) as archive:
            bad = archive.testzip()
            if bad is not None:
                return "bad CRC in " + bad
            return [
                [info.filename, info.compress_type, archive.read(info.filename).decode("utf-8")]
                for info in archive.infolist()
            ]
    except Exception as error:
        return repr(error)
print(json.dumps([read(path) for path in sys.argv[1:]]))
`;

/** One entry as Python's zipfile reads it. */
export interface ZipEntry {
  name: string;
  /** 8 for deflate, 0 for stored. */
  compression: number;
  text: string;
}

/** An archive's entries, or why a reader refused it. */
export type ZipReading = { entries: ZipEntry[] } | { refused: string };

/**
 * The entries of an archive, in archive order, read by Python's zipfile after
 * `unzip -t` has tested it; throws when either reader refuses it.
 *
 * @example
 * ```ts ignore
 * const entries = readZip(new Uint8Array(await response.arrayBuffer()));
 * ```
 */
export function readZip(bytes: Uint8Array): ZipEntry[] {
  const reading = readZips([bytes])[0]!;
  if ("refused" in reading) throw new Error(reading.refused);
  return reading.entries;
}

/**
 * Reads several archives as {@linkcode readZip} does, with one Python for
 * all of them: each one's entries, or why `unzip -t` or Python refused it.
 *
 * @example
 * ```ts ignore
 * const [first, second] = readZips([bytes, otherBytes]);
 * if ("refused" in first!) console.log(first.refused);
 * ```
 */
export function readZips(archives: readonly Uint8Array[]): ZipReading[] {
  const directory = mkdtempSync(join(tmpdir(), "zip-check-"));
  try {
    const paths = archives.map((bytes, n) => {
      const path = join(directory, `${n}.zip`);
      writeFileSync(path, bytes);
      return path;
    });
    const readings: (ZipReading | undefined)[] = paths.map((path) => {
      try {
        execFileSync("unzip", ["-tq", path], { stdio: "pipe" });
        return undefined;
      } catch (error) {
        return { refused: String(error) };
      }
    });
    const tested = paths.filter((_, n) => readings[n] === undefined);
    const read = tested.length === 0 ? [] : JSON.parse(
      execFileSync("python3", ["-c", READ_WITH_PYTHON, ...tested], {
        encoding: "utf8",
        maxBuffer: 1 << 30, // archives of many megabytes
      }),
    ) as ([string, number, string][] | string)[];
    return readings.map((reading) => {
      if (reading !== undefined) return reading;
      const entries = read.shift()!;
      return typeof entries === "string" ? { refused: entries } : {
        entries: entries.map(([name, compression, text]) => ({
          name,
          compression,
          text,
        })),
      };
    });
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
