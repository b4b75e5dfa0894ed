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

const READ_WITH_PYTHON = `
import json, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as archive:
    bad = archive.testzip()
    if bad is not None:
        sys.exit("bad CRC in " + bad)
    print(json.dumps([
        [info.filename, info.compress_type, archive.read(info.filename).decode("utf-8")]
        for info in archive.infolist()
    ]))
`;

/** One entry as Python's zipfile reads it. */
export interface ZipEntry {
  name: string;
  /** 8 for deflate, 0 for stored. */
  compression: number;
  text: string;
}

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
  const directory = mkdtempSync(join(tmpdir(), "zip-check-"));
  const path = join(directory, "archive.zip");
  try {
    writeFileSync(path, bytes);
    execFileSync("unzip", ["-tq", path], { stdio: "pipe" });
    const output = execFileSync("python3", ["-c", READ_WITH_PYTHON, path], {
      encoding: "utf8",
      maxBuffer: 1 << 30, // archives of many megabytes
    });
    return (JSON.parse(output) as [string, number, string][]).map((
      [name, compression, text],
    ) => ({ name, compression, text }));
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
