/**
 * Every fenced code block of README.md and docs/*.md either runs in a test
 * or says it does not: the nearest non-blank line before its fence is
 * `<!-- illustrative -->`, or `<!-- tested: <test file> -->` naming an
 * existing test that reads that document. A new snippet therefore needs a
 * decision: a test that extracts and runs it, or the illustrative mark.
 *
 * @module
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { documents, documentText, fencedBlocks } from "./support/docs.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const ILLUSTRATIVE = "<!-- illustrative -->";
const TESTED = /^<!-- tested: (\S+) -->$/;

describe("the documents' code blocks", () => {
  for (const document of documents()) {
    it(`${document}: each block is tested or marked illustrative`, () => {
      const unmarked: string[] = [];
      for (const block of fencedBlocks(documentText(document))) {
        const where = `${document}:${block.line} (${block.lang || "plain"})`;
        if (block.before === ILLUSTRATIVE) continue;
        const tested = TESTED.exec(block.before);
        if (tested === null) {
          unmarked.push(where);
          continue;
        }
        const test = `${ROOT}${tested[1]}`;
        assert.ok(existsSync(test), `${where}: no test file ${tested[1]}`);
        assert.ok(
          readFileSync(test, "utf8").includes(document),
          `${where}: ${tested[1]} does not read ${document}`,
        );
      }
      assert.deepEqual(unmarked, [], "blocks neither tested nor illustrative");
    });
  }

  it("finds the blocks of a document, with the line before each", () => {
    const blocks = fencedBlocks(
      "text\n\n<!-- illustrative -->\n\n```sh\necho\n```\n\n```\nplain\n```\n",
    );
    assert.deepEqual(blocks, [
      { line: 5, lang: "sh", before: ILLUSTRATIVE },
      { line: 9, lang: "", before: "```" },
    ]);
  });
});
