// POST /api/message is served in front of fastify for the ordinary request (accounts/api/fast-post.ts), and a
// connection's answers of one moment leave in one write (coalesced-writes.ts). Neither may change an answer: the same
// post sent with a query string (which only fastify serves) gets the same status, headers in the same order and body.
import assert from "node:assert/strict";
import { connect } from "node:net";
import { describe, it } from "node:test";
import fc from "fast-check";
import { TOKEN, useFourAccounts } from "./four-accounts.ts";

interface RawAnswer {
  status: string;
  /** Header lines as sent, Date left out (it is the time of the answer). */
  headers: string[];
  body: string;
}

/** Reads `count` answers from raw bytes; undefined until they are all there. */
function parseAnswers(data: Buffer, count: number): RawAnswer[] | undefined {
  const answers: RawAnswer[] = [];
  let at = 0;
  while (answers.length < count) {
    const headEnd = data.indexOf("\r\n\r\n", at);
    if (headEnd < 0) return undefined;
    const [status = "", ...lines] = data.toString("latin1", at, headEnd).split("\r\n");
    const length = Number(lines.find((line) => /^content-length:/i.test(line))?.split(":")[1] ?? 0);
    if (data.length < headEnd + 4 + length) return undefined;
    answers.push({
      status,
      headers: lines.filter((line) => !/^date:/i.test(line)),
      body: data.toString("utf8", headEnd + 4, headEnd + 4 + length),
    });
    at = headEnd + 4 + length;
  }
  return answers;
}

/** Writes `requests` at once on one connection; resolves with `count` answers and whether the server then closed. */
function exchange(port: number, requests: string, count: number): Promise<{ answers: RawAnswer[]; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(requests));
    let data = Buffer.alloc(0);
    let answers: RawAnswer[] | undefined;
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`${count} answers expected, got: ${data.toString("latin1")}`));
    }, 10_000);
    socket.on("data", (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      answers = parseAnswers(data, count);
      if (answers !== undefined && !requests.includes("Connection: close")) {
        clearTimeout(timer);
        socket.destroy();
        resolve({ answers, closed: false });
      }
    });
    socket.on("end", () => {
      clearTimeout(timer);
      if (answers === undefined) reject(new Error(`closed after: ${data.toString("latin1")}`));
      else resolve({ answers, closed: true });
    });
    socket.on("error", reject);
  });
}

const portOf = (url: string) => Number(new URL(url).port);

function postRequest(body: string, options: { type?: string; path?: string; extra?: string } = {}): string {
  const type = options.type === undefined ? "Content-Type: application/json\r\n" : options.type;
  return (
    `POST ${options.path ?? "/api/message"} HTTP/1.1\r\nHost: bridge\r\n${type}${options.extra ?? ""}` +
    `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  );
}

/** A message's fields as a form body (values other than strings as their JSON). */
function formOf(message: Record<string, unknown>): string {
  const value = (v: unknown) => encodeURIComponent(typeof v === "string" ? v : (JSON.stringify(v) ?? ""));
  const fields = Object.entries(message).map(([name, v]) => `${encodeURIComponent(name)}=${value(v)}`);
  return fields.join("&") || "x";
}

/** The timestamp of an accepted message is the time it was posted: the one part two answers may differ in. */
const sameness = (answer: RawAnswer) => ({
  ...answer,
  body: answer.body.replace(/"timestamp":"[^"]*"/, '"timestamp":"T"'),
});

describe("api POST /api/message in front of fastify", () => {
  const bridge = useFourAccounts();
  const { url } = bridge;

  it("answers every body exactly as fastify does (status, headers and their order, body)", async () => {
    const field = fc.oneof(fc.string(), fc.constantFrom("gw", "nope", "", " "), fc.integer(), fc.constant(null));
    const message = fc.record(
      {
        text: field,
        username: field,
        gateway: fc.oneof({ weight: 3, arbitrary: fc.constant("gw") }, { weight: 1, arbitrary: field }),
        event: fc.constantFrom("", "user_action", "api_connected", "bogus"),
        Extra: fc.oneof(fc.constant(null), fc.jsonValue({ maxDepth: 2 })),
      },
      { requiredKeys: [] },
    );
    const body = fc.oneof(
      { weight: 4, arbitrary: message.map((m) => JSON.stringify(m)) },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v) ?? "null") },
      { weight: 1, arbitrary: fc.string({ minLength: 1 }) },
      { weight: 1, arbitrary: message.map(formOf) },
    );
    const contentType = fc.constantFrom(
      "application/json",
      "application/json; charset=utf-8",
      "application/x-www-form-urlencoded",
    );
    const auth = fc.constantFrom("", `Authorization: Bearer ${TOKEN}\r\n`, "Authorization: Bearer wrong\r\n");
    const account = fc.constantFrom("a", "locked", "small");
    await fc.assert(
      fc.asyncProperty(body, contentType, auth, account, async (text, type, authorization, name) => {
        const port = portOf(url(name));
        const options = { type: `Content-Type: ${type}\r\n`, extra: authorization };
        const fast = await exchange(port, postRequest(text, options), 1);
        const viaFastify = await exchange(port, postRequest(text, { ...options, path: "/api/message?via=fastify" }), 1);
        assert.deepEqual(fast.answers.map(sameness), viaFastify.answers.map(sameness));
      }),
      { numRuns: 100 },
    );
    await bridge.drain();
  });

  it("answers pipelined requests in order, whatever serves them, and sends them all before closing", async () => {
    const good = JSON.stringify({ text: "hi", username: "u", gateway: "gw" });
    const requests =
      postRequest(good) +
      postRequest("{nope") +
      "GET /api/health HTTP/1.1\r\nHost: bridge\r\n\r\n" +
      postRequest(good, { path: "/api/message?x=1" }) +
      postRequest(good, { type: "Content-Type: text/plain\r\n" }) +
      postRequest(good) +
      postRequest(good, { extra: "Connection: close\r\n" });
    const { answers, closed } = await exchange(portOf(url("a")), requests, 7);
    assert.deepEqual(
      answers.map((answer) => answer.status),
      [
        "HTTP/1.1 200 OK",
        "HTTP/1.1 400 Bad Request",
        "HTTP/1.1 200 OK",
        "HTTP/1.1 200 OK",
        "HTTP/1.1 415 Unsupported Media Type",
        "HTTP/1.1 200 OK",
        "HTTP/1.1 200 OK",
      ],
    );
    assert.equal(answers[2]?.body, "OK");
    assert.ok(answers[6]?.headers.includes("Connection: close"));
    assert.ok(closed, "the connection is closed after the last answer");
    await bridge.drain();
  });

  it("takes a large body (which waits for a turn of its own) and many pipelined posts", async () => {
    const large = JSON.stringify({ text: "x".repeat(300 * 1024), username: "u", gateway: "gw" });
    const small = (n: number) => JSON.stringify({ text: `m${n}`, username: "u", gateway: "gw" });
    const requests = [postRequest(large), ...Array.from({ length: 200 }, (_, n) => postRequest(small(n)))].join("");
    const { answers } = await exchange(portOf(url("a")), requests, 201);
    assert.ok(answers.every((answer) => answer.status === "HTTP/1.1 200 OK"));
    assert.deepEqual(
      answers.slice(1).map((answer) => (JSON.parse(answer.body) as { text: string }).text),
      Array.from({ length: 200 }, (_, n) => `m${n}`),
    );
    await bridge.drain();
  });
});
