import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { type FakeLlmServer, startFakeOpenAI, waitUntil } from "@switchboard/testkit";
import { backendToml, Closers, FAILOVER_ROUTING, hello, http, postJson, sseData, startTestGateway } from "./helpers.ts";

const LIMIT = 1024 * 1024;
/** What may be on its way when the gateway stops reading (socket buffers on both sides), beyond the limit itself. */
const IN_FLIGHT = 32 * 1024 * 1024;
const PIECE = Buffer.alloc(64 * 1024, "x");

const chunkEvent = (text: string) =>
  `data: ${JSON.stringify({ object: "chat.completion.chunk", choices: [{ index: 0, delta: { content: text } }] })}\n\n`;

/**
 * A backend that never stops answering: after `head`, the same bytes until the gateway closes the connection, as
 * fast as the connection takes them. Records how much it wrote in all.
 */
function answerWithoutEnd(res: ServerResponse, type: string, head: string, written: (bytes: number) => void): void {
  res.writeHead(200, { "content-type": type });
  let total = head.length;
  res.write(head);
  const pump = () => {
    while (!res.destroyed) {
      total += PIECE.length;
      if (!res.write(PIECE)) return void res.once("drain", pump);
    }
  };
  res.on("close", () => written(total));
  pump();
}

async function readJson(req: IncomingMessage): Promise<{ model?: string }> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

/**
 * `[server] answer_limit_bytes`: no backend can make the gateway read, hold or scan without end. A call whose answer
 * passes the limit is stopped there, its connection closed; before the first byte it fails over (or 502 naming the
 * key), after it the stream ends with the error event.
 */
describe("a backend whose answer has no end", () => {
  const closers = new Closers();
  const writtenByHostile: number[] = [];
  let good: FakeLlmServer;
  let url = "";
  const hostile = createServer(async (req, res) => {
    if (req.method === "GET" && req.url === "/v1/models") {
      const ids = ["endless-json", "endless-event", "late-endless", "embed-endless"];
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ object: "list", data: ids.map((id) => ({ id, object: "model" })) }));
      return;
    }
    const { model } = await readJson(req);
    const record = (bytes: number) => writtenByHostile.push(bytes);
    if (req.url === "/v1/embeddings") answerWithoutEnd(res, "application/json", '{"data":[', record);
    else if (model === "endless-json") answerWithoutEnd(res, "application/json", '{"choices":[{"message":', record);
    else if (model === "endless-event") answerWithoutEnd(res, "text/event-stream", "data: ", record);
    else answerWithoutEnd(res, "text/event-stream", `${chunkEvent("first ")}data: `, record);
  });
  // Its model listing has no end: its health probes fail on the limit, and nothing else does.
  const endlessListing = createServer((req, res) => {
    req.resume();
    answerWithoutEnd(res, "application/json", '{"object":"list","data":[', () => {});
  });

  before(async () => {
    for (const server of [hostile, endlessListing]) {
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    }
    const urlOf = (server: typeof hostile) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    good = await startFakeOpenAI({ models: [{ id: "endless-json" }] });
    const gateway = await startTestGateway(
      `[server]\nport = 0\nanswer_limit_bytes = ${LIMIT}\n${FAILOVER_ROUTING}` +
        backendToml("hostile", urlOf(hostile), "generic", "priority = 1") +
        backendToml("good", good.url, "generic", "priority = 2") +
        backendToml("listing", urlOf(endlessListing), "generic", "priority = 3"),
      closers,
    );
    url = gateway.url;
  });
  after(async () => {
    await closers.closeAll();
    hostile.closeAllConnections();
    endlessListing.closeAllConnections();
    await good.close();
    for (const server of [hostile, endlessListing]) server.close();
  });

  const backendOf = async (name: string): Promise<{ status: string; last_error: string | null }> =>
    (await http(`${url}/v1/stats`)).json().backends.find((backend: { name: string }) => backend.name === name);

  const writtenSince = async (before: number) => {
    await waitUntil(() => writtenByHostile.length > before, { timeoutMs: 10_000 });
    return writtenByHostile[before]!;
  };

  it("fails a whole answer over to the next backend once it passes the limit, and closes its connection", async () => {
    const seen = writtenByHostile.length;
    const answer = await postJson(`${url}/v1/chat/completions`, hello("endless-json"));
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.headers["x-gateway-backend"], "good");
    assert.ok((await writtenSince(seen)) < LIMIT + IN_FLIGHT);
  });

  it("answers 502 naming the key when no other backend serves the model", async () => {
    const seen = writtenByHostile.length;
    const answer = await postJson(`${url}/v1/chat/completions`, hello("endless-event", { stream: true }));
    assert.equal(answer.status, 502, answer.text);
    assert.match(
      answer.json().error.message,
      /hostile: answered more than 1048576 bytes \(server\.answer_limit_bytes\)/,
    );
    assert.ok((await writtenSince(seen)) < LIMIT + IN_FLIGHT);
  });

  it("ends a stream that began with the error event once one event passes the limit", async () => {
    const answer = await postJson(`${url}/v1/chat/completions`, hello("late-endless", { stream: true }));
    assert.equal(answer.status, 200);
    const events = sseData(answer.text);
    assert.equal(JSON.parse(events[0]!).choices[0].delta.content, "first ");
    const error = JSON.parse(events[1]!).error;
    assert.equal(error.code, "stream_interrupted");
    assert.match(error.message, /answered more than 1048576 bytes/);
    assert.equal(events[2], "[DONE]");
  });

  it("bounds an answer read whole (embeddings) the same way", async () => {
    // The earlier failures marked the backend unhealthy; its probes bring it back.
    await waitUntil(async () => (await backendOf("hostile")).status === "healthy", { timeoutMs: 10_000 });
    const answer = await postJson(`${url}/v1/embeddings`, { model: "embed-endless", input: "hello" });
    assert.equal(answer.status, 502, answer.text);
    assert.match(answer.json().error.message, /answered more than 1048576 bytes/);
  });

  it("marks a backend whose model listing has no end unhealthy, with the limit as its error", async () => {
    await waitUntil(
      async () => {
        const listing = await backendOf("listing");
        return listing.status === "unhealthy" && /answer_limit_bytes/.test(listing.last_error ?? "");
      },
      { timeoutMs: 10_000 },
    );
    assert.equal((await postJson(`${url}/v1/chat/completions`, hello("endless-json"))).status, 200);
  });
});
