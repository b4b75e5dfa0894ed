/**
 * Reading a fixtures file from disk, for the servers' `FIXTURES` setting.
 *
 * @module
 */
import { readFile } from "node:fs/promises";
import {
  type Fixtures,
  FixturesError,
  parseFixtures,
} from "../src/store/fixtures.ts";

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
 * import { readFixturesFile } from "./_fixtures_file.ts";
 *
 * const fixtures = await readFixturesFile("fixtures.json");
 * ```
 */
export async function readFixturesFile(path: string): Promise<Fixtures> {
  let text: string;
  try {
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
 * A start-up listing of the fixtures' tokens, one line each.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { describeTokens } from "./_fixtures_file.ts";
 * import { demoFixtures } from "../src/store/demo_fixtures.ts";
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
