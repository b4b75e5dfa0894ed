/**
 * `optionValues` (server/commands/option_values.ts) reads every command
 * line as `node:util`'s `parseArgs` does: the same values, or the same
 * error, over lines drawn from the bin's options, values, and the
 * arguments that make `parseArgs` refuse a line.
 *
 * @module
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseArgs } from "node:util";
import fc from "fast-check";
import { optionValues } from "../server/commands/option_values.ts";
import { mockCommand } from "../server/commands/mock.ts";
import { serveCommand } from "../server/commands/serve.ts";
import { migrateCommand } from "../server/commands/migrate.ts";

/** What reading `args` gives: its values (a plain copy) or its error. */
function outcome(read: () => Record<string, unknown>): unknown {
  try {
    return { values: { ...read() } };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

const ARGUMENT = fc.constantFrom(
  "--port",
  "--port=80",
  "--port=",
  "--host",
  "--allowed-host",
  "--allowed-host=a.test",
  "--verbose",
  "--verbose=yes",
  "-v",
  "-h",
  "-V",
  "-hV",
  "-p",
  "--help",
  "--version",
  "--no-docs",
  "--bogus",
  "--__proto__",
  "--",
  "-",
  "---x",
  "80",
  "",
  "-1",
  "a.test",
);

describe("optionValues", () => {
  for (const command of [mockCommand, serveCommand, migrateCommand]) {
    const options = {
      ...command.options,
      version: { type: "boolean" as const, short: "V" },
      help: { type: "boolean" as const, short: "h" },
    };
    it(`reads each line as parseArgs does: ${command.usage.split("\n")[0]}`, () => {
      fc.assert(
        fc.property(fc.array(ARGUMENT, { maxLength: 5 }), (args) => {
          assert.deepEqual(
            outcome(() => optionValues(args, options)),
            outcome(() => parseArgs({ args, options }).values),
            JSON.stringify(args),
          );
        }),
        { numRuns: 2000 },
      );
    });
  }
});
