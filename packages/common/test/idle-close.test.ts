// A request sent while the server's event loop is stalled past the keep-alive timeout is answered, not reset; a
// connection that stays idle is still closed. The stall is a busy wait started in the same turn as the client's
// write, so the loop's next turn finds both the expired timer and the request waiting (timers run first).
import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import { type AddressInfo, connect, type Socket } from "node:net";
import { describe, it } from "node:test";
import { closeIdleConnectionsAfterReading } from "../src/http1/idle-close.ts";
import { RawIngress } from "../src/http1/raw-ingress.ts";

const KEEP_ALIVE_MS = 200;
/** Node 20.20+ keeps an idle node:http connection for keepAliveTimeout plus one second. */
const NODE_KEEP_ALIVE_BUFFER_MS = 1_000;
const STALL_MS = KEEP_ALIVE_MS + NODE_KEEP_ALIVE_BUFFER_MS + 500;

function startServer(raw: boolean): Promise<Server> {
  const server = createServer({ keepAliveTimeout: KEEP_ALIVE_MS }, (_request, response) => response.end("node"));
  closeIdleConnectionsAfterReading(server);
  if (raw) {
    new RawIngress({
      paths: new Set(["/raw"]),
      contentTypes: new Set(["application/json"]),
      maxBodyBytes: 1024,
      headersTimeoutMs: 5_000,
      requestTimeoutMs: 5_000,
      keepAliveTimeoutMs: KEEP_ALIVE_MS,
      serve: (_request, response) => {
        response.end("raw");
        return true;
      },
      failed: (error) => assert.fail(String(error)),
    }).install(server);
  }
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

const get = "GET /node HTTP/1.1\r\nHost: t\r\n\r\n";
const post = "POST /raw HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}";

/** Answers counted on `socket` so far. */
function answerCounter(socket: Socket): () => number {
  let received = "";
  socket.setEncoding("latin1");
  socket.on("data", (chunk: string) => (received += chunk));
  return () => received.split("HTTP/1.1 200 OK").length - 1;
}

async function until(condition: () => boolean, boundMs: number): Promise<boolean> {
  const deadline = Date.now() + boundMs;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  return condition();
}

async function stalledSecondRequest(raw: boolean, request: string): Promise<{ answers: number; closed: boolean }> {
  const server = await startServer(raw);
  const socket = connect((server.address() as AddressInfo).port, "127.0.0.1");
  let closed = false;
  socket.on("close", () => (closed = true));
  socket.on("error", () => {});
  try {
    await once(socket, "connect");
    const answers = answerCounter(socket);
    socket.write(request);
    assert.ok(await until(() => answers() === 1, 5_000), "the first request is answered");
    await new Promise<void>((resolve) =>
      setImmediate(() => {
        socket.write(request);
        const end = Date.now() + STALL_MS;
        while (Date.now() < end);
        resolve();
      }),
    );
    await until(() => answers() === 2 || closed, 5_000);
    return { answers: answers(), closed };
  } finally {
    socket.destroy();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

describe("closing idle kept-alive connections", () => {
  for (const [name, raw, request] of [
    ["node:http", false, get],
    ["the raw ingress", true, post],
    ["a connection the raw ingress handed to node:http", true, get],
  ] as const) {
    it(`answers a request that arrived during a stall longer than the keep-alive timeout (${name})`, async () => {
      const { answers, closed } = await stalledSecondRequest(raw, request);
      assert.equal(answers, 2, "the request sent during the stall is answered");
      assert.equal(closed, false);
    });
  }

  for (const [name, raw, request] of [
    ["node:http", false, get],
    ["the raw ingress", true, post],
  ] as const) {
    it(`still closes a connection that stays idle (${name})`, async () => {
      const server = await startServer(raw);
      const socket = connect((server.address() as AddressInfo).port, "127.0.0.1");
      socket.on("error", () => {});
      try {
        await once(socket, "connect");
        const answers = answerCounter(socket);
        const started = Date.now();
        socket.write(request);
        await once(socket, "close");
        assert.equal(answers(), 1);
        assert.ok(Date.now() - started >= KEEP_ALIVE_MS, "not before the keep-alive timeout");
      } finally {
        socket.destroy();
        await new Promise((resolve) => server.close(resolve));
      }
    });
  }
});
