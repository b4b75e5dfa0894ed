/**
 * Routing: path params, 404 for an unknown path, 405 with `Allow` for a known
 * path asked with another method.
 *
 * @module
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { HttpError } from "../src/errors/http_error.ts";
import { Router } from "../src/http/router.ts";

const router = new Router([
  { method: "POST", pattern: "/v1/call/message/bulk", target: "bulk" },
  { method: "GET", pattern: "/v1/call/{call_id}/message", target: "messages" },
  {
    method: "DELETE",
    pattern: "/v1/integration/{integration_id}",
    target: "delete",
  },
  {
    method: "GET",
    pattern: "/v1/integration/{integration_id}",
    target: "get",
  },
  {
    method: "PATCH",
    pattern: "/v1/integration/{integration_id}",
    target: "patch",
  },
  {
    method: "POST",
    pattern: "/v1/workflow/{flow_id}/trigger/test",
    target: "trigger",
  },
  { method: "GET", pattern: "/openapi.json", target: "openapi" },
]);

/** Asserts that matching throws the HttpError `status`/`code`. */
function assertRefused(
  method: string,
  pathname: string,
  status: 404 | 405,
  table: Router<unknown> = router,
): HttpError {
  let caught: unknown;
  try {
    table.match(method, pathname);
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof HttpError, `${method} ${pathname} matched`);
  assert.equal(caught.status, status);
  assert.equal(
    caught.errorCode,
    status === 404 ? "NOT_FOUND" : "METHOD_NOT_ALLOWED",
  );
  return caught;
}

function allowOf(error: HttpError): string | null {
  return error.toResponse().headers.get("allow");
}

/** The methods of the `Allow` header, sorted. */
function allowedMethods(error: HttpError): string[] | undefined {
  return allowOf(error)?.split(",").map((method) => method.trim()).sort();
}

describe("Router.match", () => {
  it("matches a static path", () => {
    assert.deepEqual(router.match("POST", "/v1/call/message/bulk"), {
      target: "bulk",
      pattern: "/v1/call/message/bulk",
      params: {},
    });
    assert.deepEqual(router.match("GET", "/openapi.json"), {
      target: "openapi",
      pattern: "/openapi.json",
      params: {},
    });
  });

  it("matches a param segment and names it", () => {
    assert.deepEqual(
      router.match("POST", "/v1/workflow/abc-123/trigger/test"),
      {
        target: "trigger",
        pattern: "/v1/workflow/{flow_id}/trigger/test",
        params: { flow_id: "abc-123" },
      },
    );
    assert.deepEqual(router.match("GET", "/v1/call/42/message"), {
      target: "messages",
      pattern: "/v1/call/{call_id}/message",
      params: { call_id: "42" },
    });
  });

  it("picks the route of the request's method among several on one path", () => {
    for (
      const [method, target] of [
        ["DELETE", "delete"],
        ["GET", "get"],
        ["PATCH", "patch"],
      ]
    ) {
      assert.equal(router.match(method!, "/v1/integration/x").target, target);
    }
  });

  it("percent-decodes params", () => {
    const id = (pathname: string) =>
      router.match("DELETE", pathname).params.integration_id;
    assert.equal(id("/v1/integration/%7Babc%7D"), "{abc}");
    assert.equal(id("/v1/integration/urn%3Auuid%3Aabc"), "urn:uuid:abc");
    assert.equal(id("/v1/integration/a%20b"), "a b");
    assert.equal(id("/v1/integration/caf%C3%A9"), "café");
    // An encoded slash stays inside the one segment.
    assert.equal(id("/v1/integration/a%2Fb"), "a/b");
    // `+` is not a space in a path.
    assert.equal(id("/v1/integration/a+b"), "a+b");
  });

  it("decodes a param as Starlette does: bad UTF-8 to U+FFFD, malformed escapes kept", () => {
    assert.equal(
      router.match("DELETE", "/v1/integration/%E0%A4%A").params.integration_id,
      "\ufffd%A",
    );
    assert.equal(
      router.match("DELETE", "/v1/integration/%FFabc%zz").params.integration_id,
      "\ufffdabc%zz",
    );
    assert.equal(
      router.match("DELETE", "/v1/integration/100%").params.integration_id,
      "100%",
    );
  });

  it("keeps a leading byte order mark in a param, as Python's unquote does", () => {
    assert.equal(
      router.match("DELETE", "/v1/integration/%EF%BB%BFabc").params
        .integration_id,
      "\ufeffabc",
    );
  });

  it("does not decode static segments", () => {
    assertRefused("GET", "/v1/call/42/%6Dessage", 404);
  });
});

