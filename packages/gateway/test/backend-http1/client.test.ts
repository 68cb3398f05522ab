import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, afterEach, before, describe, it } from "node:test";
import fc from "fast-check";
import type { Http1Client } from "../../src/backends/http1/client.ts";
import { UpstreamUnreachable } from "../../src/backends/network-errors.ts";
import { ClientGone } from "../../src/backends/upstream-call.ts";
import {
  clientFor,
  post,
  RawBackend,
  type ReceivedRequest,
  record,
  SuiteClients,
  until,
  writeInPieces,
} from "./raw-backend.ts";
import { malformedResponse, responseCase } from "./responses.ts";

const OK = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}";

describe("HTTP/1.1 client: responses as TCP delivers them", () => {
  const backend = new RawBackend(() => {});
  let client: Http1Client;
  before(async () => {
    client = clientFor(await backend.listen());
  });
  after(async () => {
    await client.close();
    await backend.close();
  });

  it("gives the sink exactly the status, type and body bytes of any valid response", async () => {
    await fc.assert(
      fc.asyncProperty(responseCase, async (response) => {
        backend.answer = ({ socket }) => {
          void writeInPieces(socket, response.bytes, response.cuts).then(() => {
            if (response.closeDelimited) socket.end();
          });
        };
        const recording = post(client);
        await recording.settled;
        assert.equal(recording.error, undefined);
        assert.equal(recording.events[0], "start");
        assert.equal(recording.events.at(-1), "end");
        assert.equal(recording.statusCode, response.statusCode);
        assert.equal(recording.contentType, response.contentType ?? "application/json");
        assert.deepEqual(recording.body, response.body);
      }),
      { numRuns: 150 },
    );
  });

  it("ends a malformed or cut-short response with UpstreamUnreachable, once, and never hangs", async () => {
    await fc.assert(
      fc.asyncProperty(malformedResponse, fc.array(fc.nat(400), { maxLength: 4 }), async (text, cuts) => {
        backend.answer = ({ socket }) => {
          const bytes = Buffer.from(text, "latin1");
          void writeInPieces(socket, bytes, cuts).then(() => socket.end());
        };
        const recording = post(client);
        await recording.settled;
        assert.equal(recording.events.at(-1), "error");
        assert.ok(recording.error instanceof UpstreamUnreachable, String(recording.error));
        assert.equal(recording.error.timedOut, false);
      }),
      { numRuns: 150 },
    );
  });
});

describe("HTTP/1.1 client: requests as the backend reads them", () => {
  const received: ReceivedRequest[] = [];
  const backend = new RawBackend((request) => {
    received.push(request);
    request.socket.write(OK);
  });
  let ascii: Http1Client;
  let latin1: Http1Client;
  before(async () => {
    const url = await backend.listen();
    ascii = clientFor(url);
    // A header value beyond ASCII makes the head bytes (latin1), not a string.
    latin1 = clientFor(url, {}, { "content-type": "application/json", "x-note": "caf\u00e9" });
  });
  after(async () => {
    await Promise.all([ascii.close(), latin1.close()]);
    await backend.close();
  });

  it("sends any body, text or bytes, whole after its head, whatever the head's encoding", async () => {
    const bodies = fc.oneof(
      fc.string({ unit: "grapheme", maxLength: 80 }),
      fc.uint8Array({ maxLength: 80 }).map((bytes) => Buffer.from(bytes)),
      fc.nat(100_000).map((length) => Buffer.alloc(length, 0x61)),
    );
    await fc.assert(
      fc.asyncProperty(bodies, fc.boolean(), async (body, withLatin1) => {
        received.length = 0;
        const client = withLatin1 ? latin1 : ascii;
        const recording = record((sink) => client.post("/v1/chat/completions", body, { requestId: "req-1" }, sink));
        await recording.settled;
        assert.equal(recording.error, undefined);
        assert.equal(received.length, 1);
        assert.deepEqual(received[0]!.body, typeof body === "string" ? Buffer.from(body) : body);
        assert.match(received[0]!.head, /^POST \/v1\/chat\/completions HTTP\/1\.1\r\n/);
        if (withLatin1) assert.match(received[0]!.head, /\r\nx-note: caf\u00e9\r\n/);
      }),
      { numRuns: 100 },
    );
  });
});

