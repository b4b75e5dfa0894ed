import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { MIGRATION_SQL } from "../postgres/migration_sql.ts";
import { MIGRATION_FILES } from "../postgres/migrations.ts";

const directory = new URL("../postgres/migrations/", import.meta.url);

describe("postgres/migration_sql.ts", () => {
  it("holds each file of migrations/ as the file says (node build/migration_sql.ts)", () => {
    const files = readdirSync(directory).filter((file) => file.endsWith(".sql"))
      .sort();
    assert.deepEqual(Object.keys(MIGRATION_SQL), files);
    for (const file of files) {
      assert.equal(
        MIGRATION_SQL[file],
        readFileSync(new URL(file, directory), "utf8"),
        `${file} differs: run node build/migration_sql.ts`,
      );
    }
  });

  it("holds every file MIGRATION_FILES lists", () => {
    for (const file of MIGRATION_FILES) {
      assert.equal(typeof MIGRATION_SQL[file], "string", file);
    }
  });
});
