/**
 * Bounded bodies on every route: a body over the route's limit (none for
 * the probes, the message list, the trigger test and the delete; 1 MiB for
 * the export), declared or streamed, is answered 413 with
 * `Connection: close`, and the server closes the connection without reading
 * the rest. Over HTTP on the runtime running this file, a 20 MB body gets
 * through at most what the sockets' buffers hold.
 *
 * @module
 */
import assert from "node:assert/strict";
import { connect } from "node:net";
import { describe, it } from "node:test";
import { DEMO, demoHandler, demoServer } from "./support/demo_handler.ts";

const { call: CALL, integration: INTEGRATION, flow: FLOW } = DEMO;
const MB = 1024 * 1024;

/** The routes, their method, a token that may use them, and their limit. */
const ROUTES: Array<[string, string, string | undefined, number]> = [
  ["GET", "/healthz", undefined, 0],
  ["GET", "/openapi.json", undefined, 0],
  ["GET", `/v1/call/${CALL}/message`, "demo-viewer", 0],
  ["POST", `/v1/workflow/${FLOW}/trigger/test`, "demo-member", 0],
  ["DELETE", `/v1/integration/${INTEGRATION}`, "demo-admin", 0],
  ["POST", "/v1/call/message/bulk", "demo-viewer", MB],
];

function headersFor(token: string | undefined): Record<string, string> {
  return {
    ...(token !== undefined && { authorization: `Bearer ${token}` }),
    "content-type": "application/json",
  };
}

describe("the handler refuses a body over the route's limit", () => {
  for (const [method, path, token, limit] of ROUTES) {
    for (const size of [limit + 1, 20 * MB]) {
      const closing = size > 64 * 1024;
      it(
        `${method} ${path}: a declared ${size}-byte body is 413${
          closing ? ", closing" : ""
        }`,
        async () => {
          const handler = await demoHandler();
          const response = await handler(
            new Request(`http://x${path}`, {
              method,
              headers: { ...headersFor(token), "content-length": String(size) },
            }),
          );
          assert.equal(response.status, 413);
          assert.equal(
            (await response.json()).error_code,
            "PAYLOAD_TOO_LARGE",
          );
          assert.equal(
            response.headers.get("connection"),
            closing ? "close" : null,
          );
        },
      );
    }
  }

  for (const [method, path, token, limit] of ROUTES) {
    if (method === "GET") continue; // a Fetch GET has no body stream
    it(`${method} ${path}: a streamed body over ${limit} bytes is 413, the rest unread`, async () => {
      const handler = await demoHandler();
      let pulled = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          pulled += 64 * 1024;
          controller.enqueue(new Uint8Array(64 * 1024).fill(0x20));
        },
      }, { highWaterMark: 0 });
      const response = await handler(
        new Request(`http://x${path}`, {
          method,
          headers: headersFor(token),
          body,
          duplex: "half",
        } as RequestInit),
      );
      assert.equal(response.status, 413);
      assert.equal(response.headers.get("connection"), "close");
      await response.body?.cancel();
      assert.ok(pulled <= limit + 128 * 1024, `${pulled} bytes pulled`);
    });
  }

  it("a GET whose runtime says a body came, but hands none over, is 413", async () => {
    const handler = await demoHandler();
    const response = await handler(
      new Request("http://x/healthz", {
        headers: { "transfer-encoding": "chunked" },
      }),
    );
    assert.equal(response.status, 413);
  });

  it("routes without a body still answer requests that send none", async () => {
    const handler = await demoHandler();
    for (const [method, path, token] of ROUTES.slice(0, -1)) {
      const response = await handler(
        new Request(`http://x${path}`, {
          method,
          headers: { ...headersFor(token), "content-length": "0" },
        }),
      );
      assert.ok(response.status < 300, `${method} ${path}: ${response.status}`);
      assert.equal(response.headers.get("connection"), null);
      await response.body?.cancel();
    }
  });

  it("an error before a body of unknown length is read (401) asks to close", async () => {
    const handler = await demoHandler();
    const response = await handler(
      new Request("http://x/v1/call/message/bulk", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "transfer-encoding": "chunked",
        },
        body: JSON.stringify({ call_ids: [CALL] }),
      }),
    );
    assert.equal(response.status, 401);
    assert.equal(response.headers.get("connection"), "close");
    await response.body?.cancel();
  });
});

