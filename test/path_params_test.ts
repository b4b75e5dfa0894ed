/**
 * UUID path parameters validated as FastAPI validates a `UUID` path
 * parameter. Every expected detail is what FastAPI 0.142 with pydantic-core
 * 2.49 returns for `DELETE /v1/integration/{integration_id}`.
 *
 * @module
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  parsePathUuid,
  RequestValidationError,
} from "../src/validation/mod.ts";

const CANONICAL = "0b6f1c2e-8d3a-4c55-9a57-3e3c2d1f0a11";

/** The detail FastAPI renders for a path value that is not a UUID. */
function refusal(value: string): unknown {
  try {
    parsePathUuid("integration_id", value);
  } catch (error) {
    assert.ok(error instanceof RequestValidationError);
    return JSON.parse(JSON.stringify(error.toJSON()));
  }
  return assert.fail(`${value} was accepted`);
}

function uuidParsing(value: string, error: string): unknown {
  return {
    detail: [{
      type: "uuid_parsing",
      loc: ["path", "integration_id"],
      msg: `Input should be a valid UUID, ${error}`,
      input: value,
      ctx: { error },
    }],
  };
}

describe("parsePathUuid", () => {
  it("returns the canonical form of every accepted spelling", () => {
    for (
      const value of [
        CANONICAL,
        CANONICAL.toUpperCase(),
        CANONICAL.replaceAll("-", ""),
        `{${CANONICAL.toUpperCase()}}`,
        `urn:uuid:${CANONICAL}`,
      ]
    ) {
      assert.deepStrictEqual(
        parsePathUuid("integration_id", value),
        CANONICAL,
      );
    }
  });

  it("refuses a value that is not a UUID at the parameter's loc", () => {
    assert.deepStrictEqual(
      refusal("42"),
      uuidParsing("42", "invalid length: found 2"),
    );
    assert.deepStrictEqual(
      refusal("not-a-uuid"),
      uuidParsing("not-a-uuid", "invalid character: found `n` at 0"),
    );
    assert.deepStrictEqual(
      refusal("{x}"),
      uuidParsing("{x}", "invalid character: found `x` at 1"),
    );
  });

  it("counts positions in UTF-8 bytes from the inner UUID of a URN", () => {
    assert.deepStrictEqual(
      refusal("café"),
      uuidParsing("café", "invalid character: found `é` at 3"),
    );
    const urn = "urn:uuid:0b6f1c2e-8d3a-4c55-9a57-3e3c2d1f0a1x";
    assert.deepStrictEqual(
      refusal(urn),
      uuidParsing(urn, "invalid character: found `x` at 35"),
    );
  });

  it("names the parameter it was given", () => {
    const error = (() => {
      try {
        parsePathUuid("call_id", "x");
      } catch (error) {
        return error;
      }
    })();
    assert.ok(error instanceof RequestValidationError);
    assert.deepStrictEqual(error.issues[0]?.loc, ["path", "call_id"]);
  });
});
