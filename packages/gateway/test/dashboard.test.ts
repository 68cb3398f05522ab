import assert from "node:assert/strict";
import { connect } from "node:net";
import { after, before, describe, it } from "node:test";
import { type FakeLlmServer, startFakeOpenAI, waitUntil } from "@switchboard/testkit";
import WebSocket from "ws";
import type { RunningGateway } from "../src/gateway.ts";
import type { RequestCompleted } from "../src/telemetry/events.ts";
import { backendToml, Closers, hello, http, postJson, startTestGateway } from "./helpers.ts";

// biome-ignore lint/suspicious/noExplicitAny: tests read the socket's JSON messages
type Message = any;

/** A dashboard socket client that collects every message. */
async function openSocket(url: string): Promise<{ socket: WebSocket; messages: Message[] }> {
  const socket = new WebSocket(`${url.replace("http", "ws")}/v1/dashboard/socket`);
  const messages: Message[] = [];
  socket.on("message", (data) => messages.push(JSON.parse(String(data))));
  await new Promise((resolve, reject) => {
    socket.once("open", resolve);
    socket.once("error", reject);
  });
  return { socket, messages };
}

/** Sends `text` as is and returns what the server answers before it closes or 2 s pass. */
function rawRequest(url: string, text: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    let answer = "";
    const socket = connect(Number(port), hostname, () => socket.end(text));
    socket.setTimeout(2000, () => socket.destroy());
    socket.on("data", (chunk) => {
      answer += chunk;
    });
    socket.on("close", () => resolve(answer));
    socket.on("error", reject);
  });
}

const completedEvent = (i: number): RequestCompleted => ({
  type: "request_completed",
  requestId: `synthetic-${i}`,
  endpoint: "chat",
  requestedModel: "m",
  stream: false,
  priority: "normal",
  backend: "b0",
  model: "m",
  routeReason: "capability-match",
  status: 200,
  outcome: "ok",
  attempts: 1,
  fallback: false,
  queuedMs: 0,
  durationMs: 12,
  ttftMs: 12,
  promptTokens: 10,
  completionTokens: 20,
  costUsd: undefined,
});

describe("the dashboard's socket", () => {
  let fake: FakeLlmServer;
  let gateway: RunningGateway;
  const closers = new Closers();

  before(async () => {
    fake = await startFakeOpenAI({ models: [{ id: "m" }] });
    // Hundreds of backends: the snapshot carries them all, whatever its size.
    const backends = Array.from({ length: 300 }, (_, i) => backendToml(`b${i}`, fake.url)).join("");
    gateway = await startTestGateway(`[health_check]\ninterval_seconds = 3600\n${backends}`, closers);
  });
  after(async () => {
    await closers.closeAll();
    await fake.close();
  });

  it("sends a snapshot of the whole fleet on connect, then requests as they complete, batched", async () => {
    const { socket, messages } = await openSocket(gateway.url);
    try {
      await waitUntil(() => messages.length > 0, { what: "the snapshot" });
      const snapshot = messages[0];
      assert.equal(snapshot.type, "snapshot");
      assert.equal(snapshot.backends.length, 300);
      assert.deepEqual(snapshot.backends[0].models, ["m"]);
      assert.ok(JSON.stringify(snapshot).length > 10_000, "no size limit cuts it short");
      for (let i = 0; i < 5; i++)
        assert.equal((await postJson(`${gateway.url}/v1/chat/completions`, hello("m"))).status, 200);
      const requests = () =>
        messages
          .filter((m) => m.type === "events")
          .flatMap((m) => m.events.filter((e: Message) => e.type === "request"));
      await waitUntil(() => requests().length >= 5, { what: "five requests on the socket" });
      const batches = messages.filter((m) => m.type === "events").length;
      assert.ok(batches < 5, `five requests in one quick burst arrive in fewer messages (${batches})`);
      assert.deepEqual(Object.keys(requests()[0].request).sort().slice(0, 3), ["attempts", "backend", "backend_model"]);
    } finally {
      socket.close();
    }
  });

  it("gives a client that falls behind a fresh snapshot instead of an unbounded buffer or a dropped socket", async () => {
    const { socket, messages } = await openSocket(gateway.url);
    try {
      await waitUntil(() => messages.length > 0, { what: "the snapshot" });
      // Stop reading: the server's unsent bytes for this client grow until the policy kicks in.
      (socket as unknown as { _socket: { pause(): void } })._socket.pause();
      // ~25 MB of events: far more than the kernel's socket buffers take in.
      let maxBuffered = 0;
      for (let round = 0; round < 100; round++) {
        for (let i = 0; i < 500; i++) gateway.events.emit(completedEvent(round * 500 + i));
        await new Promise((resolve) => setTimeout(resolve, 110));
        maxBuffered = Math.max(maxBuffered, gateway.dashboard.bufferedBytes);
      }
      // Bounded: the 1 MiB threshold plus the batch that crossed it, not 50,000 events' worth.
      assert.ok(maxBuffered > 1024 * 1024, `the client fell behind (${maxBuffered} bytes unsent at most)`);
      assert.ok(maxBuffered < 2 * 1024 * 1024, `server kept ${maxBuffered} bytes for a client that does not read`);
      const before = messages.length;
      (socket as unknown as { _socket: { resume(): void } })._socket.resume();
      await waitUntil(() => messages.slice(before).some((m) => m.type === "snapshot"), {
        what: "a fresh snapshot after catching up",
      });
      assert.equal(socket.readyState, WebSocket.OPEN);
    } finally {
      socket.close();
    }
  });

  it("closes a client that sends anything, and answers a plain GET or a bad handshake in the gateway's format", async () => {
    const { socket } = await openSocket(gateway.url);
    const code = await new Promise((resolve) => {
      socket.once("close", (closeCode) => resolve(closeCode));
      socket.send("hello");
    });
    assert.equal(code, 1003);
    const plain = await http(`${gateway.url}/v1/dashboard/socket`);
    assert.equal(plain.status, 426);
    assert.equal(plain.json().error.code, "upgrade_required");
    const bad = await rawRequest(
      gateway.url,
      "GET /v1/dashboard/socket HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n" +
        "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: x\r\n\r\n",
    );
    assert.match(bad, /^HTTP\/1\.1 400 /);
    assert.match(bad, /"code":"invalid_websocket_handshake"/);
    const page = await http(`${gateway.url}/`);
    assert.equal(page.status, 200);
    assert.match(page.text, /<title>Switchboard gateway<\/title>/);
  });
});
