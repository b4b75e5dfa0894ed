import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  isLostConnection,
  isNeverSent,
  retryLostConnection,
} from "../postgres/retry.ts";

const lost = (code: string) => Object.assign(new Error(code), { code });

describe("Retrying work whose connection was lost", () => {
  it("sends a read again after a lost connection and returns its answer", async () => {
    const codes = ["57P01", "CONNECTION_CLOSED", "ECONNRESET"];
    let attempts = 0;
    const answer = await retryLostConnection(() => {
      const code = codes[attempts++];
      return code === undefined
        ? Promise.resolve("rows")
        : Promise.reject(lost(code));
    });
    assert.equal(answer, "rows");
    assert.equal(attempts, 4);
  });

  it("lets any other error stand at once", async () => {
    let attempts = 0;
    await assert.rejects(
      retryLostConnection(() => {
        attempts += 1;
        return Promise.reject(lost("42P01"));
      }),
      /42P01/,
    );
    assert.equal(attempts, 1);
  });

  it("gives up once the bound has passed since the first loss", async () => {
    let attempts = 0;
    const started = performance.now();
    await assert.rejects(
      retryLostConnection(() => {
        attempts += 1;
        return Promise.reject(lost("ECONNREFUSED"));
      }, { within: 300 }),
      /ECONNREFUSED/,
    );
    // Gives up: soon after the bound (late timers on a loaded machine
    // allowed for), and never before it.
    const elapsed = performance.now() - started;
    assert.ok(elapsed >= 300 && elapsed < 5000, `${elapsed} ms`);
    // At once, then 100 and 200 ms apart: a down server is not hammered.
    assert.ok(attempts >= 3 && attempts <= 5, `${attempts} attempts`);
  });

  it("never sleeps a backoff past the window: the last attempt starts in it", async () => {
    // Backoffs of 100, 200, 300 ms would sleep 600 ms in all; the window of
    // 350 ms cuts the last sleep to end at 350. The sleeps asked for are
    // read from setTimeout, so a loaded machine's late timers cannot fail it.
    const asked: number[] = [];
    const { setTimeout } = globalThis;
    globalThis.setTimeout = ((callback: () => void, ms?: number) => {
      asked.push(ms ?? 0);
      return setTimeout(callback, ms);
    }) as typeof globalThis.setTimeout;
    const started = performance.now();
    try {
      await assert.rejects(
        retryLostConnection(
          () => Promise.reject(lost("ECONNREFUSED")),
          { within: 350 },
        ),
        /ECONNREFUSED/,
      );
    } finally {
      globalThis.setTimeout = setTimeout;
    }
    const slept = asked.reduce((sum, ms) => sum + ms, 0);
    assert.ok(slept <= 350, `slept ${asked.join(" + ")} ms`);
    // Nor does it give up before the window has passed.
    assert.ok(performance.now() - started >= 350);
  });

  it("sends a write again only when its connection never opened", async () => {
    for (
      const [code, attempts] of [["ECONNREFUSED", 2], ["57P01", 1]] as const
    ) {
      let sent = 0;
      await retryLostConnection(() => {
        sent += 1;
        return sent === 1 ? Promise.reject(lost(code)) : Promise.resolve();
      }, { retryOn: isNeverSent }).catch(() => {});
      assert.equal(sent, attempts, code);
    }
  });

  it("hands every failure to onError, the retried ones and the last", async () => {
    const codes = ["57P01", "ECONNRESET", "42P01"];
    let attempts = 0;
    const seen: string[] = [];
    await assert.rejects(
      retryLostConnection(() => Promise.reject(lost(codes[attempts++]!)), {
        onError: (error) => seen.push((error as { code: string }).code),
      }),
      /42P01/,
    );
    assert.deepEqual(seen, codes);
    // With no window, the one failure still reaches it, and nothing is retried.
    seen.length = 0;
    await assert.rejects(
      retryLostConnection(() => Promise.reject(lost("57P01")), {
        within: 0,
        onError: (error) => seen.push((error as { code: string }).code),
      }),
      /57P01/,
    );
    assert.deepEqual(seen, ["57P01"]);
  });

  it("tells lost connections from refused statements and ended pools", () => {
    for (
      const code of [
        "08006",
        "57P01",
        "57P03",
        "CONNECT_TIMEOUT",
        "EPIPE",
        "CONNECTION_DESTROYED", // by a replaced pool, see RenewablePool
      ]
    ) {
      assert.ok(isLostConnection(lost(code)), code);
    }
    for (
      const code of [
        "23505",
        "57014",
        "CONNECTION_ENDED",
      ]
    ) {
      assert.ok(!isLostConnection(lost(code)), code);
    }
    assert.ok(!isLostConnection(undefined));
    assert.ok(isNeverSent(lost("CONNECT_TIMEOUT")));
    assert.ok(!isNeverSent(lost("CONNECTION_CLOSED")));
  });
});
