/**
 * The keep-alive idle timeout, with the default settings of the runtime
 * running this file's server: an idle connection outlives the headers
 * deadline (10 s) and Node's former 5 s, and serves the next request, so
 * that a balancer keeping idle connections for 60 s is not raced by the
 * server closing them. (65 s itself is asserted on `DEFAULT_TIMEOUTS`; a
 * test waiting that long would cost a minute per runtime.) And requests
 * pipelined in one write behind an answer that waits on I/O: Node and Deno
 * answer each in order; Bun 1.4 answers neither and closes the connection
 * (oven-sh/bun#38128, docs/operating.md), which this file asserts so that a
 * Bun that fixes it fails here and the note goes.
 *
 * @module
 */
import assert from "node:assert/strict";
import { connect } from "node:net";
import { after, before, describe, it } from "node:test";
import { createHandler } from "../src/handler.ts";
import { MemoryStore } from "../src/store/memory_store.ts";
import { DEFAULT_TIMEOUTS } from "../server/runtimes/server.ts";
import {
  type RunningServer,
  runtimeName,
  serve,
} from "../server/runtimes/mod.ts";

let server: RunningServer;
before(async () => {
  const api = createHandler({ store: new MemoryStore() });
  // An answer that waits on a timer, as a database's would on its socket.
  const handler = async (request: Request) => {
    if (request.method === "POST") {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return api(request);
  };
  server = await serve(handler, { port: 0, hostname: "127.0.0.1" });
});
after(() => server?.close());

/** What a socket receives until it closes or `ms` pass. */
function exchange(written: string, ms = 2000): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(server.port, "127.0.0.1");
    let received = "";
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(received);
    };
    const timer = setTimeout(done, ms);
    socket.on("error", done);
    socket.on("close", done);
    socket.on("data", (data) => {
      received += data.toString("latin1");
      if (received.split("HTTP/1.1 ").length - 1 >= 2) done();
    });
    socket.write(written);
  });
}

describe("keep-alive connections", () => {
  it("stay open longer than balancers' 60 s idle timeout by default", () => {
    assert.equal(DEFAULT_TIMEOUTS.keepAliveMs, 65_000);
    assert.equal(DEFAULT_TIMEOUTS.idleSeconds, 65);
  });

  it("serve a request after 11 s idle, past the headers deadline", {
    timeout: 30_000,
  }, async () => {
    const socket = connect(server.port, "127.0.0.1");
    socket.on("error", () => {});
    let received = "";
    let closed = false;
    socket.on("data", (data) => received += data.toString("latin1"));
    socket.on("close", () => closed = true);
    const request = "GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n";
    const answered = async (count: number) => {
      for (const end = Date.now() + 5000; Date.now() < end;) {
        if (received.split("HTTP/1.1 200").length - 1 >= count) return true;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return false;
    };
    socket.write(request);
    assert.ok(await answered(1));
    await new Promise((resolve) => setTimeout(resolve, 11_000));
    assert.equal(closed, false, "the server closed the idle connection");
    socket.write(request);
    assert.ok(await answered(2), received);
    socket.destroy();
  });

  it("answer requests pipelined behind an answer that waits (not on Bun)", async () => {
    const received = await exchange(
      "POST /v1/workflow/wf/trigger/test HTTP/1.1\r\nhost: x\r\n" +
        "content-length: 0\r\n\r\nGET /healthz HTTP/1.1\r\nhost: x\r\n\r\n",
    );
    // Status lines, the second right after the first's body.
    const statuses = [...received.matchAll(/HTTP\/1\.1 (\d{3}) /g)]
      .map((match) => Number(match[1]));
    if (runtimeName() === "bun") {
      assert.deepEqual(
        statuses,
        [],
        "Bun now answers pipelined requests: drop the note in docs/operating.md",
      );
    } else {
      assert.deepEqual(statuses, [401, 200], received);
    }
  });
});
