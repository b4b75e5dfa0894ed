/**
 * `pathnameOf`, which reads a request URL's path without parsing the whole
 * URL, against the WHATWG URL parser it stands in for: seeded random URLs
 * whose paths mix plain characters, dot segments (plain and escaped),
 * characters the parser escapes, a query and a fragment, in either order.
 *
 * @module
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { pathnameOf } from "../src/http/mod.ts";

/** Pieces of a path, the awkward ones often. */
const piece = fc.oneof(
  fc.constantFrom(".", "..", "%2e", "%2E.", "%", "%41", "~", "é", " ", "|"),
  fc.constantFrom("v1", "call", "message", "a-b_c", "x.y", "@:;=,"),
);
const path = fc.array(fc.array(piece, { maxLength: 3 }), { maxLength: 6 })
  .map((segments) => "/" + segments.map((parts) => parts.join("")).join("/"));
const tail = fc.constantFrom("", "?a=1", "#f", "?a#f", "#f?a", "?", "#");
const host = fc.constantFrom("http://h", "http://h:8080", "https://api.test");

describe("pathnameOf", () => {
  it("gives the URL parser's pathname", () => {
    fc.assert(
      fc.property(host, path, tail, (origin, pathname, rest) => {
        const url = new URL(origin + pathname + rest).href;
        assert.equal(pathnameOf(url), new URL(url).pathname, url);
      }),
      { seed: 20261128, numRuns: 2000 },
    );
  });
});
