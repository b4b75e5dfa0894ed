import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { operationRows } from "../build/operation_table.ts";
import { OPERATION_TABLE } from "../mock/operation_table.ts";

describe("mock/operation_table.ts", () => {
  it("holds the OpenAPI document's operations (node build/operation_table.ts)", () => {
    assert.deepEqual(
      OPERATION_TABLE,
      operationRows(),
      "the table differs from src/openapi/: run node build/operation_table.ts",
    );
  });
});