/** What sending a large body over a raw connection came to. */
interface Sent {
  /** Bytes the client's socket handed to the system. */
  bytesWritten: number;
  /** Whether the server closed the connection. */
  closed: boolean;
  /** The status line and headers received. */
  head: string;
}

/**
 * Sends a request with a 20 MB body (`Content-Length` or chunked) and keeps
 * writing until the server closes the connection (or 10 s pass).
 */
async function sendLarge(
  port: number,
  method: string,
  path: string,
  token: string | undefined,
  chunked: boolean,
): Promise<Sent> {
  const total = 20 * MB;
  const socket = connect(port, "127.0.0.1");
  await new Promise((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  let received = "";
  let closed = false;
  socket.on("data", (data: Uint8Array) => {
    received += new TextDecoder().decode(data);
  });
  socket.on("error", () => {});
  const ended = new Promise<void>((resolve) =>
    socket.once("close", () => {
      closed = true;
      resolve();
    })
  );
  socket.write(
    `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
      (token === undefined ? "" : `Authorization: Bearer ${token}\r\n`) +
      "Content-Type: application/json\r\n" +
      (chunked
        ? "Transfer-Encoding: chunked\r\n"
        : `Content-Length: ${total}\r\n`) +
      "\r\n",
  );
  const chunk = new Uint8Array(64 * 1024).fill(0x20);
  const framed = chunked
    ? new Uint8Array([
      ...new TextEncoder().encode(`${chunk.length.toString(16)}\r\n`),
      ...chunk,
      ...new TextEncoder().encode("\r\n"),
    ])
    : chunk;
  const deadline = Date.now() + 10_000;
  let queued = 0;
  while (queued < total && !closed && Date.now() < deadline) {
    queued += chunk.length;
    if (!socket.write(framed)) {
      await Promise.race([
        new Promise((resolve) => socket.once("drain", resolve)),
        ended,
        new Promise((resolve) => setTimeout(resolve, 1000)),
      ]);
    }
  }
  await Promise.race([ended, new Promise((r) => setTimeout(r, 5000))]);
  const sent = {
    bytesWritten: socket.bytesWritten,
    closed,
    head: received.split("\r\n\r\n")[0] ?? "",
  };
  socket.destroy();
  return sent;
}

describe("over HTTP on this runtime's server, 20 MB bodies", () => {
  const running = demoServer();

  const large = ROUTES.filter(([method, path]) =>
    path === "/healthz" || method !== "GET"
  );
  for (const [method, path, token] of large) {
    for (const chunked of [false, true]) {
      it(`${method} ${path} (${chunked ? "chunked" : "Content-Length"}): 413, closed, the rest unread`, async () => {
        const sent = await sendLarge(
          running().port,
          method,
          path,
          token,
          chunked,
        );
        assert.match(sent.head, /^HTTP\/1\.1 413 /);
        assert.ok(sent.closed, "the server kept the connection open");
        // What the sockets' buffers hold on loopback (the client's send
        // buffer is at most 4 MiB here): far below the 20 MB sent.
        assert.ok(
          sent.bytesWritten < 8 * MB,
          `${sent.bytesWritten} bytes went through`,
        );
      });
    }
  }

  it("a 401 to an export with a small body keeps the connection, its JSON whole", async () => {
    const response = await fetch(`${running().url}/v1/call/message/bulk`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ call_ids: [CALL] }),
    });
    assert.equal(response.status, 401);
    assert.equal(response.headers.get("connection") === "close", false);
    assert.equal((await response.json()).error_code, "UNAUTHORIZED");
  });

  it("a 401 before the export's body is read closes too", async () => {
    const sent = await sendLarge(
      running().port,
      "POST",
      "/v1/call/message/bulk",
      undefined,
      true,
    );
    assert.match(sent.head, /^HTTP\/1\.1 401 /);
    assert.ok(sent.closed, "the server kept the connection open");
    assert.ok(sent.bytesWritten < 8 * MB, `${sent.bytesWritten} bytes`);
  });
});
