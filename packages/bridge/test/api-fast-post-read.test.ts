// The fast post takes the bodies that came with their headers in one go (accounts/api/fast-post.ts): the posts of
// one socket read are handled back to back in one callback, not each from its own end event. Told apart by
// microtasks: none runs between posts handled in one callback, one runs between any two end events.
import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer } from "node:http";
import { connect } from "node:net";
import { describe, it } from "node:test";
import pino from "pino";
import { fastPost } from "../src/accounts/api/fast-post.ts";
import { PostOrder } from "../src/accounts/api/post-order.ts";

const POSTS = 20;

describe("the fast post's bodies", () => {
  it("are taken together when they came with their headers, each whole", async (t) => {
    /** Advanced by a microtask after each post: posts handled in one callback all see the same value. */
    let epoch = 0;
    const seen: { epoch: number; text: string }[] = [];
    const fast = fastPost({
      bodyLimit: 1 << 20,
      check: undefined,
      logger: pino({ level: "silent" }),
      isServing: () => true,
      retryAfterSeconds: () => 1,
      shuttingDownMessage: "stopping",
      post: (body) => {
        seen.push({ epoch, text: (JSON.parse(body.bytes.toString("utf8")) as { text: string }).text });
        queueMicrotask(() => epoch++);
        return { encoded: "{}", deliveries: 1 };
      },
      written: () => Promise.resolve(),
      order: new PostOrder(),
    });
    const server = createServer((request, response) => {
      if (!fast.fromNode(request, response)) response.writeHead(404).end();
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    t.after(() => server.close());
    const address = server.address();
    if (address === null || typeof address === "string") throw new Error("no port");
    const socket = connect(address.port, "127.0.0.1");
    t.after(() => socket.destroy());
    const requests = Array.from({ length: POSTS }, (_, n) => {
      const body = JSON.stringify({ text: `post ${n}`, gateway: "g" });
      return (
        "POST /api/message HTTP/1.1\r\nHost: bridge\r\nContent-Type: application/json\r\n" +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
      );
    });
    let answers = 0;
    const answered = new Promise<void>((resolve) => {
      socket.on("data", (chunk: Buffer) => {
        answers += chunk.toString("latin1").split("HTTP/1.1 200").length - 1;
        if (answers >= POSTS) resolve();
      });
    });
    socket.write(requests.join(""));
    await answered;
    assert.deepEqual(
      seen.map((s) => s.text),
      requests.map((_, n) => `post ${n}`),
    );
    // One write of a few kilobytes on loopback is one read, two at worst; end events would give each post its own.
    assert.ok(new Set(seen.map((s) => s.epoch)).size <= 2, `handled in ${new Set(seen.map((s) => s.epoch)).size} goes`);
  });
});
