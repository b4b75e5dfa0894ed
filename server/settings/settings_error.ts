/**
 * The error a malformed setting throws: its own module, so that the bin's
 * command line (server/commands/command_line.ts) tells a setting's mistake
 * from a crash without loading the settings' modules before Node's compile
 * cache is on.
 *
 * @module
 */

/**
 * A setting with a value the server cannot use.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SettingsError } from "./settings_error.ts";
 *
 * const error = new SettingsError("PORT must be an integer");
 * assert.equal(error.name, "SettingsError");
 * assert.ok(error instanceof Error);
 * ```
 */
export class SettingsError extends Error {
  /**
   * @param message What is wrong, naming the setting.
   */
  constructor(message: string) {
    super(message);
    this.name = "SettingsError";
  }
}
