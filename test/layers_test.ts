/**
 * `npm run check:layers`: dependency-cruiser with the rules
 * .dependency-cruiser.cjs makes from layers.json. The project passes it, and
 * a copy of the code with one forbidden import added fails it, naming the
 * broken rule and the importing file: an upward import in src/ (a type-only
 * one too), an import within one level, a cycle, src/ importing mock/, a
 * folder of src/ that layers.json does not declare, product code importing
 * test/.
 *
 * @module
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
/** The project's Node (a devDependency), whichever runtime runs the test. */
const NODE = existsSync(`${ROOT}node_modules/.bin/node`)
  ? `${ROOT}node_modules/.bin/node`
  : "node";
const DEPCRUISE =
  `${ROOT}node_modules/dependency-cruiser/bin/dependency-cruiser.mjs`;

/** What one run of dependency-cruiser said. */
interface Cruise {
  status: number | null;
  output: string;
}

/** Runs dependency-cruiser in `cwd` with the given arguments. */
function depcruise(cwd: string, args: string[]): Cruise {
  const run = spawnSync(NODE, [DEPCRUISE, ...args], {
    cwd,
    encoding: "utf8",
    timeout: 60_000,
  });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

/** The arguments `npm run check:layers` gives dependency-cruiser. */
function checkLayersArgs(): string[] {
  const manifest = JSON.parse(readFileSync(`${ROOT}package.json`, "utf8"));
  const [command, ...args] = String(manifest.scripts["check:layers"])
    .split(/\s+/);
  assert.equal(command, "depcruise");
  return args;
}

describe("npm run check:layers", () => {
  let copy = "";
  const added: string[] = [];

  /** Writes files into the copy, removed again after the test. */
  function add(files: Record<string, string>): void {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(copy, path)), { recursive: true });
      writeFileSync(join(copy, path), text);
      added.push(path);
    }
  }

  /** Cruises the copy: its src/, mock/ and test/. */
  function cruiseCopy(): Cruise {
    return depcruise(copy, [
      "--config",
      ".dependency-cruiser.cjs",
      "src",
      "mock",
      "test",
    ]);
  }

  /**
   * Asserts that the copy, with `files` added, fails the check on `rule`,
   * found in `file`; the files are removed again.
   */
  function assertRefused(
    files: Record<string, string>,
    rule: string,
    file: string,
  ): void {
    add(files);
    try {
      const { status, output } = cruiseCopy();
      assert.notEqual(status, 0, output);
      assert.match(output, new RegExp(`error ${rule}: ${file}`), output);
    } finally {
      for (const path of added.splice(0)) rmSync(join(copy, path));
    }
  }

  before(() => {
    copy = mkdtempSync(join(tmpdir(), "callflow-layers-"));
    for (const path of ["layers.json", ".dependency-cruiser.cjs", "src/"]) {
      cpSync(`${ROOT}${path}`, join(copy, path), { recursive: true });
    }
    cpSync(`${ROOT}mock/`, join(copy, "mock/"), { recursive: true });
    mkdirSync(join(copy, "test"));
    writeFileSync(join(copy, "test/helper.ts"), "export const help = 1;\n");
  });

  after(() => rmSync(copy, { recursive: true, force: true }));

  it("passes on the project", () => {
    const { status, output } = depcruise(ROOT, checkLayersArgs());
    assert.equal(status, 0, output);
    assert.match(output, /no dependency violations found/);
  });

  it("passes on the copy the other cases change", () => {
    const { status, output } = cruiseCopy();
    assert.equal(status, 0, output);
  });

  it("refuses an upward import in src/, a type-only one too", () => {
    assertRefused(
      {
        "src/store/_upward.ts":
          'import type { Context } from "../http/mod.ts";\n' +
          "export type Upward = Context;\n",
      },
      "src-layers-store",
      "src/store/_upward\\.ts",
    );
  });

  it("refuses an import between two folders of one level", () => {
    assertRefused(
      {
        "src/auth/_sideways.ts":
          'import { openApiDocument } from "../openapi/mod.ts";\n' +
          "export const sideways = openApiDocument;\n",
      },
      "src-layers-auth",
      "src/auth/_sideways\\.ts",
    );
  });

  it("refuses a cycle between two modules of one folder", () => {
    assertRefused(
      {
        "src/zip/_ring_a.ts":
          'import type { B } from "./_ring_b.ts";\nexport type A = B[];\n',
        "src/zip/_ring_b.ts":
          'import type { A } from "./_ring_a.ts";\nexport type B = A | 1;\n',
      },
      "no-circular",
      "src/zip/_ring_a\\.ts",
    );
  });

  it("refuses src/ importing mock/", () => {
    assertRefused(
      {
        "src/zip/_outward.ts": 'export * from "../../mock/mod.ts";\n',
      },
      "packages-src",
      "src/zip/_outward\\.ts",
    );
  });

  it("refuses a folder of src/ that layers.json does not declare", () => {
    assertRefused(
      {
        "src/extra/mod.ts": "export const extra = 1;\n",
        "src/operations/_uses_extra.ts": 'export * from "../extra/mod.ts";\n',
      },
      "src-layers-undeclared",
      "src/operations/_uses_extra\\.ts",
    );
  });

  it("refuses product code importing test/", () => {
    assertRefused(
      { "mock/_uses_test.ts": 'export * from "../test/helper.ts";\n' },
      "not-to-test-or-bench",
      "mock/_uses_test\\.ts",
    );
  });
});
