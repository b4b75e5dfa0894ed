/**
 * A command line's option values, as `node:util`'s `parseArgs` reads them in
 * strict mode, without loading `node:util` for the common lines: on Bun it
 * costs 3.5 to 4 ms of CPU to load, a quarter of the bin's start there (and
 * of the mock executable's). A line of long or single short options, each
 * known, string values as the next argument (not starting with `-`) or after
 * `=`, is read here; any other line (a positional, `--`, a group of short
 * options, an unknown option, a missing or ambiguous value) goes to
 * `parseArgs`, which reads it or throws its own error.
 *
 * @module
 */
import process from "node:process";
import type { ParseArgsConfig } from "node:util";

/** The options of a command, as `parseArgs` takes them. */
export type OptionsConfig = NonNullable<ParseArgsConfig["options"]>;

/**
 * Reads `args` against `options` as `parseArgs({ args, options })` does
 * (strict, no positionals): each option's value, its default when absent,
 * an array for a `multiple` one.
 *
 * @param args The arguments, e.g. `["--port", "80", "-v"]`.
 * @param options The options, e.g. `{ port: { type: "string" } }`.
 * @returns The values by option name (a null-prototype object).
 * @throws {Error} `parseArgs`'s, for a line it refuses.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { optionValues } from "./option_values.ts";
 *
 * const options = {
 *   port: { type: "string" as const, default: "4010" },
 *   verbose: { type: "boolean" as const, short: "v" },
 * };
 * assert.deepEqual({ ...optionValues(["--port=80", "-v"], options) }, {
 *   port: "80",
 *   verbose: true,
 * });
 * assert.deepEqual({ ...optionValues([], options) }, { port: "4010" });
 * assert.throws(() => optionValues(["--bogus"], options), /Unknown option/);
 * ```
 */
export function optionValues(
  args: string[],
  options: OptionsConfig,
): Record<string, unknown> {
  return simpleValues(args, options) ??
    process.getBuiltinModule("node:util").parseArgs({ args, options }).values;
}

/** The values of a simple line (see the module's text), else undefined. */
function simpleValues(
  args: string[],
  options: OptionsConfig,
): Record<string, unknown> | undefined {
  const values: Record<string, unknown> = { __proto__: null };
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    const equals = arg.indexOf("=");
    let name: string | undefined;
    if (/^-[^-]$/.test(arg)) {
      name = Object.keys(options).find((key) => options[key]!.short === arg[1]);
    } else if (arg.startsWith("--") && arg.length > 2) {
      name = arg.slice(2, equals === -1 ? undefined : equals);
    }
    if (name === undefined || !Object.hasOwn(options, name)) return undefined;
    const option = options[name]!;
    let value: string | boolean = true;
    if (option.type === "string") {
      if (arg.startsWith("--") && equals !== -1) {
        value = arg.slice(equals + 1);
      } else {
        const next = args[index + 1];
        if (next === undefined || next.startsWith("-")) return undefined;
        value = next;
        index++;
      }
    } else if (equals !== -1 && arg.startsWith("--")) {
      return undefined;
    }
    if (option.multiple) {
      values[name] = [...(values[name] as unknown[] | undefined ?? []), value];
    } else {
      values[name] = value;
    }
  }
  for (const [name, option] of Object.entries(options)) {
    if (values[name] === undefined && option.default !== undefined) {
      values[name] = option.default;
    }
  }
  return values;
}
