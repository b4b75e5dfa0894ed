/**
 * Failed authentication is bounded per client address: past the limit of
 * unknown tokens in a window, the address gets 429 with `Retry-After` in the
 * ErrorResponseSchema format, and its requests no longer reach the store;
 * other addresses, valid tokens included, are unaffected. Over HTTP on the
 * runtime running this file, the server reads the peer's address, and
 * `X-Forwarded-For` only when `TRUST_PROXY` says so.
 *
 * @module
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { openServerApp, type ServerApp } from "../server/app.ts";
import { type RunningServer, serve } from "../server/runtimes/mod.ts";
import { readServerSettings } from "../server/settings/settings.ts";
import { clientKey, FailedAuthLimiter } from "../src/auth/failed_auth.ts";
import { createHandler, type Handler } from "../src/handler.ts";
import { demoFixtures } from "../src/store/demo_fixtures.ts";
import { MemoryStore } from "../src/store/memory_store.ts";
import type { Grant } from "../src/store/store.ts";
import { DEMO } from "./support/demo_handler.ts";

const MESSAGES = `/v1/call/${DEMO.call}/message`;

/** A memory store that counts its token look-ups. */
class CountingStore extends MemoryStore {
  lookups = 0;
  override findGrant(digest: string): Promise<Grant | undefined> {
    this.lookups += 1;
    return super.findGrant(digest);
  }
}

function request(client: string, token: string): Request {
  return new Request(`http://x${MESSAGES}`, {
    headers: { authorization: `Bearer ${token}`, "x-test-client": client },
  });
}

describe("FailedAuthLimiter", () => {
  it("limits an address past its failures until its window ends", () => {
    let time = 0;
    const limiter = new FailedAuthLimiter({
      limit: 3,
      windowMs: 10_000,
      now: () => time,
    });
    for (let i = 0; i < 3; i += 1) {
      limiter.check("192.0.2.1");
      limiter.fail("192.0.2.1");
    }
    time = 2500;
    assert.throws(() => limiter.check("192.0.2.1"), (error: unknown) => {
      const { status, errorCode, headers } = error as {
        status: number;
        errorCode: string;
        headers: Record<string, string>;
      };
      return status === 429 &&
        errorCode === "TOO_MANY_FAILED_AUTHENTICATIONS" &&
        headers["retry-after"] === "8";
    });
    limiter.check("192.0.2.2");
    time = 10_000;
    limiter.check("192.0.2.1");
  });

  it("counts IPv6 addresses per /64, IPv4-mapped ones as IPv4", () => {
    assert.equal(clientKey("2001:db8:1:2::5"), clientKey("2001:db8:1:2:ff::"));
    assert.notEqual(clientKey("2001:db8:1:2::5"), clientKey("2001:db8:1:3::5"));
    assert.equal(clientKey("::ffff:198.51.100.9"), "198.51.100.9");
    const limiter = new FailedAuthLimiter({ limit: 1 });
    limiter.fail("2001:db8:1:2::5");
    assert.throws(() => limiter.check("2001:db8:1:2::6"), { status: 429 });
  });

  it("refuses a limit that is not a positive integer", () => {
    assert.throws(() => new FailedAuthLimiter({ limit: 0 }), RangeError);
  });
});

