/**
 * Reading the snippets of the README and the pages in docs/, so that tests
 * run the text users copy: a section by its heading, its fenced code blocks,
 * shell lines split into commands; and, for the checks of the documents
 * themselves, every fenced block with its marker and every heading's anchor.
 *
 * @module
 */
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/**
 * The documents, as paths from the repository's root: README.md and every
 * Markdown page in docs/.
 */
export function documents(): string[] {
  const pages = readdirSync(`${ROOT}docs`)
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => `docs/${name}`);
  return ["README.md", ...pages];
}

/** A document's text, by its path from the repository's root. */
export function documentText(document: string): string {
  return readFileSync(`${ROOT}${document}`, "utf8");
}

/** A fenced code block: its info string's language and its text. */
export interface CodeBlock {
  lang: string;
  text: string;
}

/**
 * The text of the section under the heading `title` (any level), up to the
 * next heading of the same or a higher level.
 *
 * @param document The document's path from the repository's root, e.g.
 * `README.md` or `docs/operating.md`.
 * @param title The heading's text, e.g. ``Deno Deploy and `deno serve` ``.
 * @throws {Error} when the document has no such heading.
 */
export function documentSection(document: string, title: string): string {
  const lines = documentText(document).split("\n");
  let fence = false;
  let start = -1;
  let level = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith("```")) fence = !fence;
    if (fence) continue;
    const heading = /^(#+) (.*)$/.exec(line);
    if (heading === null) continue;
    if (start === -1) {
      if (heading[2] === title) {
        start = i + 1;
        level = heading[1]!.length;
      }
    } else if (heading[1]!.length <= level) {
      return lines.slice(start, i).join("\n");
    }
  }
  if (start === -1) throw new Error(`${document} has no heading "${title}"`);
  return lines.slice(start).join("\n");
}

/**
 * The first fenced block of a language, in a whole document, that contains
 * `marker`.
 *
 * @throws {Error} when there is none.
 */
export function codeBlockWith(
  document: string,
  lang: string,
  marker: string,
): string {
  const block = codeBlocks(documentText(document), lang)
    .find((block) => block.text.includes(marker));
  if (block === undefined) {
    throw new Error(`No ${lang} block with ${marker} in ${document}`);
  }
  return block.text;
}

/**
 * The fenced code blocks of a text, in order; with `lang`, those of that
 * language only.
 */
export function codeBlocks(text: string, lang?: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  const pattern = /^```(\w*)\n([^]*?)^```$/gm;
  for (const match of text.matchAll(pattern)) {
    if (lang === undefined || match[1] === lang) {
      blocks.push({ lang: match[1]!, text: match[2]! });
    }
  }
  return blocks;
}

/**
 * The commands of shell text: continuation lines joined, comments (`#` after
 * a space or at the start) and blank lines dropped, `&&` chains split.
 */
export function shellCommands(text: string): string[] {
  return text.replace(/\\\n\s*/g, "")
    .split("\n")
    .map((line) => line.replace(/(^|\s)#.*$/, "").trim())
    .filter((line) => line !== "")
    .flatMap((line) => line.split(/\s*&&\s*/));
}

/** A shell command without quoting: leading `NAME=value` words, then argv. */
export interface SimpleCommand {
  env: Record<string, string>;
  argv: string[];
}

/**
 * Splits a command at spaces (the documents' launch lines quote nothing):
 * leading `NAME=value` words become its environment.
 *
 * @throws {Error} for a line with quotes, which this does not parse.
 */
export function parseCommand(line: string): SimpleCommand {
  if (/["'`$]/.test(line)) throw new Error(`Cannot parse quotes: ${line}`);
  const words = line.split(/\s+/);
  const env: Record<string, string> = {};
  while (words.length > 0 && /^[A-Z_][A-Z0-9_]*=/.test(words[0]!)) {
    const [name, ...value] = words.shift()!.split("=");
    env[name!] = value.join("=");
  }
  return { env, argv: words };
}

/** A fenced block as written in a document, with what stands before it. */
export interface FencedBlock {
  /** 1-based line of the opening fence. */
  line: number;
  lang: string;
  /** The nearest non-blank line before the fence ("" at the top). */
  before: string;
}

/** Every fenced block of a text, whatever its language, in order. */
export function fencedBlocks(text: string): FencedBlock[] {
  const lines = text.split("\n");
  const blocks: FencedBlock[] = [];
  let previous = "";
  let inside = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const fence = /^```(\S*)/.exec(line);
    if (fence !== null) {
      if (!inside) {
        blocks.push({ line: i + 1, lang: fence[1]!, before: previous });
      }
      inside = !inside;
      previous = line;
    } else if (!inside && line.trim() !== "") previous = line.trim();
  }
  return blocks;
}

/**
 * The anchors of a text's headings as GitHub makes them: lower case,
 * punctuation dropped, spaces as hyphens, a repeated one suffixed `-1`, `-2`.
 */
export function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let inside = false;
  for (const line of text.split("\n")) {
    if (line.startsWith("```")) inside = !inside;
    const heading = inside ? null : /^#+ (.*)$/.exec(line);
    if (heading === null) continue;
    const slug = heading[1]!.toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/ /g, "-");
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}
