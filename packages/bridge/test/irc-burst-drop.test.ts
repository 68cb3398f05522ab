// A burst of api posts to IRC with MessageDelay = 0 (sent in batches, several lines a write) whose connection drops
// as a batch is written, against a real ngIRCd: every post the api accepted reaches the channel once the account is
// back, first arrivals in posting order. The lines of the dropped batch never reached the kernel, were never counted
// as sent, so they stay queued and go out after the reconnect.
import assert from "node:assert/strict";
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { connect, type Socket } from "node:net";
import { describe, it } from "node:test";
import { connectIrcUser, startNgircd, waitUntil, withTimeout } from "@switchboard/testkit";
import { startBridge, suiteTeardown } from "./helpers.ts";

const POSTS = 400;

function config(port: number): string {
  return `
[irc.net]
Server = "127.0.0.1:${port}"
Nick = "burstbot"
RemoteNickFormat = "<{NICK}> "
MessageDelay = 0
MessageQueue = 10000
ReconnectDelay = 100
ReconnectMaxDelay = 500

[api.local]
BindAddress = "127.0.0.1:0"

[[gateway]]
name = "g"
enable = true
  [[gateway.inout]]
  account = "irc.net"
  channel = "#burst"
  [[gateway.inout]]
  account = "api.local"
  channel = "api"
`;
}

/**
 * POSTs every body on one connection, pipelined (all written at once), so that the bridge reads several posts per
 * read, in posting order; resolves with the answers' status codes, in order.
 */
async function pipelinedPosts(base: string, bodies: string[]): Promise<number[]> {
  const { hostname, port } = new URL(base);
  const socket = connect({ host: hostname, port: Number(port) });
  try {
    const statuses: number[] = [];
    const done = new Promise<void>((resolve, reject) => {
      let text = "";
      socket.setEncoding("utf8");
      socket.on("data", (chunk: string) => {
        text += chunk;
        for (const match of text.matchAll(/HTTP\/1\.1 (\d{3}) /g)) statuses.push(Number(match[1]));
        text = text.slice(text.lastIndexOf("HTTP/1.1 ") + 1);
        if (statuses.length >= bodies.length) resolve();
      });
      socket.on("error", reject);
    });
    socket.write(
      bodies
        .map(
          (body) =>
            `POST /api/message HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\n` +
            `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
        )
        .join(""),
    );
    await withTimeout(done, 20_000, `answers to ${bodies.length} pipelined posts`);
    return statuses;
  } finally {
    socket.destroy();
  }
}

/** The client sockets this process opens while `work` runs (the bridge's IRC connection, here). */
async function socketsOpenedBy(work: () => Promise<void>): Promise<Socket[]> {
  const sockets: Socket[] = [];
  const onSocket = (message: unknown) => sockets.push((message as { socket: Socket }).socket);
  subscribe("net.client.socket", onSocket);
  try {
    await work();
  } finally {
    unsubscribe("net.client.socket", onSocket);
  }
  return sockets;
}

describe("an IRC burst whose connection drops mid-batch", () => {
  const teardown = suiteTeardown();

  it("loses nothing the api accepted: the dropped batch is sent after the reconnect, in order", async () => {
    const server = await startNgircd(teardown);
    const alice = await connectIrcUser(teardown, { ...server, nick: "alice", channels: ["#burst"] });
    let bridge: Awaited<ReturnType<typeof startBridge>> | undefined;
    const sockets = await socketsOpenedBy(async () => {
      bridge = await startBridge(config(server.port), teardown);
    });
    assert.ok(bridge);
    const irc = sockets.find((socket) => socket.remotePort === server.port);
    assert.ok(irc, "the bridge's IRC socket");

    // The first write that carries a batch (several lines in one write) never reaches the kernel: the link drops
    // just before it, so the socket refuses it (its callback gets the error), as a write still in Node's buffer.
    let droppedBytes = 0;
    const write = irc.write.bind(irc) as (...args: unknown[]) => boolean;
    irc.write = ((chunk: unknown, ...rest: unknown[]) => {
      if (droppedBytes === 0 && typeof chunk === "string" && chunk.split("\r\n").length > 3) {
        droppedBytes = chunk.length;
        irc.destroy();
      }
      return write(chunk, ...rest);
    }) as typeof irc.write;

    const statuses = await pipelinedPosts(
      bridge.url("api.local"),
      Array.from({ length: POSTS }, (_, n) => JSON.stringify({ text: `burst ${n}`, username: "bob", gateway: "g" })),
    );
    assert.deepEqual(new Set(statuses), new Set([200]), "the api accepted every post");
    assert.ok(droppedBytes > 0, "the connection dropped with a batch pending");

    const numbers = () =>
      alice.events.items.flatMap((e) =>
        e.type === "privmsg" && e.target === "#burst" && e.nick.startsWith("burstbot")
          ? [Number(e.text.slice(12))]
          : [],
      );
    await waitUntil(() => new Set(numbers()).size === POSTS, {
      timeoutMs: 20_000,
      what: `all ${POSTS} posts on IRC (seen ${new Set(numbers()).size})`,
    });
    const firstArrivals = [...new Set(numbers())];
    assert.deepEqual(
      firstArrivals,
      Array.from({ length: POSTS }, (_, n) => n),
    );
    assert.ok(
      bridge.logs.some((line) => line.includes("disconnected")),
      "the account noticed the drop and came back",
    );
  });
});
