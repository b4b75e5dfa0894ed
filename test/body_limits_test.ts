/**
 * Bounded bodies on every route: a body over the route's limit (64 KiB for
 * the probes, the message list, the trigger test and the delete, which take
 * none and ignore a smaller one as FastAPI does; 1 MiB for the export),
 * declared or streamed, is answered 413 with `Connection: close`, and the
 * server closes the connection without reading the rest. Over HTTP on the
 * runtime running this file, a 20 MB body gets through at most what the
 * sockets' buffers hold, and a small one is answered as if it were not
 * there, the connection kept.
 *
 * @module
 */
import assert from "node:assert/strict";
import { Agent, request as httpRequest } from "node:http";
import { connect } from "node:net";
import { describe, it } from "node:test";
import { readBody, readBodyStart, readDeclaredBody } from "../src/http/mod.ts";
import { DEMO, demoHandler, demoServer } from "./support/demo_handler.ts";

const { call: CALL, integration: INTEGRATION, flow: FLOW } = DEMO;
const MB = 1024 * 1024;
/** What a route that takes no body ignores: 64 KiB. */
const IGNORED = 64 * 1024;

/**
 * The routes, their method, a token that may use them, and their limit: the
 * first five take no body.
 */
const ROUTES: Array<[string, string, string | undefined, number]> = [
  ["GET", "/healthz", undefined, IGNORED],
  ["GET", "/openapi.json", undefined, IGNORED],
  ["GET", `/v1/call/${CALL}/message`, "demo-viewer", IGNORED],
  ["POST", `/v1/workflow/${FLOW}/trigger/test`, "demo-member", IGNORED],
  ["DELETE", `/v1/integration/${INTEGRATION}`, "demo-admin", IGNORED],
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
          // What a server hands over for a body of unknown length.
          headers: { ...headersFor(token), "transfer-encoding": "chunked" },
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

/** The bodies clients send without thinking, and a few more, all small. */
const SMALL_BODIES = [
  "{}",
  "null",
  "[]",
  '{"dry_run": true}',
  '"text"',
  "0",
  "not json",
  " ".repeat(IGNORED),
];

/** Content types a small body may come with; none of them matters. */
const CONTENT_TYPES = [
  "application/json",
  "text/plain",
  "application/x-www-form-urlencoded",
  undefined,
];

/** An answer, whole: status, headers (sorted) and body. */
async function whole(response: Response) {
  return {
    status: response.status,
    headers: [...response.headers].sort(),
    body: await response.text(),
  };
}

/**
 * The answer a fresh demo handler gives `path`, with `body` (its length
 * declared, or chunked) or without one.
 */
async function answer(
  method: string,
  path: string,
  token: string | undefined,
  body?: { text: string; type: string | undefined; chunked: boolean },
) {
  const headers: Record<string, string> = {
    "x-request-id": "same-id",
    ...(token !== undefined && { authorization: `Bearer ${token}` }),
  };
  if (body?.type !== undefined) headers["content-type"] = body.type;
  if (body !== undefined) {
    if (body.chunked) headers["transfer-encoding"] = "chunked";
    else headers["content-length"] = String(body.text.length);
  }
  const handler = await demoHandler();
  return await whole(
    await handler(
      new Request(`http://x${path}`, {
        method,
        headers,
        // A Fetch GET carries no body: the runtimes hand none over.
        ...(body !== undefined && method !== "GET" && { body: body.text }),
      }),
    ),
  );
}

describe("a body read whole ahead of the handler (the mock's journal)", () => {
  const post = (
    headers: Record<string, string>,
    body: BodyInit | null = "{}",
  ) =>
    new Request("http://x/", {
      method: "POST",
      headers,
      body,
      ...(body instanceof ReadableStream ? { duplex: "half" } : {}),
    } as RequestInit);

  it("is handed on to the handler's read, and cut at its limit there", async () => {
    const request = post({ "content-length": "8" }, "12345678");
    const ahead = await readDeclaredBody(request, 8);
    assert.equal(new TextDecoder().decode(ahead), "12345678");
    assert.equal(request.bodyUsed, true);
    assert.equal(readDeclaredBody(request, 8) !== undefined, true);
    assert.deepEqual(await readBody(request), ahead);
    const start = await readBodyStart(request, 3);
    assert.equal(new TextDecoder().decode(start.bytes), "123");
    assert.equal(start.truncated, true);
    await assert.rejects(readBody(request, { limit: 4 }), { status: 413 });
  });

  it("leaves a body its headers do not declare small, or one already read", async () => {
    const left = [
      post({}),
      post({ "content-length": "0" }, null),
      post({ "content-length": "9" }, "123456789"),
      post({ "transfer-encoding": "chunked", "content-length": "2" }),
    ];
    for (const request of left) {
      assert.equal(readDeclaredBody(request, 8), undefined);
      assert.equal(request.bodyUsed, false);
    }
    const read = post({ "content-length": "2" });
    await read.text();
    assert.equal(readDeclaredBody(read, 8), undefined);
  });

  it("a body cut off midway is the client's error, to every reader", async () => {
    const request = post(
      { "content-length": "12" },
      new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('{"a":'));
          controller.error(new Error("connection reset"));
        },
      }),
    );
    const gone = { name: "ClientGoneError", status: 400 };
    await assert.rejects(readDeclaredBody(request, 64)!, gone);
    await assert.rejects(readBody(request), gone);
  });

  it("a body that does not arrive in time is a 408, to every reader", async () => {
    const request = post(
      { "content-length": "12" },
      new ReadableStream({ start() {} }),
    );
    const late = { name: "ClientGoneError", status: 408 };
    await assert.rejects(readDeclaredBody(request, 64, 20)!, late);
    await assert.rejects(readBody(request), late);
  });
});