describe("Router 404", () => {
  it("answers 404 NOT_FOUND for an unknown path", () => {
    const error = assertRefused("GET", "/v2/call/42/message", 404);
    assert.equal(allowOf(error), null);
    assertRefused("GET", "/", 404);
    assertRefused("GET", "", 404);
    assertRefused("POST", "/v1/call/message/bulkk", 404);
  });

  it("says its notFoundMessage when given one", () => {
    const control = new Router(
      [{ method: "POST", pattern: "/__mock/reset", target: "reset" }],
      { notFoundMessage: (pathname) => `No control route ${pathname}` },
    );
    const error = assertRefused("GET", "/__mock/nope", 404, control);
    assert.equal(error.message, "No control route /__mock/nope");
    assert.match(assertRefused("GET", "/nope", 404).message, /^No route for/);
  });

  it("does not match a path with an extra segment", () => {
    assertRefused("DELETE", "/v1/integration/x/y", 404);
    assertRefused("POST", "/v1/call/message/bulk/extra", 404);
    assertRefused("GET", "/v1/call/42/message/7", 404);
  });

  it("does not match a path with a missing segment", () => {
    assertRefused("DELETE", "/v1/integration", 404);
    assertRefused("POST", "/v1/workflow/f/trigger", 404);
    assertRefused("GET", "/v1/call/message", 404);
  });

  it("does not match a trailing slash", () => {
    assertRefused("POST", "/v1/call/message/bulk/", 404);
    assertRefused("DELETE", "/v1/integration/x/", 404);
  });

  it("does not match an empty param", () => {
    assertRefused("DELETE", "/v1/integration/", 404);
    assertRefused("POST", "/v1/workflow//trigger/test", 404);
    assertRefused("GET", "/v1/call//message", 404);
  });

  it("does not match a doubled slash in a static part", () => {
    assertRefused("POST", "/v1//call/message/bulk", 404);
    assertRefused("POST", "//v1/call/message/bulk", 404);
  });

  it("matches methods and paths case-sensitively", () => {
    assertRefused("POST", "/V1/call/message/bulk", 404);
    assertRefused("post", "/v1/call/message/bulk", 405);
  });
});

describe("Router 405", () => {
  it("answers 405 METHOD_NOT_ALLOWED with the path's method in Allow", () => {
    const error = assertRefused("GET", "/v1/call/message/bulk", 405);
    assert.equal(allowOf(error), "POST");
    assert.equal(
      allowOf(assertRefused("DELETE", "/v1/workflow/f/trigger/test", 405)),
      "POST",
    );
  });

  it("lists every method of the path in Allow", () => {
    const error = assertRefused("POST", "/v1/integration/x", 405);
    assert.deepEqual(
      allowedMethods(error),
      ["DELETE", "GET", "HEAD", "PATCH"],
    );
  });

  it("matches HEAD to a GET route and to no other", () => {
    assert.equal(router.match("HEAD", "/openapi.json").target, "openapi");
    assert.equal(router.match("HEAD", "/v1/integration/x").target, "get");
    assert.equal(
      allowOf(assertRefused("HEAD", "/v1/call/message/bulk", 405)),
      "POST",
    );
  });

  it("tells the methods a path answers, none for an unknown path", () => {
    assert.deepEqual(router.methodsAt("/v1/integration/x"), [
      "DELETE",
      "GET",
      "HEAD",
      "PATCH",
    ]);
    assert.deepEqual(router.methodsAt("/v1/call/message/bulk"), ["POST"]);
    assert.deepEqual(router.methodsAt("/v1/nothing"), []);
  });

  it("renders a 405 as an ErrorResponseSchema response", async () => {
    const response = assertRefused("PUT", "/v1/call/42/message", 405)
      .toResponse();
    assert.equal(response.status, 405);
    assert.equal(response.headers.get("allow"), "GET, HEAD");
    const body = await response.json();
    assert.equal(body.status, "error");
    assert.equal(body.error_code, "METHOD_NOT_ALLOWED");
    assert.equal(typeof body.message, "string");
  });

  it("lists the methods of every route a path matches, static or param", () => {
    const overlapping = new Router([
      { method: "GET", pattern: "/v1/call/{call_id}/message", target: 1 },
      { method: "POST", pattern: "/v1/call/message/bulk", target: 2 },
      { method: "PUT", pattern: "/v1/call/{call_id}/{part}", target: 3 },
    ]);
    // The static route and the `{part}` route both match this path.
    assert.equal(overlapping.match("POST", "/v1/call/message/bulk").target, 2);
    assert.deepEqual(
      overlapping.match("PUT", "/v1/call/message/bulk"),
      {
        target: 3,
        pattern: "/v1/call/{call_id}/{part}",
        params: { call_id: "message", part: "bulk" },
      },
    );
    assert.deepEqual(
      allowedMethods(
        assertRefused("GET", "/v1/call/message/bulk", 405, overlapping),
      ),
      ["POST", "PUT"],
    );
    assert.deepEqual(
      allowedMethods(
        assertRefused("DELETE", "/v1/call/42/message", 405, overlapping),
      ),
      ["GET", "HEAD", "PUT"],
    );
  });

  it("takes the first route of a method when two patterns match", () => {
    const ordered = new Router([
      { method: "GET", pattern: "/a/static", target: "static" },
      { method: "GET", pattern: "/a/{param}", target: "param" },
    ]);
    assert.equal(ordered.match("GET", "/a/static").target, "static");
    assert.deepEqual(ordered.match("GET", "/a/other"), {
      target: "param",
      pattern: "/a/{param}",
      params: { param: "other" },
    });
  });
});
