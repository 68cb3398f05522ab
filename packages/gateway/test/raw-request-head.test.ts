// The raw ingress takes a request only when its head is plainly an ordinary model request (src/http/http1/
// request-head.ts). Whatever it takes, node:http must read the same way: the same path, headers and body, and the
// next request starting at the same byte. Generated heads, ordinary and hostile, are read by both and compared.
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import { readRequestHead } from "../src/http/http1/request-head.ts";

const PATHS = new Set(["/v1/chat/completions", "/v1/embeddings"]);
const LIMIT = 4096;

/** What node:http read from one connection: each request's path, headers and body. */
interface NodeRead {
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

describe("the heads the raw ingress takes", () => {
  let server: Server;
  let port: number;
  before(async () => {
    server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        const read: NodeRead = {
          url: request.url ?? "",
          headers: request.headers,
          body: Buffer.concat(chunks).toString("latin1"),
        };
        const text = JSON.stringify(read);
        response.writeHead(200, { "content-length": Buffer.byteLength(text) }).end(text);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  /** Sends `bytes` then a marker request; returns what node read of the first request, and of the marker. */
  const nodeReads = (bytes: Buffer): Promise<string> =>
    new Promise((resolve, reject) => {
      const socket = connect(port, "127.0.0.1");
      const chunks: Buffer[] = [];
      socket.on("data", (chunk: Buffer) => chunks.push(chunk));
      socket.on("close", () => resolve(Buffer.concat(chunks).toString("utf8")));
      socket.on("error", reject);
      socket.end(Buffer.concat([bytes, Buffer.from("GET /marker HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n")]));
    });

  const token = fc.stringMatching(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,12}$/);
  const value = fc.stringMatching(/^[ \t]{0,2}[\x21-\x7e\x80-\xff]{0,20}(?: [\x21-\x7e]{1,5})?[ \t]{0,2}$/);
  /** The first value most of the time, so that enough heads are ordinary ones. */
  const usually = <T>(first: T, ...others: T[]) =>
    fc.oneof({ weight: 4, arbitrary: fc.constant(first) }, { weight: 1, arbitrary: fc.constantFrom(...others) });
  const contentType = usually(
    "application/json",
    "application/json; charset=utf-8",
    "application/json;charset=utf-8",
    "application/json; charset=UTF-8",
    "text/plain",
  );
  const field = fc.oneof(
    { weight: 12, arbitrary: fc.tuple(token, value) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom("Transfer-Encoding", "Expect", "Upgrade", "TE"), value) },
    {
      weight: 1,
      arbitrary: fc.tuple(
        fc.constantFrom("Connection", "connection"),
        fc.constantFrom("keep-alive", "close", "Keep-Alive", "upgrade"),
      ),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(
        fc.constantFrom("Content-Length", "content-length"),
        fc.constantFrom("5", "05", "5 ", "+5", "1e1", "99999"),
      ),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(fc.constantFrom("Host", "Content-Type"), fc.constantFrom("x", "application/json")),
    },
  );
  /** A request head and body, then mutations of its bytes: what a client, or an attacker, may send. */
  const request = fc
    .record({
      method: usually("POST", "GET", "post", "POST "),
      path: usually(
        "/v1/chat/completions",
        "/v1/embeddings",
        "/v1/chat/completions?x",
        "/v1/models",
        "//v1/embeddings",
      ),
      version: usually("HTTP/1.1", "HTTP/1.0", "HTTP/1.1 "),
      host: usually(true, false),
      contentType,
      fields: fc.array(field, { maxLength: 4 }),
      body: fc.string({ maxLength: 40 }),
      mutation: fc.option(
        fc.record({
          at: fc.nat(),
          insert: fc.constantFrom("\r", "\n", "\0", " ", "\t", "\r\n", "\r\n ", ":", "\x7f", "\r\n\r\n", "\u00e9"),
        }),
        { freq: 2 },
      ),
    })
    .map(({ method, path, version, host, contentType, fields, body, mutation }) => {
      const lines = [`${method} ${path} ${version}`];
      if (host) lines.push("Host: 127.0.0.1");
      lines.push(`Content-Type: ${contentType}`, `Content-Length: ${Buffer.byteLength(body, "latin1")}`);
      for (const [name, text] of fields) lines.push(`${name}:${text}`);
      let text = `${lines.join("\r\n")}\r\n\r\n${body}`;
      if (mutation) {
        const at = mutation.at % (text.length + 1);
        text = text.slice(0, at) + mutation.insert + text.slice(at);
      }
      return Buffer.from(text, "latin1");
    });

  it("takes only what node:http reads the same way (path, headers, body, where the next request starts)", async () => {
    let taken = 0;
    await fc.assert(
      fc.asyncProperty(request, async (bytes) => {
        const reading = readRequestHead(bytes, PATHS, LIMIT);
        if (reading.kind !== "taken") return;
        taken += 1;
        // A head may frame more body than was generated (a mutated or repeated Content-Length): the body is padded to
        // it, as a client would send it. Then only the request itself: the marker must be read as the next one.
        const end = reading.bodyStart + reading.contentLength;
        if (bytes.length < end) bytes = Buffer.concat([bytes, Buffer.alloc(end - bytes.length, "x")]);
        const answer = await nodeReads(bytes.subarray(0, end));
        const bodies = [...answer.matchAll(/\r\n\r\n(\{.*?\})(?=HTTP\/1\.1|$)/gs)].map((m) =>
          JSON.parse(m[1] as string),
        );
        assert.equal(bodies.length, 2, `node read two requests: ${answer}`);
        const [first, marker] = bodies as [NodeRead, NodeRead];
        assert.equal(marker.url, "/marker", "the next request starts where the raw ingress says");
        assert.equal(first.url, reading.path);
        assert.deepEqual(first.headers, reading.headers);
        const body = bytes.subarray(reading.bodyStart, reading.bodyStart + reading.contentLength);
        assert.equal(first.body, body.toString("latin1"));
      }),
      { numRuns: 600 },
    );
    assert.ok(taken > 50, `enough heads taken to mean something (${taken})`);
  });

  it("never takes a head that has not fully arrived", () => {
    fc.assert(
      fc.property(request, fc.nat(), (bytes, cut) => {
        const end = bytes.indexOf("\r\n\r\n");
        if (end < 0) return;
        const prefix = bytes.subarray(0, cut % (end + 4));
        assert.notEqual(readRequestHead(prefix, PATHS, LIMIT).kind, "taken");
      }),
    );
  });

  it("leaves bodies over the limit, and heads over 16 KiB, to node:http", () => {
    const head = (extra: string, length: number) =>
      Buffer.from(
        `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n${extra}\r\n`,
      );
    assert.equal(readRequestHead(head("", 10), PATHS, 10).kind, "taken");
    assert.equal(readRequestHead(head("", 11), PATHS, 10).kind, "other");
    assert.equal(readRequestHead(head(`X-Big: ${"a".repeat(17_000)}\r\n`, 10), PATHS, 10).kind, "other");
    assert.equal(
      readRequestHead(Buffer.from(`POST /v1/chat/completions HTTP/1.1\r\nX: ${"a".repeat(17_000)}`), PATHS, 10).kind,
      "other",
    );
    assert.equal(readRequestHead(Buffer.from("GET /v1/mod"), PATHS, 10).kind, "other");
    assert.equal(readRequestHead(Buffer.from("POS"), PATHS, 10).kind, "incomplete");
  });
});
