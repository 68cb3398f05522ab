// The dashboard's socket against many clients: a bounded number connected (503 beyond, 1013 for a race past the
// check), one snapshot per flush interval shared by every client that connects in it, and a client's close logged at
// debug rather than as a 499 access line.
import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { connect } from "node:net";
import { Writable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { type FakeLlmServer, startFakeOpenAI, waitUntil } from "@switchboard/testkit";
import pino from "pino";
import WebSocket from "ws";
import { DashboardHub } from "../src/dashboard/hub.ts";
import type { DashboardSources } from "../src/dashboard/snapshot.ts";
import { Registry } from "../src/fleet/registry.ts";
import { type RunningGateway, startGateway } from "../src/gateway.ts";
import { parseConfigText } from "../src/load-config.ts";
import { EventBus } from "../src/telemetry/events.ts";
import { RequestHistory } from "../src/telemetry/history.ts";
import { Stats } from "../src/telemetry/stats.ts";
import { backendToml, withOwnStateFiles } from "./helpers.ts";

const SOCKET_PATH = "/v1/dashboard/socket";

/** Opens a dashboard socket; resolves "open", or the HTTP status it was refused with, or the close code. */
function tryOpen(url: string): Promise<{ socket: WebSocket; outcome: string }> {
  const socket = new WebSocket(`${url.replace("http", "ws")}${SOCKET_PATH}`);
  return new Promise((resolve) => {
    socket.once("message", () => resolve({ socket, outcome: "open" }));
    socket.once("unexpected-response", (_request, response) => {
      let body = "";
      response.on("data", (chunk: Buffer) => {
        body += chunk;
      });
      response.on("end", () => resolve({ socket, outcome: `${response.statusCode} ${JSON.parse(body).error.code}` }));
    });
    socket.once("close", (code) => resolve({ socket, outcome: `close ${code}` }));
    socket.once("error", () => {});
  });
}

/** Upgrades over a raw socket and reads the answer's status line only: a client that never reads. */
function rawUpgrade(url: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () =>
      socket.write(
        `GET ${SOCKET_PATH} HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n` +
          "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
      ),
    );
    socket.once("data", (chunk) => {
      resolve(String(chunk).split("\r\n")[0]!);
      socket.destroy();
    });
    socket.once("error", reject);
  });
}

/** The part of a ws socket the hub uses, recording what it is sent. */
class RecordingSocket extends EventEmitter {
  readonly OPEN = 1;
  readyState = 1;
  bufferedAmount = 0;
  readonly sent: unknown[] = [];
  send(data: unknown): void {
    this.sent.push(data);
  }
  close(): void {
    this.readyState = 3;
    this.emit("close");
  }
}

describe("dashboard clients at scale", () => {
  let fake: FakeLlmServer;
  let gateway: RunningGateway;
  let logs = "";

  before(async () => {
    fake = await startFakeOpenAI({ models: [{ id: "m" }] });
    const sink = new Writable({
      write(chunk, _encoding, done) {
        logs += chunk.toString();
        done();
      },
    });
    const toml =
      "[server]\nport = 0\ndashboard_max_clients = 3\n[discovery]\nenabled = false\n" +
      `[health_check]\ninterval_seconds = 3600\n${backendToml("b", fake.url)}`;
    gateway = await startGateway(
      parseConfigText(withOwnStateFiles(toml), "dash.toml", {}),
      pino({ level: "debug" }, sink),
    );
  });
  after(async () => {
    await gateway.close();
    await fake.close();
  });

  it("takes dashboard_max_clients clients; beyond, 503 dashboard_full (or 1013 in a race), never more connected", async () => {
    const attempts = await Promise.all(Array.from({ length: 12 }, () => tryOpen(gateway.url)));
    const outcomes = attempts.map((attempt) => attempt.outcome);
    assert.equal(outcomes.filter((outcome) => outcome === "open").length, 3, outcomes.join(", "));
    for (const outcome of outcomes) assert.match(outcome, /^(open|503 dashboard_full|close 1013)$/);
    assert.equal(gateway.dashboard.size, 3);
    assert.match(await rawUpgrade(gateway.url), /^HTTP\/1\.1 503 /);
    // A place frees up when a client leaves.
    const open = attempts.filter((attempt) => attempt.outcome === "open");
    open[0]!.socket.close();
    await waitUntil(() => gateway.dashboard.size === 2, { what: "the client to leave" });
    const next = await tryOpen(gateway.url);
    assert.equal(next.outcome, "open");
    for (const attempt of [...open.slice(1), next]) attempt.socket.close();
    await waitUntil(() => gateway.dashboard.size === 0, { what: "every client to leave" });
  });

  it("logs a dashboard client's close at debug, not as a 499 access line", async () => {
    const { socket, outcome } = await tryOpen(gateway.url);
    assert.equal(outcome, "open");
    socket.close();
    await waitUntil(() => /WebSocket client of \/v1\/dashboard\/socket closed/.test(logs), {
      what: "the debug line of the client's close",
    });
    const lines = logs.split("\n").filter((line) => line.includes(SOCKET_PATH));
    assert.deepEqual(
      lines.filter((line) => line.includes(" 499 ")),
      [],
      "no 499 access line for a dashboard client",
    );
    assert.ok(
      lines.some((line) => line.includes('"level":20')),
      "the close is a debug line",
    );
    // A refused upgrade is still an ordinary access line.
    assert.ok(
      lines.some((line) => line.includes(`GET ${SOCKET_PATH} 503`)),
      "the 503 refusals are access lines",
    );
  });
});

describe("the dashboard hub's snapshot", () => {
  it("is built once per flush interval and the same bytes go to every client that connects in it", () => {
    let built = 0;
    const events = new EventBus();
    const registry = new Registry([], { failureThreshold: 1, recoveryThreshold: 1 });
    const sources: DashboardSources = {
      version: "test",
      registry,
      stats: new Stats(events),
      history: new RequestHistory(events, 10),
      queue: () => ({ enabled: true, maxSize: 1, depth: 0 }),
      budget: undefined,
      operations: () => {
        built++;
        return [];
      },
      keys: () => [],
    };
    // No flush happens during the test: one interval.
    const hub = new DashboardHub(events, sources, {
      flushIntervalMs: 3_600_000,
      maxBufferedBytes: 1 << 20,
      maxClients: 500,
    });
    const sockets = Array.from({ length: 500 }, () => new RecordingSocket());
    for (const socket of sockets) hub.accept(socket as unknown as WebSocket);
    assert.equal(built, 1, `${built} snapshots built for 500 connects in one interval`);
    const first = sockets[0]!.sent[0];
    assert.ok(Buffer.isBuffer(first), "sent as bytes encoded once");
    for (const socket of sockets) assert.equal(socket.sent[0], first, "every client is sent the same buffer");
    hub.close();
  });
});