describe("HTTP/1.1 client: timeouts, abort and backpressure", () => {
  const backend = new RawBackend(() => {});
  let url: string;
  const clients = new SuiteClients(() => url);
  const make = (settings: Parameters<typeof clientFor>[1] = {}) => clients.make(settings);
  before(async () => {
    url = await backend.listen();
  });
  afterEach(async () => {
    for (const socket of backend.sockets) socket.destroy();
    await clients.closeAll();
    backend.connections = 0;
  });
  after(() => backend.close());

  it("times out waiting for the response head", async () => {
    backend.answer = () => {};
    const recording = post(make({ requestTimeoutMs: 150 }));
    await recording.settled;
    assert.deepEqual(recording.events, ["error"]);
    assert.ok(recording.error instanceof UpstreamUnreachable);
    assert.equal(recording.error.message, "timed out waiting for the response");
    assert.equal(recording.error.timedOut, true);
  });

  it("does not count interim 1xx heads as the response head", async () => {
    backend.answer = ({ socket }) => socket.write("HTTP/1.1 100 Continue\r\n\r\n");
    const recording = post(make({ requestTimeoutMs: 150 }));
    await recording.settled;
    assert.equal((recording.error as UpstreamUnreachable).message, "timed out waiting for the response");
  });

  it("times out between body chunks", async () => {
    backend.answer = ({ socket }) =>
      socket.write(
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n",
      );
    const recording = post(make({ requestTimeoutMs: 150 }));
    await recording.settled;
    assert.deepEqual(recording.events, ["start", "data", "error"]);
    assert.equal(recording.body.toString(), "hello");
    assert.ok(recording.error instanceof UpstreamUnreachable);
    assert.equal(recording.error.message, "timed out waiting for the response body");
    assert.equal(recording.error.timedOut, true);
  });

  it("says the connection was refused", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const recording = post(clientFor(`http://127.0.0.1:${port}`));
    await recording.settled;
    assert.ok(recording.error instanceof UpstreamUnreachable);
    assert.equal(recording.error.message, "connection refused");
  });

  it("says the connection was reset when the backend drops it mid-response", async () => {
    backend.answer = ({ socket }) => {
      socket.write("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc");
      setImmediate(() => socket.resetAndDestroy());
    };
    const recording = post(make());
    await recording.settled;
    assert.ok(recording.error instanceof UpstreamUnreachable);
    assert.equal(recording.error.message, "connection reset");
  });

  it("abort() closes that connection and the sink hears ClientGone, once", async () => {
    backend.answer = ({ socket }) =>
      socket.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n");
    const recording = post(make(), "{}", { onData: (_chunk, self) => self.call.abort() });
    await recording.settled;
    assert.deepEqual(recording.events, ["start", "data", "error"]);
    assert.ok(recording.error instanceof ClientGone);
    assert.equal(recording.call.aborted, true);
    await until(() => backend.sockets.size === 0, "the backend to see the connection close");
  });

  it("refuses ids that would break the request head, through the sink, as undici did", async () => {
    const recording = record((sink) => make().post("/x", "{}", { requestId: "a\r\nx-injected: 1" }, sink));
    assert.deepEqual(recording.events, [], "not synchronously");
    await recording.settled;
    assert.ok(recording.error instanceof UpstreamUnreachable);
    assert.equal(recording.error.message, "invalid x-request-id header");
    const traced = record((sink) => make().post("/x", "{}", { requestId: "r", traceparent: "00-\0" }, sink));
    await traced.settled;
    assert.equal((traced.error as Error).message, "invalid traceparent header");
    assert.equal(backend.connections, 0, "nothing was sent");
  });

  it("does not reuse a connection on which the backend sent bytes nobody asked for", async () => {
    backend.answer = ({ socket }) => {
      socket.write(OK);
      setImmediate(() => socket.write("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"));
    };
    const client = make();
    await post(client).settled;
    assert.equal(backend.connections, 1);
    await until(() => backend.sockets.size === 0, "the client to drop the connection");
    const second = post(client);
    await second.settled;
    assert.equal(second.body.toString(), "{}");
    assert.equal(backend.connections, 2);
  });

  it("pause() stops reading from the backend until resume()", async () => {
    const piece = Buffer.alloc(64 * 1024, "x");
    const total = 200;
    let backedUp = false;
    let pumpRest = () => {};
    backend.answer = ({ socket }) => {
      socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${piece.length * total}\r\n\r\n`);
      socket.write(piece);
      let sent = 1;
      pumpRest = () => {
        while (sent < total) {
          sent++;
          if (!socket.write(piece)) {
            backedUp = true;
            socket.once("drain", pumpRest);
            return;
          }
        }
      };
    };
    let received = 0;
    const recording = post(make(), "{}", {
      onData: (chunk, self) => {
        if (received === 0) self.call.pause();
        received += chunk.length;
      },
    });
    await until(() => received > 0, "the first bytes of the body");
    // Only now does the backend write the rest, as fast as the connection takes it.
    pumpRest();
    await until(() => backedUp, "the backend's writes to back up");
    const whilePaused = received;
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(received, whilePaused, "nothing is read while paused");
    assert.ok(received <= 2 * piece.length, `read ${received} bytes while paused`);
    recording.call.resume();
    await recording.settled;
    assert.equal(recording.events.at(-1), "end");
    assert.equal(recording.body.length, piece.length * total);
  });
});

describe("HTTP/1.1 client: keep-alive connections", () => {
  let server: Server;
  let url: string;
  let connections = 0;
  let open = 0;
  let respond: (res: import("node:http").ServerResponse) => void = (res) => res.end("{}");
  const clients = new SuiteClients(() => url);
  const make = (settings: Parameters<typeof clientFor>[1] = {}) => clients.make(settings);
  before(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on("end", () => respond(res));
    });
    server.on("connection", (socket) => {
      connections++;
      open++;
      socket.on("close", () => open--);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    await clients.closeAll();
    server.closeAllConnections();
    respond = (res) => res.end("{}");
    connections = 0;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("carries sequential requests on one connection", async () => {
    const client = make();
    for (let index = 0; index < 5; index++) {
      const recording = post(client);
      await recording.settled;
      assert.equal(recording.events.at(-1), "end");
    }
    assert.equal(connections, 1);
  });

  it("opens at most maxConnections and queues the rest in order", async () => {
    const held: import("node:http").ServerResponse[] = [];
    respond = (res) => held.push(res);
    const client = make({ maxConnections: 2 });
    const recordings = [0, 1, 2, 3].map(() => post(client));
    await until(() => held.length === 2, "two requests at the backend");
    assert.equal(connections, 2);
    respond = (res) => res.end("{}");
    for (const res of held.splice(0)) res.end("{}");
    await Promise.all(recordings.map((recording) => recording.settled));
    assert.deepEqual(
      recordings.map((recording) => recording.events.at(-1)),
      ["end", "end", "end", "end"],
    );
    assert.equal(connections, 2);
  });

  it("lets a queued request be aborted without disturbing the others", async () => {
    const held: import("node:http").ServerResponse[] = [];
    respond = (res) => held.push(res);
    const client = make({ maxConnections: 1 });
    const first = post(client);
    const queued = post(client);
    await until(() => held.length === 1, "the first request at the backend");
    queued.call.abort();
    await queued.settled;
    assert.ok(queued.error instanceof ClientGone);
    held[0]!.end("{}");
    await first.settled;
    assert.equal(first.events.at(-1), "end");
  });

  it("uses a new connection once the backend has closed the idle one", async () => {
    server.keepAliveTimeout = 50;
    try {
      const client = make();
      await settledPost(client);
      await until(() => open === 0, "the backend to close the idle connection");
      // One turn of the loop: the backend's FIN, already here, is read before the next request picks a connection.
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal((await settledPost(client)).events.at(-1), "end");
      assert.equal(connections, 2);
    } finally {
      server.keepAliveTimeout = 5000;
    }
  });

  it("does not reuse a connection after Connection: close", async () => {
    respond = (res) => {
      res.setHeader("connection", "close");
      res.end("{}");
    };
    const client = make();
    for (let index = 0; index < 3; index++) assert.equal((await settledPost(client)).events.at(-1), "end");
    assert.equal(connections, 3);
  });

  it("keeps an idle connection only for the backend's Keep-Alive hint minus a margin", async () => {
    respond = (res) => {
      res.setHeader("keep-alive", "timeout=2");
      res.end("{}");
    };
    const client = make({ keepAliveMarginMs: 2_000 });
    await settledPost(client);
    await settledPost(client);
    assert.equal(connections, 2, "timeout=2 less a 2 s margin leaves nothing");
    respond = (res) => {
      res.setHeader("keep-alive", "timeout=5");
      res.end("{}");
    };
    await settledPost(client);
    await settledPost(client);
    assert.equal(connections, 3);
  });

  it("close() closes idle connections, lets one in flight finish, and refuses new requests", async () => {
    const held: import("node:http").ServerResponse[] = [];
    respond = (res) => held.push(res);
    const client = make();
    const inFlight = post(client);
    await until(() => held.length === 1, "the request at the backend");
    let closed = false;
    const closing = client.close().then(() => {
      closed = true;
    });
    const refused = post(client);
    await refused.settled;
    assert.ok(refused.error instanceof UpstreamUnreachable);
    assert.equal(closed, false);
    held[0]!.end("{}");
    await inFlight.settled;
    assert.equal(inFlight.events.at(-1), "end");
    await closing;
  });
});

async function settledPost(client: Http1Client) {
  const recording = post(client);
  await recording.settled;
  return recording;
}
