import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { type Dispatcher, Pool } from "undici";
import { AnswerTooLarge } from "../../src/backends/network-errors.ts";
import { type ResponseSink, SinkHandler } from "../../src/backends/upstream-call.ts";

describe("SinkHandler through undici", () => {
  let endlessClosed: Promise<number> | undefined;
  const server = createServer((req, res) => {
    if (req.url === "/endless") {
      // Writes until the client closes the connection; resolves with how much it wrote.
      res.writeHead(200, { "content-type": "application/json" });
      let written = 0;
      const piece = Buffer.alloc(16 * 1024, "x");
      const pump = () => {
        while (!res.destroyed) {
          written += piece.length;
          if (!res.write(piece)) return void res.once("drain", pump);
        }
      };
      endlessClosed = new Promise((resolve) => res.on("close", () => resolve(written)));
      pump();
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream", "x-extra": "a".repeat(500) });
    res.write("data: 1\n\n");
    setTimeout(() => res.end("data: [DONE]\n\n"), 20);
  });
  let pool: Pool;
  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    pool = new Pool(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  });
  after(async () => {
    await pool.close();
    server.close();
  });

  it("relays status, type and body, and holds no raw header buffers while the body streams", async () => {
    const seen: { start?: [number, string]; body: string; rawHeadersWhileStreaming: unknown[] } = {
      body: "",
      rawHeadersWhileStreaming: [],
    };
    let controller: Dispatcher.DispatchController | undefined;
    const ended = new Promise<void>((resolve, reject) => {
      const sink: ResponseSink = {
        start: (status, type) => {
          seen.start = [status, type];
        },
        data: (chunk) => {
          seen.body += chunk.toString();
          seen.rawHeadersWhileStreaming.push((controller as { rawHeaders?: unknown }).rawHeaders);
        },
        end: resolve,
        error: reject,
      };
      const handler = new SinkHandler(sink, 1024 * 1024);
      // The controller undici hands the handler (its own class), seen on the way in.
      const spy: Dispatcher.DispatchHandler = {
        onRequestStart: (c) => {
          controller = c;
          handler.onRequestStart(c);
        },
        onResponseStart: (c, status, headers) => handler.onResponseStart(c, status, headers),
        onResponseData: (c, chunk) => handler.onResponseData(c, chunk),
        onResponseEnd: () => handler.onResponseEnd(),
        onResponseError: (c, error) => handler.onResponseError(c, error),
      };
      pool.dispatch({ method: "POST", path: "/", body: "{}" }, spy);
    });
    await ended;
    assert.deepEqual(seen.start, [200, "text/event-stream"]);
    assert.equal(seen.body, "data: 1\n\ndata: [DONE]\n\n");
    assert.ok(controller && "rawHeaders" in controller, "undici's controller has rawHeaders (else this test is moot)");
    assert.deepEqual(seen.rawHeadersWhileStreaming, [null, null]);
  });

  it("stops an answer over its limit there: one error, AnswerTooLarge, nothing after it, the connection closed", async () => {
    const limit = 256 * 1024;
    let received = 0;
    const events: string[] = [];
    const failed = new Promise<Error>((resolve) => {
      const sink: ResponseSink = {
        start: () => events.push("start"),
        data: (chunk) => {
          received += chunk.length;
          if (events.at(-1) !== "data") events.push("data");
        },
        end: () => events.push("end"),
        error: (error) => {
          events.push("error");
          resolve(error);
        },
      };
      pool.dispatch({ method: "POST", path: "/endless", body: "{}" }, new SinkHandler(sink, limit));
    });
    const error = await failed;
    assert.ok(error instanceof AnswerTooLarge);
    assert.match(error.message, /answered more than 262144 bytes \(server\.answer_limit_bytes\)/);
    assert.ok(received <= limit);
    const written = await endlessClosed!;
    assert.ok(written < limit + 32 * 1024 * 1024, `the server wrote ${written} bytes before the connection closed`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(events, ["start", "data", "error"]);
  });
});
