// The raw ingress (accounts/api/raw-ingress.ts) reads the ordinary POST /api/message straight off the connection and
// hands every other request, with the connection, to node:http and fastify. A client must not be able to tell: the
// same answers as an account with `RawIngress = false`, for generated sequences of requests (ordinary, refused,
// malformed, hostile) pipelined on one connection, however the bytes are split; the same 408s; idle connections closed
// when the bridge stops.
import assert from "node:assert/strict";
import { connect } from "node:net";
import { describe, it } from "node:test";
import fc from "fast-check";
import { type RunningBridge, startBridge, suiteTeardown } from "./helpers.ts";
import { type Answer, exchange, rawPost as post, readAnswers } from "./pipelined.ts";

const TOKEN = "raw-Token_1";

/** Two bridges alike but for RawIngress: accounts open, small (BodyLimit 1024), locked (a token), slow (timeouts). */
const config = (raw: boolean) => `
[api.open]
BindAddress = "127.0.0.1:0"
Buffer = 1000
RawIngress = ${raw}

[api.small]
BindAddress = "127.0.0.1:0"
BodyLimit = 1024
RawIngress = ${raw}

[api.locked]
BindAddress = "127.0.0.1:0"
Token = "${TOKEN}"
RawIngress = ${raw}

[api.slow]
BindAddress = "127.0.0.1:0"
ReadHeaderTimeout = 1
ReadTimeout = 2
RawIngress = ${raw}

[[gateway]]
name = "gw"
enable = true
  [[gateway.inout]]
  account = "api.open"
  [[gateway.inout]]
  account = "api.small"
  [[gateway.inout]]
  account = "api.locked"
  [[gateway.inout]]
  account = "api.slow"
`;

/** What may differ between two bridges' answers: the Date (its presence must not) and when a message was posted. */
function comparable(answer: Answer): Answer {
  return {
    status: answer.status,
    headers: answer.headers.map((line) => (/^date:/i.test(line) ? "Date: _" : line)),
    body: answer.body.replace(/"timestamp":"[^"]*"/g, '"timestamp":"T"'),
  };
}

/** An answer to a malformed request, given on the socket (no Date: no request object was made), which it closes. */
const refusedByParser = (answer: Answer) =>
  answer.headers.includes("Connection: close") && !answer.headers.some((line) => /^date:/i.test(line));

/** The answers up to the first that closes the connection (whatever follows it was not meant to be read). */
function untilClosed(answers: Answer[]): Answer[] {
  const closing = answers.findIndex((answer) => answer.headers.includes("Connection: close"));
  return closing < 0 ? answers : answers.slice(0, closing + 1);
}

/**
 * The same answers, but for what node:http itself leaves to timing: it answers a malformed request the moment its
 * parser meets it and closes the connection, so which answers to earlier pipelined requests get out before that
 * refusal (or whether an answer that closes the connection gets out first, leaving the malformed bytes unread)
 * depends on how the bytes reached its parser and how soon those answers were ready (a post waits for its commit).
 * So when either side ends with such a refusal, the answers before it must agree as far as both go, and the
 * refusals where both have one.
 */
function assertSameAnswers(fromRaw: Answer[], fromNode: Answer[]): void {
  const [raw, node] = [untilClosed(fromRaw), untilClosed(fromNode)];
  const rawRefusal = raw.at(-1) !== undefined && refusedByParser(raw.at(-1) as Answer);
  const nodeRefusal = node.at(-1) !== undefined && refusedByParser(node.at(-1) as Answer);
  if (!rawRefusal && !nodeRefusal) {
    assert.deepEqual(raw, node);
    return;
  }
  if (rawRefusal && nodeRefusal) assert.deepEqual(raw.at(-1), node.at(-1));
  const [rawAnswered, nodeAnswered] = [rawRefusal ? raw.slice(0, -1) : raw, nodeRefusal ? node.slice(0, -1) : node];
  const common = Math.min(rawAnswered.length, nodeAnswered.length);
  assert.deepEqual(rawAnswered.slice(0, common), nodeAnswered.slice(0, common));
}

/** Posts and other requests, ordinary and not, as a sequence on one connection may hold them. */
const message = fc.record(
  {
    text: fc.oneof(fc.string(), fc.constantFrom("hi", "x".repeat(2000)), fc.integer()),
    username: fc.oneof(fc.string({ maxLength: 8 }), fc.constant(null)),
    gateway: fc.oneof({ weight: 4, arbitrary: fc.constant("gw") }, { weight: 1, arbitrary: fc.string() }),
    event: fc.constantFrom("", "user_action", "bogus"),
  },
  { requiredKeys: [] },
);
const json = message.map((value) => JSON.stringify(value));
const form = message.map((value) =>
  Object.entries(value)
    .map(([name, field]) => `${name}=${encodeURIComponent(String(field))}`)
    .join("&"),
);
const contentType = fc.constantFrom(
  "Content-Type: application/json",
  "Content-Type: application/json; charset=utf-8",
  "Content-Type: application/json;charset=utf-8",
  "Content-Type: APPLICATION/JSON",
  "Content-Type: text/plain",
);
const authorization = fc.constantFrom(
  [],
  [`Authorization: Bearer ${TOKEN}`],
  ["Authorization: Bearer wrong"],
  [`authorization:   Bearer ${TOKEN}  `],
  ["Authorization: Basic eDp5"],
);
/**
 * Headers that make a request one node:http must read (or refuse), beside the ordinary ones. (Not Upgrade: node
 * hands such a POST to the websocket upgrade, which leaves it unanswered until the client closes, with or without
 * the raw ingress; the grammar tests hold that it is handed on.)
 */
