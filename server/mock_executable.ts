/**
 * The mock as one standalone executable (`npm run build:mock`, by
 * `bun build --compile`): `callflow-api mock` with the same flags, no
 * JavaScript runtime needed on the machine.
 *
 * @module
 */
import process from "node:process";
import { runCommand } from "./commands/command_line.ts";
import { mockCommand } from "./commands/mock.ts";
// Built into the executable, which has no package.json beside it.
import manifest from "../package.json" with { type: "json" };

runCommand(process.argv.slice(2), mockCommand, () => manifest.version).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error("callflow-mock failed:", error);
    process.exit(1);
  },
);
