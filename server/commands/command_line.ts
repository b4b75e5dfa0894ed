/**
 * What every `callflow-api` command shares: `--help`, `--version` (the
 * package's version), and one wording for usage errors: the problem, a blank
 * line, the command's usage; exit code 2. Problems with a value are worded
 * as the settings are: `--port must be an integer from 0 to 65535, got "x"`.
 *
 * @module
 */
import process from "node:process";
import { SettingsError } from "../settings/settings_error.ts";
import { type OptionsConfig, optionValues } from "./option_values.ts";

/** A mistake on the command line: the usage is printed, exit code 2. */
export class UsageError extends Error {
  /**
   * @param message What is wrong, e.g. `Unknown option '--bogus'`.
   */
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/**
 * Reads command-line option values with the settings' parsers: a value
 * they refuse (a {@linkcode SettingsError}) is a usage error, worded as the
 * setting's, e.g. `--port must be an integer from 0 to 65535, got "x"`.
 *
 * @param read Reads the values; may throw a `SettingsError`.
 * @returns What `read` returns.
 * @throws {UsageError} for a value the settings refuse.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { optionValue, UsageError } from "./command_line.ts";
 * import { parsePort } from "../settings/settings.ts";
 *
 * assert.equal(optionValue(() => parsePort("80", "--port")), 80);
 * assert.throws(() => optionValue(() => parsePort("x", "--port")), UsageError);
 * ```
 */
export function optionValue<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error;
    throw new UsageError(error.message);
  }
}

/** The exit code of a usage error. */
export const USAGE_EXIT_CODE = 2;

/**
 * The package's version, from the package.json next to the sources (this
 * repository) or to the build (`dist/` in the installed package), or, run
 * from JSR (no manifest beside a module fetched over HTTPS), from the
 * module's own URL, `https://jsr.io/@callflow/api/<version>/…`.
 *
 * @param moduleUrl Where this module was loaded from. Default: its own URL.
 * @returns e.g. `0.1.0`, or `unknown` when neither tells.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { packageVersion } from "./command_line.ts";
 *
 * assert.match(packageVersion(), /^\d+\.\d+\.\d+/);
 * assert.equal(
 *   packageVersion("https://jsr.io/@callflow/api/1.2.3/server/commands/command_line.ts"),
 *   "1.2.3",
 * );
 * assert.equal(packageVersion("https://example.com/server/cli.ts"), "unknown");
 * ```
 */
export function packageVersion(moduleUrl: string = import.meta.url): string {
  const published = JSR_MODULE.exec(moduleUrl);
  if (published !== null) return published[1]!;
  if (!moduleUrl.startsWith("file:")) return "unknown";
  // Loaded here, not at start: on Bun (the mock executable), 2 to 3 ms.
  const { readFileSync } = process.getBuiltinModule("node:fs");
  // From the sources (server/commands/) or from the build
  // (dist/server/commands/).
  for (const path of ["../../package.json", "../../../package.json"]) {
    try {
      const manifest = JSON.parse(
        readFileSync(new URL(path, moduleUrl), "utf8"),
      ) as { name?: string; version?: string };
      if (manifest.name === "@callflow/api") return manifest.version ?? "";
    } catch {
      // Not there: try the next place.
    }
  }
  return "unknown";
}

/** A module of this package served by JSR, its version in group 1. */
const JSR_MODULE = /^https:\/\/jsr\.io\/@callflow\/api\/([^/]+)\//;

/** The parsed options of a command, by name. */
export type OptionValues = Record<string, string | boolean | undefined>;

/** A command of the bin: its help text, its options and what it does. */
export interface Command {
  /** The help text, starting `Usage: callflow-api <name> ...`. */
  usage: string;
  /** Its options, without `--help` and `--version` (added to every command). */
  options: OptionsConfig;
  /**
   * Runs it with the parsed options; throws {@linkcode UsageError} for a
   * value it refuses. Resolves with the exit code.
   */
  run(values: OptionValues): Promise<number>;
}

/**
 * Runs a command: `--help` prints its usage, `--version` the package's
 * version, a usage error prints the problem and the usage on stderr.
 *
 * @param args The arguments after the command's name.
 * @param command The command.
 * @param version Where `--version` reads the version. Default: the
 * package.json beside the sources ({@linkcode packageVersion}).
 * @returns The exit code: the command's, 0 for help and version, 2 for a
 * usage error.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runCommand, UsageError } from "./command_line.ts";
 *
 * const command = {
 *   usage: "Usage: callflow-api echo --text <t>",
 *   options: { text: { type: "string" as const } },
 *   run: (values: { text?: unknown }) => {
 *     if (values.text === undefined) throw new UsageError("Missing --text");
 *     return Promise.resolve(0);
 *   },
 * };
 * assert.equal(await runCommand(["--text", "hi"], command), 0);
 * assert.equal(await runCommand(["--help"], command), 0);
 * assert.equal(await runCommand([], command), 2);
 * assert.equal(await runCommand(["--bogus"], command), 2);
 * ```
 */
export async function runCommand(
  args: string[],
  command: Command,
  version: () => string = packageVersion,
): Promise<number> {
  try {
    let values;
    try {
      values = optionValues(args, {
        ...command.options,
        version: { type: "boolean", short: "V" },
        help: { type: "boolean", short: "h" },
      }) as OptionValues;
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    if (values.help) {
      console.log(command.usage);
      return 0;
    }
    if (values.version) {
      console.log(version());
      return 0;
    }
    return await command.run(values);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(usageErrorText(error.message, command.usage));
    return USAGE_EXIT_CODE;
  }
}

/**
 * The one wording of a usage error: the problem, a blank line, the usage.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { usageErrorText } from "./command_line.ts";
 *
 * assert.equal(usageErrorText("Missing command", "Usage: x"), "Missing command\n\nUsage: x");
 * ```
 */
export function usageErrorText(message: string, usage: string): string {
  return `${message}\n\n${usage}`;
}