const unusual = fc.constantFrom(
  [],
  [],
  [],
  ["Connection: keep-alive"],
  ["X-Extra: \tpadded\t"],
  ["Expect: 100-continue"],
  ["Host: second"],
  ["Content-Length: 5"],
  ["X-Bad: a\rb"],
  ["X-Obs: caf\xe9"],
  [" X-Lead: space"],
  ["X-Fold: a", " folded"],
);
const ordinaryPost = fc
  .tuple(fc.oneof(json, json, form), contentType, authorization, unusual)
  .map(([body, type, auth, extra]) => {
    const formType = "Content-Type: application/x-www-form-urlencoded";
    const types = body.startsWith("{") ? [type] : [formType];
    return post(body, [...types, ...auth, ...extra]);
  });
const request = fc.oneof(
  { weight: 6, arbitrary: ordinaryPost },
  { weight: 1, arbitrary: fc.string({ minLength: 1 }).map((body) => post(body)) },
  { weight: 1, arbitrary: json.map((body) => post(body, ["Content-Type: application/json"], "/api/message?q=1")) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      Buffer.from("GET /api/health HTTP/1.1\r\nHost: bridge\r\n\r\n"),
      Buffer.from("GET /api/messages HTTP/1.1\r\nHost: bridge\r\n\r\n"),
      Buffer.from(`GET /api/health HTTP/1.1\r\nHost: bridge\r\nAuthorization: Bearer ${TOKEN}\r\n\r\n`),
      Buffer.from("DELETE /api/message HTTP/1.1\r\nHost: bridge\r\n\r\n"),
      Buffer.from("POST /api/message HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"),
      Buffer.from(
        "POST /api/message HTTP/1.0\r\nHost: b\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}",
      ),
      Buffer.from(
        "POST /api/message HTTP/1.1\r\nHost: b\r\nContent-Type: application/json\r\nContent-Length: 0\r\n\r\n",
      ),
      Buffer.from(
        "POST /api/message HTTP/1.1\r\nHost: b\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n" +
          '11\r\n{"text":"chunked"\r\n0\r\n\r\n',
      ),
      Buffer.from("post /api/message HTTP/1.1\r\nHost: b\r\nContent-Length: 2\r\n\r\n{}"),
      Buffer.from("POST /api/message HTTP/1.1\r\nHost: b\r\nContent-Type: application/json\r\nContent-Length: 2\r\n"),
      Buffer.from("\x16\x03\x01 not http at all\r\n\r\n"),
      post('{"text":"close","gateway":"gw"}', ["Content-Type: application/json", "Connection: close"]),
      post(JSON.stringify({ text: "y".repeat(1500), gateway: "gw" })),
    ),
  },
);

describe("the api account's raw ingress", () => {
  const teardown = suiteTeardown();
  let raw: RunningBridge;
  let node: RunningBridge;
  const start = async () => {
    raw = await startBridge(config(true), teardown);
    node = await startBridge(config(false), teardown);
  };

  it("answers as node:http and fastify do, request by request and pipelined, however the bytes arrive", async () => {
    await start();
    await fc.assert(
      fc.asyncProperty(
        fc.array(request, { minLength: 1, maxLength: 6 }),
        fc.constantFrom("api.open", "api.open", "api.small", "api.locked"),
        fc.constantFrom(1, 1, 3, 40),
        async (requests, account, pieces) => {
          // One after the other: the /api/messages ring of each bridge then holds the same messages.
          const fromRaw = await exchange(raw.url(account), requests, pieces);
          const fromNode = await exchange(node.url(account), requests, pieces);
          assertSameAnswers(fromRaw.map(comparable), fromNode.map(comparable));
        },
      ),
      { numRuns: 80 },
    );
  });

  it("answers 408 when a head or a body does not arrive within the timeouts, as node does", async () => {
    const whole = post('{"text":"late","gateway":"gw"}');
    for (const partial of [whole.subarray(0, 30), whole.subarray(0, whole.length - 3)]) {
      const answers = await Promise.all([raw, node].map((bridge) => exchange(bridge.url("api.slow"), [partial], 1)));
      const [fromRaw, fromNode] = answers.map((list) => list.map(comparable));
      assert.equal(fromRaw?.[0]?.status, "HTTP/1.1 408 Request Timeout", JSON.stringify(fromRaw));
      assert.deepEqual(fromRaw, fromNode);
    }
  });

  it("closes idle connections when the bridge stops, and answers the posts it took first", async () => {
    const alone = suiteTeardown();
    const bridge = await startBridge(config(true), alone);
    const socket = connect(Number(new URL(bridge.url("api.open")).port), "127.0.0.1");
    const answers = readAnswers(socket, 2);
    socket.write(post('{"text":"before the stop","gateway":"gw"}'));
    const closed = new Promise((resolve) => socket.once("close", resolve));
    while (socket.bytesRead === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const started = Date.now();
    await bridge.stop();
    await closed;
    assert.equal((await answers)[0]?.status, "HTTP/1.1 200 OK");
    assert.ok(Date.now() - started < 5_000, "not left to the idle timeout");
  });
});
