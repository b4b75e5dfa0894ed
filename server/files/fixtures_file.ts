/**
 * Reading a fixtures file from disk, for the servers' `FIXTURES` setting.
 *
 * @module
 */
import { demoFixtures } from "../../src/store/mod.ts";
import {
  type Fixtures,
  FixturesError,
  parseFixtures,
} from "../../src/store/mod.ts";

/**
 * Reads and checks a fixtures file.
 *
 * @param path The file's path.
 * @returns The canonical fixtures.
 * @throws {FixturesError} when the file cannot be read, is not JSON, or
 * breaks the format (the message names the offending path).
 *
 * @example
 * ```ts ignore
 * import { readFixturesFile } from "./fixtures_file.ts";
 *
 * const fixtures = await readFixturesFile("fixtures.json");
 * ```
 */
export async function readFixturesFile(path: string): Promise<Fixtures> {
  let text: string;
  try {
    // Loaded here, not at start: on Bun, 2 to 4 ms of CPU.
    const { readFile } = await import("node:fs/promises");
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new FixturesError(
      path,
      `cannot read file: ${(error as Error).message}`,
    );
  }
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch (error) {
    throw new FixturesError(
      path,
      `not valid JSON: ${(error as Error).message}`,
    );
  }
  return parseFixtures(input);
}

/**
 * The shortest token loaded into a database: 32 characters, 128 bits of
 * randomness in hexadecimal (`openssl rand -hex 32` gives 64). Length is
 * what can be checked; randomness is the provisioner's part.
 */
export const MIN_TOKEN_LENGTH = 32;

/**
 * Refuses fixtures whose tokens are too short to resist guessing, before
 * they go into a database (memory stores, for tests and the mock, take
 * any). The message names the token's place in the file, never the token.
 *
 * @param fixtures The fixtures to load.
 * @throws {FixturesError} for the first token shorter than
 * {@linkcode MIN_TOKEN_LENGTH}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { requireLongTokens } from "./fixtures_file.ts";
 * import { demoFixtures } from "../../src/store/demo_fixtures.ts";
 *
 * assert.throws(() => requireLongTokens(demoFixtures), /tokens\[0\]\.token/);
 * ```
 */
export function requireLongTokens(fixtures: Fixtures): void {
  const index = fixtures.tokens.findIndex(({ token }) =>
    token.length < MIN_TOKEN_LENGTH
  );
  if (index === -1) return;
  throw new FixturesError(
    `tokens[${index}].token`,
    `${
      fixtures.tokens[index]!.token.length
    } characters; a token loaded into a database needs at least ${MIN_TOKEN_LENGTH} (128 bits of randomness, e.g. openssl rand -hex 32), unless ALLOW_SHORT_TOKENS=1 allows short ones (for tests)`,
  );
}

/** The demo data's tokens: public, so they may be shown. */
const DEMO_TOKENS: ReadonlySet<string> = new Set(
  demoFixtures.tokens.map(({ token }) => token),
);

/**
 * What a server says at start (or when its fixtures change) about the tokens
 * it loaded: only how many, since tokens are secrets and stdout ends up in
 * log collectors. When every token is one of the built-in demo data's,
 * public and listed in the README, they are listed (see
 * {@linkcode describeTokens}).
 *
 * @param fixtures The fixtures loaded.
 * @returns One line, or the demo data's listing.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { announceTokens } from "./fixtures_file.ts";
 * import { demoFixtures } from "../../src/store/demo_fixtures.ts";
 * import { parseFixtures } from "../../src/store/fixtures.ts";
 *
 * const project_id = "3f1c9a52-7a4b-4e2d-9c11-5b8f2e6d7a90";
 * const secret = parseFixtures({
 *   projects: [{ project_id, name: "P" }],
 *   tokens: [{ token: "s3cret", project_id, role: "owner" }],
 * });
 * assert.equal(announceTokens(secret), "Tokens: 1 loaded (not shown)");
 * assert.match(announceTokens(demoFixtures), /demo-owner/);
 * ```
 */
export function announceTokens(fixtures: Fixtures): string {
  const count = fixtures.tokens.length;
  if (count === 0) return "Tokens: none";
  if (fixtures.tokens.every(({ token }) => DEMO_TOKENS.has(token))) {
    return `Tokens (token, role, project):\n${describeTokens(fixtures)}`;
  }
  return `Tokens: ${count} loaded (not shown)`;
}

/**
 * A listing of the fixtures' tokens, one line each: for the demo data only,
 * whose tokens are public.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { describeTokens } from "./fixtures_file.ts";
 * import { demoFixtures } from "../../src/store/demo_fixtures.ts";
 *
 * const lines = describeTokens(demoFixtures).split("\n");
 * assert.match(lines[0]!, /^ +demo-owner +owner +Acme$/);
 * ```
 */
export function describeTokens(fixtures: Fixtures): string {
  const names = new Map(
    fixtures.projects.map((project) => [project.project_id, project.name]),
  );
  const width = Math.max(
    0,
    ...fixtures.tokens.map(({ token }) => token.length),
  );
  return fixtures.tokens.map(({ token, role, project_id }) =>
    `  ${token.padEnd(width)}  ${role.padEnd(7)}  ${names.get(project_id)}`
  ).join("\n");
}
