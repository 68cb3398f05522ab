// Stopping the real bin: streams end properly, websockets get 1001, in-flight work gets ShutdownTimeout, and the exit
// code says whether anything was cut.
import assert from "node:assert/strict";
import { request } from "node:http";
import { connect } from "node:net";
import { describe, it } from "node:test";
import { waitUntil, withTimeout } from "@switchboard/testkit";
import WebSocket from "ws";
import { startBridgeProcess } from "./bridge-process.ts";

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
