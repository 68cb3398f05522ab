// The raw ingress (src/http/http1/) serves ordinary model requests straight on the connection and hands every other
// request, with the connection, to node:http. A client must not be able to tell: the same answers as a gateway with
// `raw_ingress = false`, request by request and pipelined on one connection (hand-offs included), whatever way the
// bytes arrive; node's timeouts; connections closed when the gateway stops.
import assert from "node:assert/strict";
import { connect, type Socket } from "node:net";
import { after, before, describe, it } from "node:test";
import { RawResponse } from "@switchboard/common";
import { type FakeLlmServer, startFakeOpenAI, waitUntil } from "@switchboard/testkit";
import fc from "fast-check";
import type { RunningGateway } from "../src/gateway.ts";
import { backendToml, Closers, startTestGateway } from "./helpers.ts";

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Reads HTTP/1.1 answers off a socket until `count` are complete or the connection ends. */
function readAnswers(socket: Socket, count: number): Promise<Answer[]> {
  return new Promise((resolve, reject) => {
    let buffer = Buffer.alloc(0);
    const answers: Answer[] = [];
    const parse = () => {
      for (;;) {
        const end = buffer.indexOf("\r\n\r\n");
        if (end < 0) return;
        const [statusLine, ...lines] = buffer.toString("latin1", 0, end).split("\r\n");
        const headers: Record<string, string> = {};
        for (const line of lines) {
          const colon = line.indexOf(":");
          headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
        }
        let rest = buffer.subarray(end + 4);
        let body: Buffer;
        if (headers["transfer-encoding"] === "chunked") {
          const parts: Buffer[] = [];
          for (;;) {
            const line = rest.indexOf("\r\n");
            if (line < 0) return;
            const size = Number.parseInt(rest.toString("latin1", 0, line), 16);
            if (rest.length < line + 2 + size + 2) return;
            parts.push(rest.subarray(line + 2, line + 2 + size));
            rest = rest.subarray(line + 2 + size + 2);
            if (size === 0) break;
          }
          body = Buffer.concat(parts);
        } else {
          const length = Number(headers["content-length"] ?? 0);
          if (rest.length < length) return;
          body = rest.subarray(0, length);
          rest = rest.subarray(length);
        }
        answers.push({ status: Number(statusLine?.split(" ")[1]), headers, body: body.toString("utf8") });
        buffer = rest;
        if (answers.length === count) {
          socket.destroy();
          resolve(answers);
          return;
        }
      }
    };
    socket.on("data", (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      parse();
    });
    socket.on("close", () => resolve(answers));
    socket.on("error", reject);
  });
}

/** Sends `requests` on one connection, pipelined (or in `pieces` separate writes), and reads their answers. */
async function exchange(url: string, requests: Buffer[], pieces = 1): Promise<Answer[]> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await new Promise((resolve) => socket.once("connect", resolve));
  const answers = readAnswers(socket, requests.length);
  const bytes = Buffer.concat(requests);
  const size = Math.ceil(bytes.length / pieces);
  for (let at = 0; at < bytes.length; at += size) {
    socket.write(bytes.subarray(at, at + size));
    if (pieces > 1) await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return answers;
}

