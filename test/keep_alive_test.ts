/**
 * The keep-alive idle timeout, with the default settings of the runtime
 * running this file's server: an idle connection outlives the headers
 * deadline (10 s) and Node's former 5 s, and serves the next request, so
 * that a balancer keeping idle connections for 60 s is not raced by the
 * server closing them. (65 s itself is asserted on `DEFAULT_TIMEOUTS`; a
 * test waiting that long would cost a minute per runtime.)
 *
 * @module
 */
import assert from "node:assert/strict";
import { connect } from "node:net";
import { after, before, describe, it } from "node:test";
import { createHandler } from "../src/handler.ts";
import { MemoryStore } from "../src/store/memory_store.ts";
import { DEFAULT_TIMEOUTS } from "../server/runtimes/server.ts";
import { type RunningServer, serve } from "../server/runtimes/mod.ts";

let server: RunningServer;
before(async () => {
  const handler = createHandler({ store: new MemoryStore() });
  server = await serve(handler, { port: 0, hostname: "127.0.0.1" });
});
after(() => server?.close());

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
});
