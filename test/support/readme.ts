/**
 * Reading the README's snippets, so that tests run the text users copy:
 * a section by its heading, its fenced code blocks, and shell lines split
 * into commands.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const README = fileURLToPath(new URL("../../README.md", import.meta.url));

/** A fenced code block: its info string's language and its text. */
export interface CodeBlock {
  lang: string;
  text: string;
}

/**
 * The text of the section under the heading `title` (any level), up to the
 * next heading of the same or a higher level.
 *
 * @param title The heading's text, e.g. ``Deno Deploy and `deno serve` ``.
 * @throws {Error} when the README has no such heading.
 */
export function readmeSection(title: string): string {
  const lines = readFileSync(README, "utf8").split("\n");
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
  if (start === -1) throw new Error(`README.md has no heading "${title}"`);
  return lines.slice(start).join("\n");
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
 * Splits a command at spaces (the README's launch lines quote nothing):
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
