import assert from "node:assert/strict";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { waitUntil } from "@switchboard/testkit";
import { backendToml, Closers, hello, postJson, sseData, startTestGateway } from "./helpers.ts";

const chunk = (text: string) =>
  `data: ${JSON.stringify({ object: "chat.completion.chunk", choices: [{ index: 0, delta: { content: text } }] })}\n\n`;

/**
 * request_timeout_seconds also bounds the wait between two streamed chunks (undici's body timeout, on its shared timer
 * wheel, not a timer per stream): a backend that stops mid-stream ends every stream that waits on it, each with the
 * error event and [DONE], and its connection is closed.
 */
describe("a stream whose backend goes quiet mid-stream", () => {
  const closers = new Closers();
  const open = new Set<ServerResponse>();
  let closedByGateway = 0;
  const upstream = createServer((req, res) => {
    if (req.url === "/v1/models") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ object: "list", data: [{ id: "quiet", object: "model" }] }));
      return;
    }
    req.resume();
    // Two chunks, then nothing: the response stays open until the gateway gives up on it.
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(chunk("one "));
    res.write(chunk("two "));
    open.add(res);
    res.on("close", () => {
      open.delete(res);
      closedByGateway++;
    });
  });
  let url = "";

  before(async () => {
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
    const upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    const gateway = await startTestGateway(
      // Long enough for 40 streams to get their headers on a busy machine; the wait it bounds is the quiet one.
      `[server]\nport = 0\nrequest_timeout_seconds = 1.5\n[health_check]\ninterval_seconds = 3600\n` +
        backendToml("quiet", upstreamUrl, "generic"),
      closers,
    );
    url = gateway.url;
  });
  after(async () => {
    await closers.closeAll();
    for (const res of open) res.destroy();
    upstream.close();
  });

  it("ends each of many waiting streams after the chunks it got, with the error event and [DONE]", async () => {
    const streams = 40;
    const answers = await Promise.all(
      Array.from({ length: streams }, () => postJson(`${url}/v1/chat/completions`, hello("quiet", { stream: true }))),
    );
    for (const answer of answers) {
      assert.equal(answer.status, 200);
      const events = sseData(answer.text);
      assert.deepEqual(
        events.slice(0, 2).map((event) => JSON.parse(event).choices[0].delta.content),
        ["one ", "two "],
      );
      const error = JSON.parse(events[2] ?? "{}").error;
      assert.equal(error?.code, "stream_interrupted");
      assert.match(error.message, /broke off/);
      assert.equal(events[3], "[DONE]");
      assert.equal(events.length, 4);
    }
    await waitUntil(() => closedByGateway === streams, { timeoutMs: 10_000 });
  });
});