describe("the handler bounds failed authentication", () => {
  let store: CountingStore;
  let handler: Handler;
  let time: number;
  before(async () => {
    store = new CountingStore();
    await store.seed(demoFixtures);
    time = 0;
    handler = createHandler({
      store,
      clientAddress: (request) =>
        request.headers.get("x-test-client") ?? undefined,
      failedAuthLimiter: new FailedAuthLimiter({
        limit: 20,
        windowMs: 60_000,
        now: () => time,
      }),
    });
  });

  it("answers 429 after 20 unknown tokens, without asking the store", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 2000; i += 1) {
      const response = await handler(request("198.51.100.1", `guess-${i}`));
      statuses.push(response.status);
      if (i === 20) {
        assert.equal(response.headers.get("retry-after"), "60");
        assert.deepEqual(await response.json(), {
          status: "error",
          error_code: "TOO_MANY_FAILED_AUTHENTICATIONS",
          message:
            "Too many requests with an unknown token from this address; retry in 60 s",
        });
      } else {
        await response.body?.cancel();
      }
    }
    assert.deepEqual(statuses.slice(0, 20), Array(20).fill(401));
    assert.deepEqual(statuses.slice(20), Array(1980).fill(429));
    assert.equal(store.lookups, 20, "the limited address reached the store");
  });

  it("leaves other addresses alone, and the address's own valid token waits", async () => {
    const other = await handler(request("198.51.100.2", "demo-viewer"));
    assert.equal(other.status, 200);
    await other.body?.cancel();
    const limited = await handler(request("198.51.100.1", "demo-viewer"));
    assert.equal(limited.status, 429);
    await limited.body?.cancel();
    time = 60_000;
    const later = await handler(request("198.51.100.1", "demo-viewer"));
    assert.equal(later.status, 200, "the window is over");
    await later.body?.cancel();
  });

  it("does not limit the probes, nor count a missing token", async () => {
    for (let i = 0; i < 30; i += 1) {
      const response = await handler(
        new Request(`http://x${MESSAGES}`, {
          headers: { "x-test-client": "198.51.100.3" },
        }),
      );
      assert.equal(response.status, 401);
      await response.body?.cancel();
    }
    const health = await handler(
      new Request("http://x/healthz", {
        headers: { "x-test-client": "198.51.100.1" },
      }),
    );
    assert.equal(health.status, 200);
    await health.body?.cancel();
  });
});

describe("the client's address, found only when it can matter", () => {
  it("is not looked up until a token fails, then on each request", async () => {
    const store = new MemoryStore();
    await store.seed(demoFixtures);
    let lookups = 0;
    const handler = createHandler({
      store,
      clientAddress: () => {
        lookups += 1;
        return "198.51.100.9";
      },
    });
    const answer = async (token: string) => {
      const response = await handler(request("198.51.100.9", token));
      await response.body?.cancel();
      return response.status;
    };
    assert.equal(await answer("demo-viewer"), 200);
    assert.equal(lookups, 0, "no failure yet: no address needed");
    assert.equal(await answer("guess"), 401);
    assert.equal(lookups, 1, "the failure is counted against the address");
    assert.equal(await answer("demo-viewer"), 200);
    assert.equal(lookups, 2, "an address with failures is checked first");
  });
});

describe("over HTTP on this runtime's server", () => {
  const apps: ServerApp[] = [];
  const servers: RunningServer[] = [];
  /** Serves the app of `env`'s settings; returns its URL. */
  const start = async (env: Record<string, string>) => {
    const settings = readServerSettings({ LOG_LEVEL: "off", ...env });
    const app = await openServerApp(settings);
    apps.push(app);
    const server = await serve(app.handler, {
      port: 0,
      hostname: "127.0.0.1",
    });
    servers.push(server);
    return server.url;
  };
  after(async () => {
    await Promise.all(servers.map((server) => server.close()));
    await Promise.all(apps.map((app) => app.close()));
  });

  const statusOf = async (
    url: string,
    token: string,
    headers: Record<string, string> = {},
  ) => {
    const response = await fetch(`${url}${MESSAGES}`, {
      headers: { authorization: `Bearer ${token}`, ...headers },
    });
    await response.body?.cancel();
    return response.status;
  };

  it("limits the peer, whatever X-Forwarded-For it claims", async () => {
    const url = await start({ AUTH_FAILURE_LIMIT: "5" });
    const statuses = [];
    for (let i = 0; i < 8; i += 1) {
      statuses.push(
        await statusOf(url, `guess-${i}`, { "x-forwarded-for": `10.0.0.${i}` }),
      );
    }
    assert.deepEqual(statuses, [401, 401, 401, 401, 401, 429, 429, 429]);
  });

  it("with TRUST_PROXY=1, limits the address the proxy saw", async () => {
    const url = await start({ AUTH_FAILURE_LIMIT: "5", TRUST_PROXY: "1" });
    const from = (address: string) => ({
      "x-forwarded-for": `203.0.113.99, ${address}`,
    });
    for (let i = 0; i < 5; i += 1) {
      assert.equal(await statusOf(url, `guess-${i}`, from("10.1.1.1")), 401);
    }
    assert.equal(await statusOf(url, "demo-viewer", from("10.1.1.1")), 429);
    assert.equal(await statusOf(url, "demo-viewer", from("10.2.2.2")), 200);
  });
});
