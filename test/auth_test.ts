/** Bearer authentication and the role table, on the functions themselves. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { allows, authenticate, authorize } from "../src/auth/authenticate.ts";
import { authorizeDelete } from "../src/operations/delete_integration.ts";
import { HttpError } from "../src/errors/http_error.ts";
import { MemoryStore } from "../src/store/memory_store.ts";
import { ROLES } from "../src/store/store.ts";

const PROJECT = "0b6f1c2e-8d3a-4c55-9a57-3e3c2d1f0a11";

function requestWith(token: string): Request {
  return new Request("http://api.test/", {
    headers: { authorization: `Bearer ${token}` },
  });
}

async function storeWithToken(token: string): Promise<MemoryStore> {
  const store = new MemoryStore();
  await store.seed({
    projects: [{ project_id: PROJECT, name: "Acme" }],
    tokens: [{ token, project_id: PROJECT, role: "viewer" }],
  });
  return store;
}

describe("authenticate", () => {
  it("resolves a known token to its project and role", async () => {
    const store = await storeWithToken("abc.DEF-123_~+/=");
    assert.deepEqual(
      await authenticate(requestWith("abc.DEF-123_~+/="), store),
      {
        projectId: PROJECT,
        role: "viewer",
      },
    );
  });

  it("stops accepting a token as soon as the store forgets it", async () => {
    const store = await storeWithToken("soon-revoked");
    await authenticate(requestWith("soon-revoked"), store);
    store.clear();
    await assert.rejects(
      authenticate(requestWith("soon-revoked"), store),
      (error: unknown) => error instanceof HttpError && error.status === 401,
    );
  });

  it("never accepts a token of another store it saw before", async () => {
    await authenticate(requestWith("shared"), await storeWithToken("shared"));
    await assert.rejects(
      authenticate(requestWith("shared"), new MemoryStore()),
    );
  });
});

describe("the role table", () => {
  it("gives each role exactly its permissions", () => {
    const table = Object.fromEntries(ROLES.map((role) => [role, [
      allows(role, "transcripts:read"),
      allows(role, "workflows:test"),
      allows(role, "integrations:delete"),
    ]]));
    assert.deepEqual(table, {
      owner: [true, true, true],
      admin: [true, true, true],
      member: [true, true, false],
      viewer: [true, false, false],
      billing: [false, false, false],
    });
  });

  it("refuses a missing permission with 403 UNAUTHORIZED_ROLE", () => {
    authorize({ projectId: PROJECT, role: "member" }, "workflows:test");
    assert.throws(
      () => authorize({ projectId: PROJECT, role: "viewer" }, "workflows:test"),
      (error: unknown) =>
        error instanceof HttpError && error.status === 403 &&
        error.errorCode === "UNAUTHORIZED_ROLE" &&
        error.message ===
          "Role 'viewer' is not allowed to perform this operation",
    );
  });

  it("answers a refused delete with the spec's INTERNAL_SERVER_ERROR row", () => {
    assert.throws(
      () => authorizeDelete({ projectId: PROJECT, role: "member" }),
      (error: unknown) =>
        error instanceof HttpError && error.status === 403 &&
        error.errorCode === "INTERNAL_SERVER_ERROR" &&
        /Missing required permissions to delete integrations/.test(
          error.message,
        ),
    );
  });
});
