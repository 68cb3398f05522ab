import assert from "node:assert/strict";
import type { AddressInfo, Server } from "node:net";
import { after, before, describe, it } from "node:test";
import { createMinimalProxy } from "../gateway/min-proxy.ts";
import { createSlowUpstream } from "./slow-upstream.ts";
import { expectedChunk, STREAM_CHUNKS, streamProblem } from "./sse-check.ts";
import { runStreams } from "./stream-client.ts";

const events = Array.from({ length: STREAM_CHUNKS }, (_, i) => `data: ${expectedChunk(i)}\n\n`);
const whole = `${events.join("")}data: [DONE]\n\n`;

describe("slow stream check", () => {
  it("accepts the 20 chunks then [DONE], in LF or CRLF framing", () => {
    assert.equal(streamProblem(whole), undefined);
    assert.equal(streamProblem(whole.replace(/\n/g, "\r\n")), undefined);
  });

  it("refuses a missing, repeated or reordered chunk, a missing [DONE] and an error event", () => {
    const swapped = [...events];
    [swapped[3], swapped[4]] = [swapped[4]!, swapped[3]!];
    assert.match(streamProblem(`${events.slice(1).join("")}data: [DONE]\n\n`) ?? "", /19 events|20 events/);
    assert.match(streamProblem(`${swapped.join("")}data: [DONE]\n\n`) ?? "", /event 3/);
    assert.match(streamProblem(events.join("")) ?? "", /events/);
    assert.match(streamProblem(`${events.join("")}data: {"error":{}}\n\n`) ?? "", /\[DONE\]/);
  });
});

function listen(server: Server | import("node:http").Server): Promise<string> {
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
  });
}

describe("slow streams end to end", () => {
  const upstream = createSlowUpstream();
  let upstreamUrl = "";
  let proxy: ReturnType<typeof createMinimalProxy> | undefined;
  let proxyUrl = "";
  before(async () => {
    upstreamUrl = await listen(upstream);
    // No cap on the proxy's upstream connections (the streams bench's setting): all 20 reach the upstream at once.
    proxy = createMinimalProxy(upstreamUrl, 0);
    proxyUrl = await listen(proxy.server);
  });
  after(async () => {
    proxy?.server.closeAllConnections();
    proxy?.server.close();
    await proxy?.pool.destroy();
    upstream.close();
  });

  it("streams every chunk through the minimal proxy, all held open by the upstream's barrier", async () => {
    await fetch(`${upstreamUrl}/__barrier?streams=20&timeout_ms=20000`, { method: "POST" });
    const result = await runStreams({
      url: `${proxyUrl}/v1/chat/completions`,
      body: JSON.stringify({ model: "bench-model", messages: [], stream: true }),
      streams: 20,
      rampMs: 100,
      timeoutMs: 20_000,
    });
    assert.deepEqual(result.problems, []);
    assert.equal(result.ok, 20);
    assert.equal(result.peakOpen, 20, "the barrier held every stream open until all had arrived");
    const stats = (await (await fetch(`${upstreamUrl}/__stats`)).json()) as { streams: number; peakStreams: number };
    assert.equal(stats.streams, 20);
    assert.equal(stats.peakStreams, 20);
  });

  it("counts a failed stream with its problem", async () => {
    const result = await runStreams({
      url: `${upstreamUrl}/v1/chat/completions`,
      body: JSON.stringify({ model: "bench-model", messages: [] }),
      streams: 2,
      rampMs: 10,
      timeoutMs: 5_000,
    });
    assert.equal(result.ok, 0);
    assert.equal(result.failed, 2);
    assert.match(result.problems[0] ?? "", /events/);
  });
});
