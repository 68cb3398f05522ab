// At shutdown the gateway does not linger on keep-alive connections: an answer still to come says Connection: close
// and its connection ends with it; a connection that is idle, or whose stream ends, is closed at once.
import assert from "node:assert/strict";
import { once } from "node:events";
import { connect, type Socket } from "node:net";
import { after, before, describe, it } from "node:test";
import { type FakeLlmServer, startFakeOpenAI, waitUntil, withTimeout } from "@switchboard/testkit";
import pino from "pino";
import { startGateway } from "../src/gateway.ts";
import { parseConfigText } from "../src/load-config.ts";
import { backendToml, withOwnStateFiles } from "./helpers.ts";

/** A keep-alive HTTP/1.1 client on one raw socket: what it received, and whether the server closed it. */
function keepAliveClient(url: string): { socket: Socket; received: () => string; closed: Promise<unknown> } {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  let text = "";
  socket.on("data", (chunk) => {
    text += chunk;
  });
  return { socket, received: () => text, closed: once(socket, "close") };
}

const chat = (stream: boolean) => {
  const body = JSON.stringify({ model: "m", stream, messages: [{ role: "user", content: "hi" }] });
  return (
    "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\nContent-Type: application/json\r\n" +
    `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  );
};

describe("shutdown and keep-alive connections", () => {
  let fake: FakeLlmServer;
  before(async () => {
    fake = await startFakeOpenAI({ models: [{ id: "m" }] });
  });
  after(() => fake.close());

  it("answers in flight say Connection: close, and every connection ends as soon as its answer is done", async () => {
    const toml = `[server]\nport = 0\n[discovery]\nenabled = false\n${backendToml("b", fake.url)}`;
    const gateway = await startGateway(
      parseConfigText(withOwnStateFiles(toml), "k.toml", {}),
      pino({ level: "silent" }),
    );
    const idle = keepAliveClient(gateway.url);
    const waiting = keepAliveClient(gateway.url);
    try {
      // One connection idle after an answer, one whose answer is held up by the backend when shutdown starts.
      idle.socket.write("GET /health HTTP/1.1\r\nHost: x\r\n\r\n");
      await waitUntil(() => idle.received().includes('"status"'), { what: "the first answer" });
      fake.setFault({ kind: "stall" });
      const received = fake.requests.length;
      waiting.socket.write(chat(false));
      await waitUntil(() => fake.requests.length > received, { what: "the backend receiving the request" });
      const closing = gateway.close();
      await withTimeout(idle.closed, 10_000, "the idle connection closing");
      fake.setFault({ kind: "none" });
      await withTimeout(waiting.closed, 10_000, "the connection closing with its answer");
      assert.match(waiting.received(), /^HTTP\/1\.1 200 /);
      assert.match(waiting.received(), /\r\nconnection: close\r\n/i, "the answer tells the client not to reuse it");
      await withTimeout(closing, 10_000, "close()");
    } finally {
      fake.setFault({ kind: "none" });
      idle.socket.destroy();
      waiting.socket.destroy();
    }
  });
});
