/**
 * The relative links of README.md and docs/*.md lead somewhere: each names
 * a file of the repository and, with a `#fragment`, a heading of that file
 * (or of the document itself for a bare `#fragment`).
 *
 * @module
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { documents, documentText, headingAnchors } from "./support/docs.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** The targets of a text's inline links, outside code blocks and spans. */
function linkTargets(text: string): string[] {
  const prose = text.replace(/^```[^]*?^```$/gm, "").replace(/`[^`\n]*`/g, "");
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]!);
}

describe("the documents' relative links", () => {
  for (const document of documents()) {
    it(`${document}: every relative link and anchor exists`, () => {
      const broken: string[] = [];
      for (const target of linkTargets(documentText(document))) {
        if (/^[a-z]+:/.test(target)) continue; // https:, mailto:
        const [path, fragment] = target.split("#") as [string, string?];
        const file = path === ""
          ? join(ROOT, document)
          : join(ROOT, dirname(document), path);
        if (!existsSync(file)) {
          broken.push(`${target}: no file ${relative(ROOT, file)}`);
          continue;
        }
        if (fragment === undefined || !file.endsWith(".md")) continue;
        if (!headingAnchors(readFileSync(file, "utf8")).has(fragment)) {
          broken.push(`${target}: no heading #${fragment}`);
        }
      }
      assert.deepEqual(broken, [], `broken links in ${document}`);
    });
  }

  it("makes GitHub's anchors, repeated headings numbered", () => {
    const anchors = headingAnchors(
      "# Deno Deploy and `deno serve`\n## Bun\n```\n# not a heading\n```\n" +
        "## Bun\n### Edge functions (Vercel, Netlify, …)\n",
    );
    assert.deepEqual([...anchors], [
      "deno-deploy-and-deno-serve",
      "bun",
      "bun-1",
      "edge-functions-vercel-netlify-",
    ]);
  });
});
