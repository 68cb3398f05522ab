import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import { runLoad } from "./load.ts";
import { createMinimalProxy } from "./min-proxy.ts";
import { ResponseParser } from "./response-parser.ts";
import { BENCH_MODEL, createUpstream } from "./upstream.ts";

function listen(server: ReturnType<typeof createUpstream>): Promise<string> {
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
  });
}

/**
 * One request before a short load, so that first-use costs (connection set-up, compilation) on a busy test machine
 * do not eat the whole measuring window.
 */
async function prime(url: string, body?: string): Promise<void> {
  const response = await fetch(url, body === undefined ? {} : { method: "POST", body });
  await response.arrayBuffer();
}

describe("response parser", () => {
  it("parses Content-Length and chunked responses however the bytes are split", () => {
    const pieces = ["data: hi\n\n", "data: [DONE]\n\n\r\n"];
    const chunked = Buffer.from(
      "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n" +
        pieces.map((piece) => `${Buffer.byteLength(piece).toString(16)};ext=1\r\n${piece}\r\n`).join("") +
        "0\r\nX-Trailer: yes\r\n\r\n",
    );
    const fixed = Buffer.from("HTTP/1.1 404 Not Found\r\nContent-Length: 5\r\nConnection: close\r\n\r\nnope!");
    fc.assert(
      fc.property(fc.array(fc.nat({ max: chunked.length }), { maxLength: 6 }), (cuts) => {
        for (const [message, expected] of [
          [chunked, { status: 200, body: "data: hi\n\ndata: [DONE]\n\n\r\n", close: false }],
          [fixed, { status: 404, body: "nope!", close: true }],
        ] as const) {
          const points = [...new Set(cuts.map((cut) => Math.min(cut, message.length)))].sort((a, b) => a - b);
          const parser = new ResponseParser();
          let last = 0;
          let parsed: ReturnType<ResponseParser["push"]>;
          for (const point of [...points, message.length]) {
            if (point === last) continue;
            assert.equal(parsed, undefined, "complete before the last byte");
            parsed = parser.push(message.subarray(last, point));
            last = point;
          }
          assert.ok(parsed);
          assert.deepEqual({ ...parsed, body: parsed.body.toString() }, expected);
        }
      }),
      { numRuns: 200 },
    );
  });

  it("rejects bytes after a response and garbage", () => {
    assert.throws(() => new ResponseParser().push(Buffer.from("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nab")));
    assert.throws(() => new ResponseParser().push(Buffer.from("SSH-2.0-OpenSSH\r\n\r\n")));
  });
});

describe("bench pieces end to end", () => {
  const upstream = createUpstream();
  let upstreamUrl = "";
  const proxy = { server: undefined as ReturnType<typeof createMinimalProxy>["server"] | undefined, url: "" };
  let pool: ReturnType<typeof createMinimalProxy>["pool"] | undefined;
  before(async () => {
    upstreamUrl = await listen(upstream);
    const created = createMinimalProxy(upstreamUrl);
    proxy.server = created.server;
    pool = created.pool;
    proxy.url = await listen(created.server);
  });
  after(async () => {
    upstream.closeAllConnections();
    upstream.close();
    proxy.server?.closeAllConnections();
    proxy.server?.close();
    await pool?.destroy();
  });

  const body = (stream: boolean) =>
    JSON.stringify({ model: BENCH_MODEL, messages: [{ role: "user", content: "x" }], ...(stream ? { stream } : {}) });

  for (const stream of [false, true]) {
    it(`loads the upstream directly and through the minimal proxy (${stream ? "stream" : "json"})`, async () => {
      for (const base of [upstreamUrl, proxy.url]) {
        await prime(`${base}/v1/chat/completions`, body(stream));
        const result = await runLoad({
          url: `${base}/v1/chat/completions`,
          body: body(stream),
          connections: 4,
          durationMs: 1000,
          warmupMs: 100,
          expect: stream ? "data: [DONE]" : '"chat.completion"',
        });
        assert.ok(result.requests > 0, "some requests completed");
        assert.equal(result.errors + result.non2xx + result.invalid, 0, result.firstProblem);
        assert.ok(result.latencyMs.p50 <= result.latencyMs.p99);
      }
    });
  }

  it("counts non-2xx answers and wrong bodies", async () => {
    await prime(`${proxy.url}/nowhere`);
    const result = await runLoad({
      url: `${proxy.url}/nowhere`,
      method: "GET",
      connections: 1,
      durationMs: 500,
      warmupMs: 0,
    });
    assert.ok(result.non2xx > 0 && result.non2xx === result.requests);
    const invalid = await runLoad({
      url: `${upstreamUrl}/v1/chat/completions`,
      body: body(false),
      connections: 1,
      durationMs: 500,
      warmupMs: 0,
      expect: "data: [DONE]",
    });
    assert.ok(invalid.invalid > 0 && invalid.invalid === invalid.requests);
  });

  it("reports connection errors against a closed port, bounded in time", async () => {
    const closed = createUpstream();
    const url = await listen(closed);
    closed.close();
    const result = await runLoad({ url, method: "GET", connections: 2, durationMs: 200, warmupMs: 0 });
    assert.equal(result.requests, 0);
    assert.ok(result.errors > 0);
    assert.match(result.firstProblem ?? "", /ECONNREFUSED/);
  });
});
