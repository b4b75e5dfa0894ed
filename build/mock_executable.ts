/**
 * `npm run build:mock`: the mock as one standalone executable for this
 * machine's platform, `dist-bin/callflow-mock` (or the path given as the
 * first argument), compiled by `bun build --compile` from
 * `server/mock_executable.ts`. The optional OpenTelemetry packages that are
 * not installed are left out (external): the executable then runs without
 * them, and says which one is missing only if telemetry is asked for.
 * @hono/node-server, Node's adapter, is left out too: Bun never runs it.
 * `--bytecode` embeds JavaScriptCore's bytecode beside the source, so a start
 * does not parse the bundle: it halves the executable's start CPU, for 3 MB
 * (`--format=esm`: without it, Bun's bytecode bundle is CommonJS).
 *
 * @module
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const outfile = process.argv[2] ?? join(root, "dist-bin", "callflow-mock");
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));

/** The optional dependencies this install does not have. */
const missing = Object.keys(manifest.optionalDependencies ?? {}).filter(
  (name) => !existsSync(join(root, "node_modules", name, "package.json")),
);
execFileSync(
  join(root, "node_modules", ".bin", "bun"),
  [
    "build",
    "--compile",
    "--minify",
    "--bytecode",
    "--format=esm",
    join(root, "server", "mock_executable.ts"),
    "--outfile",
    outfile,
    // The reference page's files, read at /docs (server/files/reference_page.ts).
    ...["swagger-ui.css", "swagger-ui-bundle.js"].flatMap((name) => [
      "--asset",
      join("node_modules", "swagger-ui-dist", name),
    ]),
    ...missing.flatMap((name) => ["--external", name]),
    // Node's adapter, never run by Bun: bundled, its node:http and
    // node:http2 would load at every start (half of the executable's).
    "--external",
    "@hono/node-server",
  ],
  { cwd: root, stdio: ["ignore", "inherit", "inherit"] },
);
console.error(
  `built ${outfile}${
    missing.length === 0 ? "" : ` (without ${missing.join(", ")})`
  }`,
);