describe("a route that takes no body ignores a small one, as FastAPI does", () => {
  for (const [method, path, token] of ROUTES.slice(0, -1)) {
    it(`${method} ${path}: the same answer as without the body`, async () => {
      const without = await answer(method, path, token);
      assert.ok(without.status < 300, `${without.status}`);
      for (const text of SMALL_BODIES) {
        for (const type of CONTENT_TYPES) {
          for (const chunked of method === "GET" ? [false] : [false, true]) {
            assert.deepEqual(
              await answer(method, path, token, { text, type, chunked }),
              without,
              `${text.slice(0, 20)} as ${type}${chunked ? ", chunked" : ""}`,
            );
          }
        }
      }
    });
  }

  it("a bad path id with a 1-byte body is 422 on the path, as without it", async () => {
    const path = "/v1/workflow/nope/trigger/test";
    const without = await answer("POST", path, "demo-member");
    assert.equal(without.status, 422);
    assert.match(without.body, /uuid_parsing/);
    const body = { text: "x", type: "application/json", chunked: false };
    assert.deepEqual(
      await answer("POST", path, "demo-member", body),
      without,
    );
  });

  it("a 401 is the 401 without the body, the connection kept", async () => {
    const path = `/v1/workflow/${FLOW}/trigger/test`;
    const without = await answer("POST", path, undefined);
    assert.equal(without.status, 401);
    const body = { text: "{}", type: "application/json", chunked: false };
    assert.deepEqual(await answer("POST", path, undefined, body), without);
  });

  it("one byte past the bound, streamed, is 413 and closes", async () => {
    const response = await (await demoHandler())(
      new Request(`http://x/v1/workflow/${FLOW}/trigger/test`, {
        method: "POST",
        headers: {
          authorization: "Bearer demo-member",
          "transfer-encoding": "chunked",
        },
        body: " ".repeat(IGNORED + 1),
      }),
    );
    assert.equal(response.status, 413);
    assert.equal(response.headers.get("connection"), "close");
    assert.equal((await response.json()).error_code, "PAYLOAD_TOO_LARGE");
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

  it("a small body on a route that takes none: FastAPI's answer, the connection kept", async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const send = (method: string, path: string, token: string) =>
      new Promise<{ status: number; body: string; reused: boolean }>(
        (resolve, reject) => {
          const request = httpRequest(`${running().url}${path}`, {
            method,
            agent,
            headers: {
              authorization: `Bearer ${token}`,
              "content-type": "application/json",
              "content-length": "2",
            },
          }, (response) => {
            let body = "";
            response.setEncoding("utf8");
            response.on("data", (chunk: string) => body += chunk);
            response.on("end", () =>
              resolve({
                status: response.statusCode ?? 0,
                body,
                reused: request.reusedSocket,
              }));
          });
          request.on("error", reject);
          request.end("{}");
        },
      );
    try {
      const trigger = await send(
        "POST",
        `/v1/workflow/${FLOW}/trigger/test`,
        "demo-member",
      );
      assert.equal(trigger.status, 200);
      assert.ok(Array.isArray(JSON.parse(trigger.body).events));
      const list = await send(
        "GET",
        `/v1/call/${CALL}/message`,
        "demo-viewer",
      );
      assert.equal(list.status, 200);
      assert.ok(Array.isArray(JSON.parse(list.body)));
      assert.ok(list.reused, "the connection was not kept");
      const bad = await send(
        "POST",
        "/v1/workflow/nope/trigger/test",
        "demo-member",
      );
      assert.equal(bad.status, 422);
      assert.equal(JSON.parse(bad.body).detail[0].type, "uuid_parsing");
      assert.ok(bad.reused, "the connection was not kept");
    } finally {
      agent.destroy();
    }
  });

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
