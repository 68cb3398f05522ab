// The stream hub and the ring over real sockets and against a model: slow clients are cut off, not buffered
// without bound; the ring always holds the newest `capacity` items in order.
import assert from "node:assert/strict";
import { createServer, request, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, it } from "node:test";
import { waitUntil } from "@switchboard/testkit";
import fc from "fast-check";
import { RingBuffer } from "../src/accounts/api/ring-buffer.ts";
import { StreamHub } from "../src/accounts/api/stream-hub.ts";

describe("stream hub", () => {
  it("disconnects a client that stops reading and keeps serving the others", async (t) => {
    const slowCuts: number[] = [];
    const hub = new StreamHub({ maxBufferedBytes: 256 * 1024, onSlowClient: (buffered) => slowCuts.push(buffered) });
    const responses: ServerResponse[] = [];
    const server = createServer((_req, res: ServerResponse) => {
      responses.push(res);
      res.writeHead(200, { "content-type": "application/json" });
      res.write("{}\n");
      hub.add(res);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    t.after(() => {
      hub.closeAll();
      server.close();
    });
    const { port } = server.address() as AddressInfo;
    const open = (reading: boolean) =>
      new Promise<{ received: () => number; closed: () => boolean }>((resolve) => {
        let bytes = 0;
        let closed = false;
        const req = request({ port, host: "127.0.0.1", agent: false }, (res) => {
          res.on("close", () => {
            closed = true;
          });
          res.on("error", () => {});
          if (reading) res.on("data", (chunk: Buffer) => (bytes += chunk.length));
          else res.pause();
          resolve({ received: () => bytes, closed: () => closed });
        });
        // The request's close follows the socket's, even while the response is paused.
        req.on("close", () => {
          closed = true;
        });
        req.on("error", () => {});
        req.end();
      });
    const slow = await open(false);
    const fast = await open(true);
    await waitUntil(() => hub.size === 2);
    const line = `${JSON.stringify({ text: "x".repeat(1000) })}\n`;
    let sent = 0;
    // Keep broadcasting (yielding to the event loop so sockets drain) until the slow client is cut off.
    await waitUntil(
      async () => {
        for (let i = 0; i < 200; i++) hub.broadcast(line);
        sent += 200;
        await new Promise((resolve) => setImmediate(resolve));
        return slowCuts.length > 0;
      },
      { timeoutMs: 20_000, intervalMs: 1, what: "the slow client to be cut off" },
    );
    assert.equal(hub.size, 1);
    // The server let go of the slow client's socket (the client itself only sees the end once it reads again).
    assert.equal(responses[0]?.destroyed, true);
    assert.equal(responses[0]?.socket?.destroyed ?? true, true);
    assert.equal(slow.received(), 0);
    await waitUntil(() => fast.received() >= sent * line.length, {
      timeoutMs: 20_000,
      what: "the fast client to get all",
    });
    assert.equal(fast.closed(), false);
  });
});

describe("ring buffer", () => {
  it("holds the newest `capacity` items in arrival order and counts the dropped ones", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20 }),
        fc.array(fc.oneof(fc.integer(), fc.constant("drain" as const)), { maxLength: 200 }),
        (capacity, ops) => {
          const ring = new RingBuffer<number>(capacity);
          let model: number[] = [];
          let dropped = 0;
          for (const op of ops) {
            if (op === "drain") {
              assert.deepEqual(ring.drain(), model);
              model = [];
            } else {
              model.push(op);
              if (model.length > capacity) {
                model.shift();
                dropped++;
              }
              ring.push(op);
            }
            assert.equal(ring.size, model.length);
            assert.equal(ring.dropped, dropped);
            assert.equal(ring.capacity, capacity);
          }
          assert.deepEqual(ring.drain(), model);
        },
      ),
      { numRuns: 300 },
    );
  });
});
