// Posts pipelined on one connection are relayed in the order they were sent, whichever path serves each: the raw
// ingress, node:http's fast path, fastify (an unusual Content-Type spelling, a chunked body) or a large body's turn
// of its own. Matterbridge serves a connection's requests one after the other; a client that pipelines its posts
// relies on the same order.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { type RunningBridge, readMessages, startBridge, suiteTeardown } from "./helpers.ts";
import { exchange, rawPost } from "./pipelined.ts";

const config = (raw: boolean) => `
[api.in]
BindAddress = "127.0.0.1:0"
BodyLimit = 400000
RawIngress = ${raw}

[api.out]
BindAddress = "127.0.0.1:0"
Buffer = 1000

[[gateway]]
name = "gw"
enable = true
  [[gateway.inout]]
  account = "api.in"
  [[gateway.inout]]
  account = "api.out"
`;

const json = (text: string) => JSON.stringify({ text, gateway: "gw", username: "u" });

/** Ways of posting the message `text`, each served by a different path (named for the failure message). */
const VARIANTS: Record<string, (text: string) => Buffer> = {
  json: (text) => rawPost(json(text)),
  form: (text) => rawPost(`text=${text}&gateway=gw&username=u`, ["Content-Type: application/x-www-form-urlencoded"]),
  "fastify (Content-Type spelling)": (text) => rawPost(json(text), ["Content-Type: APPLICATION/JSON"]),
  "node:http (a header the raw grammar hands on)": (text) =>
    rawPost(json(text), ["Content-Type: application/json", "X-Extra: \tpadded\t"]),
  "fastify (chunked)": (text) => {
    const body = json(text);
    return Buffer.from(
      "POST /api/message HTTP/1.1\r\nHost: bridge\r\nContent-Type: application/json\r\n" +
        `Transfer-Encoding: chunked\r\n\r\n${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`,
    );
  },
  "large body (a turn of its own)": (text) =>
    rawPost(JSON.stringify({ text, gateway: "gw", pad: "p".repeat(140_000) })),
};

describe("posts pipelined on one connection", () => {
  const teardown = suiteTeardown();
  const bridges = new Map<boolean, RunningBridge>();
  const bridge = async (raw: boolean) => {
    let running = bridges.get(raw);
    if (running === undefined) {
      running = await startBridge(config(raw), teardown);
      bridges.set(raw, running);
    }
    return running;
  };
  let sequence = 0;

  it("are relayed in the order they were sent, with RawIngress on and off, however the bytes arrive", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(...Object.keys(VARIANTS)), { minLength: 2, maxLength: 6 }),
        fc.boolean(),
        fc.constantFrom(1, 1, 3, 40),
        async (variants, raw, pieces) => {
          const running = await bridge(raw);
          const texts = variants.map(() => `m${++sequence}`);
          const requests = variants.map((variant, at) =>
            (VARIANTS[variant] as (text: string) => Buffer)(texts[at] as string),
          );
          const answers = await exchange(running.url("api.in"), requests, pieces);
          assert.deepEqual(
            answers.map((answer) => answer.status),
            variants.map(() => "HTTP/1.1 200 OK"),
          );
          const relayed = (await readMessages(running.url("api.out"))).map((message) => message.text);
          assert.deepEqual(relayed, texts, `sent as ${variants.join(", ")}`);
        },
      ),
      { numRuns: 60 },
    );
  });
});
