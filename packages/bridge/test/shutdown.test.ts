// Stopping the real bin: the outbound queues drain, new posts get 503, streams end properly, websockets get 1001,
// in-flight work gets ShutdownTimeout, and the exit code says whether anything was cut.
import assert from "node:assert/strict";
import { request } from "node:http";
import { connect, createServer } from "node:net";
import { describe, it } from "node:test";
import { connectIrcUser, startNgircd, type Teardown, waitUntil, withTimeout } from "@switchboard/testkit";
import WebSocket from "ws";
import { startBridgeProcess } from "./bridge-process.ts";
import { http, post } from "./helpers.ts";

const CONFIG = (general: string) =>
  `[general]\n${general}\n[api.a]\nBindAddress = "127.0.0.1:0"\n[api.b]\nBindAddress = "127.0.0.1:0"\n` +
  `[[gateway]]\nname = "g"\nenable = true\n[[gateway.inout]]\naccount = "api.a"\n[[gateway.inout]]\naccount = "api.b"\n`;

describe("graceful shutdown", { concurrency: 2 }, () => {
  it("ends streams with a complete response and closes websockets with 1001, then exits 0", async (t) => {
    const bridge = await startBridgeProcess(CONFIG("ShutdownTimeout = 10"), t);
    const base = bridge.url("api.b");
    const streamEnd = withTimeout(
      new Promise<string>((resolve, reject) => {
        const req = request(`${base}/api/stream`, (res) => {
          res.resume();
          res.on("end", () => resolve("end"));
          res.on("aborted", () => resolve("aborted"));
          res.on("error", () => resolve("error"));
        });
        req.on("error", reject);
        req.end();
      }),
      20_000,
      "the stream's end",
    );
    const ws = new WebSocket(`${base.replace("http", "ws")}/api/websocket`);
    const greeted = new Promise((resolve) => ws.once("message", resolve));
    const closeCode = new Promise<number>((resolve) => ws.once("close", (code) => resolve(code)));
    ws.on("error", () => {});
    await withTimeout(greeted, 5_000, "the websocket greeting");
    await bridge.process.waitForLine("GET /api/health", 100).catch(() => {});

    bridge.process.killGroup("SIGTERM");
    assert.equal(await withTimeout(closeCode, 20_000, "the websocket close"), 1001);
    assert.equal(await streamEnd, "end", "the stream ends with its last chunk, not a reset");
    assert.deepEqual(await withTimeout(bridge.process.exited, 20_000, "exit"), { code: 0, signal: null });
    assert.match(bridge.process.output, /stopped cleanly/);
  });

  it("cuts a request still in progress after ShutdownTimeout and exits 1 saying so", async (t) => {
    const bridge = await startBridgeProcess(CONFIG("ShutdownTimeout = 1"), t);
    const { hostname, port } = new URL(bridge.url("api.a"));
    // A POST whose body is only half sent: the request is in progress when the stop begins.
    const socket = connect(Number(port), hostname);
    socket.on("error", () => {});
    t.after(() => socket.destroy());
    await new Promise((resolve) => socket.once("connect", resolve));
    let received = "";
    socket.setEncoding("utf8").on("data", (chunk: string) => {
      received += chunk;
    });
    // "100 Continue" says the server has the request in hand and waits for its body.
    socket.write(
      "POST /api/message HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n" +
        "Expect: 100-continue\r\n\r\n",
    );
    await waitUntil(() => received.includes("100 Continue"), { timeoutMs: 10_000, what: "100 Continue" });
    socket.write('{"te');
    bridge.process.killGroup("SIGTERM");
    const exit = await withTimeout(bridge.process.exited, 20_000, "exit");
    assert.deepEqual(exit, { code: 1, signal: null });
    assert.match(bridge.process.output, /ShutdownTimeout \(1 s\) passed with work still in progress on api\.a/);
  });
});

/** A TCP server that hangs up on every connection: an IRC destination that never comes up. */
async function hangingUpServer(t: Teardown): Promise<number> {
  const server = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const address = server.address();
  return typeof address === "object" && address ? address.port : 0;
}

