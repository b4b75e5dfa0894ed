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

/** One forbidden import: the files that add it, the rule and the file named. */
interface Violation {
  files: Record<string, string>;
  rule: string;
  file: string;
}

/** The forbidden imports, each added to the copy in a folder of its own. */
const violations: Record<string, Violation> = {
  "an upward import in src/, a type-only one too": {
    files: {
      "src/store/_upward.ts":
        'import type { Context } from "../http/mod.ts";\n' +
        "export type Upward = Context;\n",
    },
    rule: "src-layers-store",
    file: "src/store/_upward\\.ts",
  },
  "an import between two folders of one level": {
    files: {
      "src/auth/_sideways.ts":
        'import { openApiDocument } from "../openapi/mod.ts";\n' +
        "export const sideways = openApiDocument;\n",
    },
    rule: "src-layers-auth",
    file: "src/auth/_sideways\\.ts",
  },
  "a cycle between two modules of one folder": {
    files: {
      "src/zip/_ring_a.ts":
        'import type { B } from "./_ring_b.ts";\nexport type A = B[];\n',
      "src/zip/_ring_b.ts":
        'import type { A } from "./_ring_a.ts";\nexport type B = A | 1;\n',
    },
    rule: "no-circular",
    file: "src/zip/_ring_a\\.ts",
  },
  "src/ importing mock/": {
    files: { "src/zip/_outward.ts": 'export * from "../../mock/mod.ts";\n' },
    rule: "packages-src",
    file: "src/zip/_outward\\.ts",
  },
  "a folder of src/ that layers.json does not declare": {
    files: {
      "src/extra/mod.ts": "export const extra = 1;\n",
      "src/operations/_uses_extra.ts": 'export * from "../extra/mod.ts";\n',
    },
    rule: "src-layers-undeclared",
    file: "src/operations/_uses_extra\\.ts",
  },
  "product code importing test/": {
    files: { "mock/_uses_test.ts": 'export * from "../test/helper.ts";\n' },
    rule: "not-to-test-or-bench",
    file: "mock/_uses_test\\.ts",
  },
};

describe("npm run check:layers", () => {
  let copy = "";
  /** What the check said of the copy as it is, then with every violation. */
  let clean: Cruise;
  let broken: Cruise;

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

  // Each cruise takes seconds: the copy is cruised twice, clean and with all
  // the violations at once; each case then finds its own error line, which
  // names its rule and its file.
  before(() => {
    copy = mkdtempSync(join(tmpdir(), "callflow-layers-"));
    for (const path of ["layers.json", ".dependency-cruiser.cjs", "src/"]) {
      cpSync(`${ROOT}${path}`, join(copy, path), { recursive: true });
    }
    cpSync(`${ROOT}mock/`, join(copy, "mock/"), { recursive: true });
    mkdirSync(join(copy, "test"));
    writeFileSync(join(copy, "test/helper.ts"), "export const help = 1;\n");
    clean = cruiseCopy();
    for (const { files } of Object.values(violations)) {
      for (const [path, text] of Object.entries(files)) {
        mkdirSync(dirname(join(copy, path)), { recursive: true });
        writeFileSync(join(copy, path), text);
      }
    }
    broken = cruiseCopy();
  });

  after(() => rmSync(copy, { recursive: true, force: true }));

  it("passes on the project", () => {
    const { status, output } = depcruise(ROOT, checkLayersArgs());
    assert.equal(status, 0, output);
    assert.match(output, /no dependency violations found/);
  });

  it("passes on the copy the other cases change", () => {
    assert.equal(clean.status, 0, clean.output);
  });

  for (const [name, { rule, file }] of Object.entries(violations)) {
    it(`refuses ${name}`, () => {
      assert.notEqual(broken.status, 0, broken.output);
      assert.match(
        broken.output,
        new RegExp(`error ${rule}: ${file}`),
        broken.output,
      );
    });
  }
});