const post = (path: string, body: string, headers: Record<string, string> = {}) => {
  const fields = Object.entries({ host: "gateway", "content-type": "application/json", ...headers })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");
  return Buffer.from(`POST ${path} HTTP/1.1\r\n${fields}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
};
const get = (path: string) => Buffer.from(`GET ${path} HTTP/1.1\r\nhost: gateway\r\n\r\n`);

/** What may differ between two gateways' answers to the same request: dates, ids, times, measured durations. */
function comparable(answer: Answer): Answer {
  const { date: _, "x-request-id": __, ...headers } = answer.headers;
  const body = answer.body
    .replace(/"id":"chatcmpl-[^"]*"/g, '"id":"_"')
    .replace(/"created":\d+/g, '"created":0')
    .replace(/"(uptime_seconds|latency_ms|avg_latency_ms|last_check|p50|p95|p99)":[^,}]*/g, '"$1":_')
    .replace(/"content-length":"\d+"/g, "");
  if (headers["content-length"] !== undefined) headers["content-length"] = "_";
  return { status: answer.status, headers, body };
}

describe("the raw ingress", () => {
  let fake: FakeLlmServer;
  let raw: RunningGateway;
  let node: RunningGateway;
  const closers = new Closers();
  before(async () => {
    fake = await startFakeOpenAI({
      models: [
        { id: "m" },
        { id: "e", capabilities: ["embedding"], embeddingDimensions: 4 },
        // An answer of about 80 KB: written corked rather than joined with its head.
        { id: "big", capabilities: ["embedding"], embeddingDimensions: 4096 },
      ],
    });
    const toml = (rawIngress: boolean) =>
      `[server]\nport = 0\nclient_timeout_seconds = 1\nraw_ingress = ${rawIngress}\n${backendToml("box", fake.url)}`;
    raw = await startTestGateway(toml(true), closers);
    node = await startTestGateway(toml(false), closers);
  });
  after(async () => {
    await closers.closeAll();
    await fake.close();
  });

  const chatBody = fc
    .record(
      {
        model: fc.constantFrom("m", "missing", 3),
        messages: fc.oneof(
          fc.array(fc.record({ role: fc.constantFrom("user", "x"), content: fc.string() }), { maxLength: 2 }),
          fc.constant("x"),
        ),
        stream: fc.boolean(),
        max_tokens: fc.integer({ min: -1, max: 50 }),
      },
      { requiredKeys: ["messages"] },
    )
    .map((value) => JSON.stringify(value));
  const request = fc.oneof(
    { weight: 4, arbitrary: chatBody.map((body) => post("/v1/chat/completions", body)) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        post("/v1/embeddings", '{"model":"e","input":["a","b"]}'),
        post("/v1/embeddings", '{"model":"big","input":"a"}'),
      ),
    },
    {
      weight: 1,
      arbitrary: fc.oneof(fc.json(), fc.string({ minLength: 1 })).map((body) => post("/v1/chat/completions", body)),
    },
    // Requests node:http takes: the connection is handed over, with what follows.
    { weight: 1, arbitrary: fc.constantFrom(get("/v1/models"), get("/health"), get("/nowhere")) },
    {
      weight: 1,
      arbitrary: chatBody.map((body) =>
        post("/v1/chat/completions", body, { "content-type": "application/json; charset=UTF-8" }),
      ),
    },
  );

  it("answers as node:http does, request by request and pipelined, however the bytes arrive", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(request, { minLength: 1, maxLength: 5 }),
        fc.constantFrom(1, 1, 3, 40),
        async (requests, pieces) => {
          const [fromRaw, fromNode] = await Promise.all([
            exchange(raw.url, requests, pieces),
            exchange(node.url, requests, pieces),
          ]);
          assert.equal(fromRaw.length, requests.length, "every request answered");
          assert.deepEqual(fromRaw.map(comparable), fromNode.map(comparable));
        },
      ),
      { numRuns: 60 },
    );
  });

  it("answers 408 when a head or a body does not arrive within the client timeout, as node does", async () => {
    const head = post("/v1/chat/completions", '{"model":"m","messages":[]}');
    for (const partial of [head.subarray(0, 30), head.subarray(0, head.length - 3)]) {
      const answers = await Promise.all([raw.url, node.url].map((url) => exchange(url, [partial])));
      for (const [answer] of answers) {
        assert.equal(answer?.status, 408, JSON.stringify(answer));
        assert.equal(answer?.headers.connection, "close");
      }
    }
  });

  it("closes idle connections when the gateway stops", async () => {
    const alone = new Closers();
    const gateway = await startTestGateway(`${backendToml("box", fake.url)}`, alone);
    const { port } = new URL(gateway.url);
    const socket = connect(Number(port), "127.0.0.1");
    const answers = readAnswers(socket, 2);
    socket.write(post("/v1/chat/completions", '{"model":"m","messages":[{"role":"user","content":"hi"}]}'));
    const closed = new Promise((resolve) => socket.once("close", resolve));
    await waitUntil(() => socket.bytesRead > 0, { timeoutMs: 10_000 });
    const started = Date.now();
    await alone.closeAll();
    await closed;
    assert.equal((await answers)[0]?.status, 200);
    assert.ok(Date.now() - started < 5_000, "not left to the keep-alive timeout");
  });
});

describe("a raw response's headers", () => {
  const socket = { destroyed: false, writableEnded: false } as unknown as Socket;
  it("refuses what would end the head early, as node:http does", () => {
    const response = new RawResponse(socket, true, 65, { finished() {} });
    assert.throws(() => response.setHeader("x-a", "b\r\nx-injected: 1"), { code: "ERR_INVALID_CHAR" });
    assert.throws(() => response.setHeader("x a", "b"), { code: "ERR_INVALID_HTTP_TOKEN" });
    assert.throws(() => response.writeHead(200, { "x-a": ["ok", "b\nc"] }), { code: "ERR_INVALID_CHAR" });
    assert.equal(response.headersSent, false);
  });
});
