/**
 * Patches postgres.js 3.4.x in node_modules (run by `npm install` through the
 * `prepare` script; idempotent). A connection whose socket closes keeps, for
 * its next socket, state that belongs to the old one:
 *
 * - the pending write buffer and the handle of its cancelled flush timer, so
 *   that the next socket's startup message is never sent and the connection
 *   hangs until `connect_timeout` (discussed in porsager/postgres#1215; the
 *   analysis is LanternOps/breeze#3225);
 * - the query that was running and the server's error for it, which the next
 *   socket's first ReadyForQuery hands to the next query: the old backend's
 *   `57P01 terminating connection` fails a query on a healthy connection
 *   (porsager/postgres#1223);
 * - the row counter, so the next result starts after holes
 *   (porsager/postgres#1119, #1181; `denseRows` also guards against this
 *   where the patch is absent).
 *
 * The patch resets them when a socket closes and when the next one connects.
 * Another postgres.js version whose code differs is left alone, with a note.
 *
 * @module
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const MARK = "patched by @callflow/api";
const ROOT = join(
  import.meta.dirname ?? new URL(".", import.meta.url).pathname,
  "..",
  "node_modules",
  "postgres",
);
const EDITS = [
  [
    "\n    clearImmediate(nextWriteTimer)\n",
    `\n    clearImmediate(nextWriteTimer)\n    chunk = nextWriteTimer = null // ${MARK}\n`,
  ],
  [
    "\n  function connected() {\n    try {\n",
    `\n  function connected() {\n    query = results = errorResponse = null, rows = 0 // ${MARK}\n    try {\n`,
  ],
];

for (const build of ["src", "cjs/src", "cf/src"]) {
  const path = join(ROOT, build, "connection.js");
  if (!existsSync(path)) continue;
  const source = readFileSync(path, "utf8");
  if (source.includes(MARK)) continue;
  let patched = source;
  for (const [from, to] of EDITS) patched = patched.replaceAll(from, to);
  // terminate() and closed() clear the timer; connected() once.
  const applied = patched.split(MARK).length - 1;
  if (applied !== 3) {
    console.warn(
      `postgres.js not patched (${path}: ${applied} of 3 places found); ` +
        "see README, Known limits of postgres.js",
    );
    continue;
  }
  writeFileSync(path, patched);
}
