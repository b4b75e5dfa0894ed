/**
 * The operating settings read from the environment by every server entry
 * (and the Worker): export shares, the stall deadline and the shutdown
 * deadline, the database URLs, their defaults and the mistakes refused.
 *
 * @module
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  readServerSettings,
  SettingsError,
} from "../server/settings/settings.ts";

describe("the export and shutdown settings", () => {
  it("default to 16 exports, 8 per project, a 60-s stall, a 30-s shutdown", () => {
    const settings = readServerSettings({});
    assert.equal(settings.maxConcurrentExports, 16);
    assert.equal(settings.maxExportsPerProject, 8);
    assert.equal(settings.exportStallTimeout, 60);
    assert.equal(settings.shutdownTimeout, 30);
  });

  it("give a project half of MAX_CONCURRENT_EXPORTS, at least 1, unless set", () => {
    const share = (env: Record<string, string>) =>
      readServerSettings(env).maxExportsPerProject;
    assert.equal(share({ MAX_CONCURRENT_EXPORTS: "5" }), 2);
    assert.equal(share({ MAX_CONCURRENT_EXPORTS: "1" }), 1);
    assert.equal(
      share({ MAX_CONCURRENT_EXPORTS: "4", MAX_EXPORTS_PER_PROJECT: "4" }),
      4,
    );
  });

  it("read EXPORT_STALL_TIMEOUT and SHUTDOWN_TIMEOUT in seconds", () => {
    const settings = readServerSettings({
      EXPORT_STALL_TIMEOUT: "5",
      SHUTDOWN_TIMEOUT: "120",
    });
    assert.equal(settings.exportStallTimeout, 5);
    assert.equal(settings.shutdownTimeout, 120);
  });

  for (
    const name of [
      "MAX_EXPORTS_PER_PROJECT",
      "EXPORT_STALL_TIMEOUT",
      "SHUTDOWN_TIMEOUT",
    ]
  ) {
    it(`refuses a ${name} over its bound, saying so`, () => {
      assert.throws(
        () => readServerSettings({ [name]: "100000" }),
        (error: unknown) =>
          error instanceof SettingsError &&
          /^\w+ must be at most \d+, got "100000"$/.test(error.message),
      );
    });
    it(`refuses a ${name} that is not a positive integer, naming it`, () => {
      for (const value of ["0", "-1", "1.5", "ten", " 5"]) {
        assert.throws(
          () => readServerSettings({ [name]: value }),
          (error: unknown) =>
            error instanceof SettingsError &&
            error.message ===
              `${name} must be a positive integer, got ${
                JSON.stringify(value)
              }`,
        );
      }
    });
  }
});

describe("the database settings", () => {
  it("read DATABASE_DIRECT_URL and DATABASE_READ_URL beside DATABASE_URL", () => {
    const settings = readServerSettings({
      DATABASE_URL: "postgres://app@pgbouncer:6432/app?prepare=false",
      DATABASE_DIRECT_URL: "postgres://app@db-1:5432/app",
      DATABASE_READ_URL: "postgres://app@db-2:5432/app",
    });
    assert.equal(settings.databaseDirectUrl, "postgres://app@db-1:5432/app");
    assert.equal(settings.databaseReadUrl, "postgres://app@db-2:5432/app");
    const none = readServerSettings({ DATABASE_URL: "postgres://db/app" });
    assert.equal(none.databaseDirectUrl, undefined);
    assert.equal(none.databaseReadUrl, undefined);
  });

  for (const name of ["DATABASE_DIRECT_URL", "DATABASE_READ_URL"]) {
    it(`refuses ${name} without DATABASE_URL, naming both`, () => {
      assert.throws(
        () => readServerSettings({ [name]: "postgres://db/app" }),
        (error: unknown) =>
          error instanceof SettingsError &&
          error.message === `${name} needs DATABASE_URL to be set too`,
      );
    });
  }
});
