// Slow and idle clients are cut (ReadHeaderTimeout, ReadTimeout, IdleTimeout) and the number of connections is capped
// (MaxConnections), each set per api account.
import assert from "node:assert/strict";
import { connect, type Socket } from "node:net";
import { before, describe, it } from "node:test";
import { waitUntil, withTimeout } from "@switchboard/testkit";
import { http, openStream, type RunningBridge, startBridge, suiteTeardown } from "./helpers.ts";

const CONFIG = `
[api.slow]
BindAddress = "127.0.0.1:0"
ReadHeaderTimeout = 1
ReadTimeout = 2
IdleTimeout = 1

[api.capped]
BindAddress = "127.0.0.1:0"
MaxConnections = 2

[[gateway]]
name = "gw"
enable = true
  [[gateway.inout]]
  account = "api.slow"
  [[gateway.inout]]
  account = "api.capped"
`;

const postRequest = (body: string) =>
  `POST /api/message HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;

/** A raw connection that records what it receives and when it is closed. */
function rawClient(base: string): Promise<{ socket: Socket; received: () => string; closed: Promise<void> }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let data = "";
    socket.setEncoding("utf8").on("data", (chunk: string) => {
      data += chunk;
    });
    socket.on("error", () => {});
    const closed = new Promise<void>((done) => socket.once("close", () => done()));
    socket.once("connect", () => resolve({ socket, received: () => data, closed }));
    socket.once("error", reject);
  });
}

describe("api account connection limits", () => {
  let bridge: RunningBridge;
  const teardown = suiteTeardown();
  before(async () => {
    bridge = await startBridge(CONFIG, teardown);
  });

  it("cuts a slowloris client that never finishes its headers, with a 408 in the API's format", async (t) => {
    const client = await rawClient(bridge.url("api.slow"));
    client.socket.write("GET /api/health HTTP/1.1\r\nHost: x\r\n");
    // One more header line every 100 ms: never complete, always active.
    const dribble = setInterval(() => client.socket.write(`X-${Date.now()}: y\r\n`), 100);
    t.after(() => clearInterval(dribble));
    await withTimeout(client.closed, 10_000, "the slow client being cut");
    clearInterval(dribble);
    assert.match(client.received(), /^HTTP\/1\.1 408 /);
    assert.match(client.received(), /\{"message":"request not received in time/);
  });

  it("cuts a client whose body never completes, and one that connects and sends nothing", async () => {
    const slowBody = await rawClient(bridge.url("api.slow"));
    slowBody.socket.write(
      "POST /api/message HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{",
    );
    const dribble = setInterval(() => slowBody.socket.write(" "), 100);
    const idle = await rawClient(bridge.url("api.slow"));
    try {
      await withTimeout(Promise.all([slowBody.closed, idle.closed]), 10_000, "slow and idle clients being cut");
    } finally {
      clearInterval(dribble);
    }
    assert.match(slowBody.received(), /^HTTP\/1\.1 408 /);
  });

  it("closes a kept-alive connection idle for IdleTimeout", async () => {
    const client = await rawClient(bridge.url("api.slow"));
    client.socket.write("GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n");
    await waitUntil(() => client.received().endsWith("OK"), { timeoutMs: 5_000, what: "the health answer" });
    await withTimeout(client.closed, 10_000, "the idle keep-alive connection being closed");
  });

  // A heap snapshot or a starved core can stall the bridge for longer than IdleTimeout while a client's next request
  // waits on a kept-alive connection: it is answered, not reset (node:http adds a second to IdleTimeout).
  for (const [what, request] of [
    ["poll", "GET /api/messages HTTP/1.1\r\nHost: x\r\n\r\n"],
    ["post", postRequest('{"text":"stalled","username":"u","gateway":"gw"}')],
  ] as const) {
    it(`answers a ${what} that arrived while the bridge was stalled past IdleTimeout`, async () => {
      const client = await rawClient(bridge.url("api.slow"));
      const answers = () => client.received().split("HTTP/1.1 200 ").length - 1;
      client.socket.write(request);
      await waitUntil(() => answers() === 1, { timeoutMs: 5_000, what: "the first answer" });
      await new Promise<void>((resolve) =>
        setImmediate(() => {
          client.socket.write(request);
          const end = Date.now() + 2_500;
          while (Date.now() < end);
          resolve();
        }),
      );
      await waitUntil(() => answers() === 2, { timeoutMs: 5_000, what: "the answer to the stalled request" });
      client.socket.destroy();
    });
  }

  it("refuses connections beyond MaxConnections and accepts again once one closes", async () => {
    const base = bridge.url("api.capped");
    const streams = [await openStream(base), await openStream(base)];
    teardown.after(() => {
      for (const stream of streams) stream.close();
    });
    await assert.rejects(http(`${base}/api/health`), /socket hang up|ECONNRESET|EPIPE/);
    // Other accounts are not affected.
    assert.equal((await http(`${bridge.url("api.slow")}/api/health`)).body, "OK");
    streams[0]?.close();
    await waitUntil(async () => (await http(`${base}/api/health`).catch(() => undefined))?.body === "OK", {
      timeoutMs: 5_000,
      what: "a free connection slot",
    });
  });
});