const DRAIN_CONFIG = (general: string, ircServer: string, ircKeys = "") =>
  `[general]\n${general}\n` +
  `[api.in]\nBindAddress = "127.0.0.1:0"\n` +
  `[irc.out]\nServer = "${ircServer}"\nNick = "drainbot"\nRemoteNickFormat = "<{NICK}> "\n${ircKeys}\n` +
  `[[gateway]]\nname = "g"\nenable = true\n` +
  `[[gateway.inout]]\naccount = "api.in"\nchannel = "api"\n` +
  `[[gateway.inout]]\naccount = "irc.out"\nchannel = "#drain"\n`;

/** Posts `count` messages m1..mN in order; each is queued for the IRC destination. */
async function postNumbered(base: string, count: number): Promise<string[]> {
  const texts: string[] = [];
  for (let i = 1; i <= count; i++) {
    const answer = await post(base, { text: `m${i}`, username: "bob", gateway: "g" });
    assert.equal(answer.status, 200, answer.body);
    texts.push(`<bob> m${i}`);
  }
  return texts;
}

describe("draining the outbound queues on a stop", { concurrency: 3 }, () => {
  it("delivers every queued message to a paced destination, in order, then exits 0", async (t) => {
    const server = await startNgircd(t);
    const alice = await connectIrcUser(t, { ...server, nick: "alice", channels: ["#drain"] });
    // MessageDelay paces the 30 messages out over seconds: the stop comes while most are still queued.
    const bridge = await startBridgeProcess(
      DRAIN_CONFIG("ShutdownTimeout = 60", `127.0.0.1:${server.port}`, "MessageDelay = 100"),
      t,
    );
    const sent = await postNumbered(bridge.url("api.in"), 30);

    bridge.process.killGroup("SIGTERM");
    assert.deepEqual(await withTimeout(bridge.process.exited, 60_000, "exit"), { code: 0, signal: null });
    await alice.waitForMessage("#drain", "<bob> m30", 10_000);
    const received = alice.events.items.flatMap((e) => (e.type === "privmsg" && e.target === "#drain" ? [e.text] : []));
    assert.deepEqual(received, sent);
    assert.match(bridge.process.output, /stopped cleanly/);
    assert.doesNotMatch(bridge.process.output, /not delivered/);
  });

  it("cuts a destination that never comes up after ShutdownTimeout, exits 1 and says how many were lost", async (t) => {
    const port = await hangingUpServer(t);
    const bridge = await startBridgeProcess(DRAIN_CONFIG("ShutdownTimeout = 1", `127.0.0.1:${port}`), t);
    await postNumbered(bridge.url("api.in"), 30);

    bridge.process.killGroup("SIGTERM");
    assert.deepEqual(await withTimeout(bridge.process.exited, 20_000, "exit"), { code: 1, signal: null });
    assert.match(bridge.process.output, /irc\.out #drain: 30 queued message\(s\) not delivered/);
    assert.match(bridge.process.output, /ShutdownTimeout \(1 s\) passed with work still in progress on irc\.out/);
  });

  it("answers posts during the drain with 503 and Retry-After; a second signal cuts at once", async (t) => {
    const port = await hangingUpServer(t);
    const bridge = await startBridgeProcess(DRAIN_CONFIG("ShutdownTimeout = 60", `127.0.0.1:${port}`), t);
    const base = bridge.url("api.in");
    await postNumbered(base, 3);

    bridge.process.killGroup("SIGTERM");
    await bridge.process.waitForLine(/SIGTERM received: draining/, 10_000);
    const refused = await post(base, { text: "too late", username: "bob", gateway: "g" });
    assert.equal(refused.status, 503);
    assert.equal(refused.headers["retry-after"], "60");
    assert.match((JSON.parse(refused.body) as { message: string }).message, /shutting down/);
    // Reading is not new work: a poller may still collect what the bridge holds.
    assert.equal((await http(`${base}/api/health`)).status, 200);

    bridge.process.killGroup("SIGTERM");
    assert.deepEqual(await withTimeout(bridge.process.exited, 20_000, "exit"), { code: 1, signal: null });
    assert.match(bridge.process.output, /SIGTERM received again: cutting now/);
    assert.match(bridge.process.output, /irc\.out #drain: 3 queued message\(s\) not delivered/);
  });
});
