import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { type FakeLlmServer, startFakeOpenAI, waitUntil } from "@switchboard/testkit";
import OpenAI from "openai";
import { request } from "undici";
import type { RunningGateway } from "../src/gateway.ts";
import { backendToml, Closers, eventCount, hello, postJson, sseData, startTestGateway } from "./helpers.ts";

const say = (model: string, text: string, extra: Record<string, unknown> = {}) =>
  hello(model, { messages: [{ role: "user", content: text }], ...extra });

/** What the fake received, as the user messages of its chat requests, in arrival order. */
function received(fake: FakeLlmServer): string[] {
  return fake.requests
    .filter((r) => r.path === "/v1/chat/completions")
    .map((r) => (r.body as { messages: { content: string }[] }).messages.at(-1)!.content);
}

/** Resolves once `count` more requests are waiting in the queue. */
const queuedCount = (gateway: RunningGateway, count: number) => eventCount(gateway, "queued", count);

describe("the priority queue, through HTTP", () => {
  const closers = new Closers();
  const fakes: FakeLlmServer[] = [];
  after(async () => {
    await closers.closeAll();
    await Promise.all(fakes.map((fake) => fake.close()));
  });

  async function fake(models: string[]): Promise<FakeLlmServer> {
    const server = await startFakeOpenAI({ models: models.map((id) => ({ id })) });
    fakes.push(server);
    return server;
  }

  it("serves high priority before normal, FIFO within a priority, streaming requests included", async () => {
    const box = await fake(["m"]);
    const gateway = await startTestGateway(backendToml("box", box.url, "vllm", "max_concurrent = 1"), closers);
    const chat = (text: string, headers: Record<string, string> = {}, extra: Record<string, unknown> = {}) =>
      postJson(`${gateway.url}/v1/chat/completions`, say("m", text, extra), headers);
    box.setFault({ kind: "stall", scope: "inference" });
    const first = chat("first");
    await waitUntil(() => box.inFlight === 1, { what: "the first request to hold the only slot" });
    const normals = queuedCount(gateway, 2);
    const n1 = chat("normal-1");
    const n2 = chat("normal-2", {}, { stream: true });
    await normals;
    const highs = queuedCount(gateway, 2);
    const h1 = chat("high-1", { "x-gateway-priority": "high" });
    const h2 = chat("high-2", { "X-Gateway-Priority": "HIGH" });
    const bogus = chat("normal-3", { "x-gateway-priority": "urgent" }); // any other value is normal
    await highs;
    box.setFault({ kind: "none" });
    const answers = await Promise.all([first, n1, n2, h1, h2, bogus]);
    for (const answer of answers) assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(received(box), ["first", "high-1", "high-2", "normal-1", "normal-2", "normal-3"]);
    assert.equal(sseData(answers[2]!.text).at(-1), "[DONE]", "a queued stream is served as a stream");
    const stats = (await postJsonGet(`${gateway.url}/v1/stats`)) as { queue: Record<string, number> };
    assert.equal(stats.queue["dispatched"], 5);
    assert.equal(stats.queue["depth"], 0);
  });

  it("releases queued requests in parallel as slots free, not one at a time", async () => {
    const box = await fake(["m"]);
    const slots = 10;
    const gateway = await startTestGateway(
      `${backendToml("box", box.url, "vllm", `max_concurrent = ${slots}`)}[queue]\nmax_size = 100\n`,
      closers,
    );
    // The first round holds until the other 50 are queued, however slowly a busy machine sends them; then every
    // request takes 150 ms.
    box.setFault({ kind: "stall", scope: "inference" });
    const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: "unused", maxRetries: 0 });
    const queued = queuedCount(gateway, 50);
    const all = Array.from({ length: 60 }, (_, i) =>
      client.chat.completions.create({ model: "m", messages: [{ role: "user", content: `r${i}` }] }),
    );
    await queued;
    box.setFault({ kind: "delay", ms: 150, scope: "inference" });
    // How many requests the backend serves at once while the queue is released, from the third round on (the first
    // round's requests are all done by then). Released one at a time, as Nexus's drain loop does (each waits for the
    // one before it), this would stay at 1.
    let releasedAtOnce = 0;
    const sampler = setInterval(() => {
      if (box.requests.length > 2 * slots) releasedAtOnce = Math.max(releasedAtOnce, box.inFlight);
    }, 5);
    const replies = await Promise.all(all).finally(() => clearInterval(sampler));
    assert.equal(replies.length, 60);
    for (const reply of replies) assert.match(reply.choices[0]!.message.content ?? "", /^echo: r\d+$/);
    assert.ok(releasedAtOnce >= slots / 2, `at most ${releasedAtOnce} queued requests were served at once`);
    assert.ok(box.requests.length >= 60);
  });

  it("a queued request for another model is not blocked by one whose backends are full", async () => {
    const slow = await fake(["a"]);
    const quick = await fake(["b"]);
    const gateway = await startTestGateway(
      backendToml("slow", slow.url, "vllm", "max_concurrent = 1") +
        backendToml("quick", quick.url, "vllm", "max_concurrent = 1"),
      closers,
    );
    const chat = (model: string, text: string) => postJson(`${gateway.url}/v1/chat/completions`, say(model, text));
    slow.setFault({ kind: "stall", scope: "inference" });
    quick.setFault({ kind: "stall", scope: "inference" });
    const a1 = chat("a", "a1");
    const b1 = chat("b", "b1");
    await waitUntil(() => slow.inFlight === 1 && quick.inFlight === 1, { what: "both slots taken" });
    const ahead = queuedCount(gateway, 1);
    const a2 = chat("a", "a2"); // first in the queue, waiting for "slow"
    await ahead;
    const behind = queuedCount(gateway, 1);
    const b2 = chat("b", "b2"); // behind a2, but for another backend
    await behind;
    quick.setFault({ kind: "none" });
    assert.equal((await b1).status, 200);
    const served = await b2;
    assert.equal(served.status, 200, "b2 was served while a2 still waits");
    assert.equal(slow.inFlight, 1);
    slow.setFault({ kind: "none" });
    assert.deepEqual([(await a1).status, (await a2).status], [200, 200]);
  });

  it("queue full → 503 at once; expiry → 503 with Retry-After and an eta from observed service times", async () => {
    const box = await fake(["m"]);
    const gateway = await startTestGateway(
      `${backendToml("box", box.url, "vllm", "max_concurrent = 1")}[queue]\nmax_size = 1\nmax_wait_seconds = 0.5\n`,
      closers,
    );
    const chat = (text: string) => postJson(`${gateway.url}/v1/chat/completions`, say("m", text));
    assert.equal((await chat("observed")).status, 200, "one answer gives a service time to estimate from");
    box.setFault({ kind: "stall", scope: "inference" });
    const first = chat("first");
    await waitUntil(() => box.inFlight === 1, { what: "the slot to be taken" });
    const queued = queuedCount(gateway, 1);
    const waiting = chat("waits");
    await queued;
    const full = await chat("no room");
    assert.equal(full.status, 503, full.text);
    const body = full.json();
    assert.equal(body.error.code, "no_available_backend");
    assert.match(body.error.message, /queue is full \(queue\.max_size 1\)/);
    assert.equal(full.headers["x-gateway-rejection-reasons"], "at_capacity");
    assert.equal(typeof body.error.context.required_tier, "number");
    const expired = await waiting;
    assert.equal(expired.status, 503, expired.text);
    assert.match(expired.json().error.message, /queue\.max_wait_seconds/);
    assert.ok(Number(expired.headers["retry-after"]) >= 1, "Retry-After in whole seconds");
    const eta = expired.json().error.context.eta_seconds;
    assert.ok(typeof eta === "number" && eta > 0, `eta_seconds ${eta}`);
    box.setFault({ kind: "none" });
    assert.equal((await first).status, 200);
    assert.deepEqual(received(box), ["observed", "first"], "neither refused request reached the backend");
  });

  it("a client that disconnects while queued leaves the queue at once and frees its place", async () => {
    const box = await fake(["m"]);
    const gateway = await startTestGateway(
      `${backendToml("box", box.url, "vllm", "max_concurrent = 1")}[queue]\nmax_size = 1\n`,
      closers,
    );
    box.setFault({ kind: "stall", scope: "inference" });
    const first = postJson(`${gateway.url}/v1/chat/completions`, say("m", "first"));
    await waitUntil(() => box.inFlight === 1, { what: "the slot to be taken" });
    const queued = queuedCount(gateway, 1);
    const controller = new AbortController();
    const leaving = request(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-request-id": "leaver" },
      body: JSON.stringify(say("m", "leaver")),
      signal: controller.signal,
    }).catch((error: unknown) => error);
    await queued;
    const left = gateway.events.next("dequeued", (event) => event.requestId === "leaver");
    controller.abort();
    assert.equal((await left).outcome, "client_gone");
    await leaving;
    const replacement = queuedCount(gateway, 1);
    const next = postJson(`${gateway.url}/v1/chat/completions`, say("m", "next"));
    await replacement; // the queue (max_size 1) has room again
    box.setFault({ kind: "none" });
    assert.deepEqual([(await first).status, (await next).status], [200, 200]);
    assert.deepEqual(received(box), ["first", "next"], "the request that left never reached the backend");
  });

  it("an unknown model is never queued: 404 at once", async () => {
    const box = await fake(["m"]);
    const gateway = await startTestGateway(backendToml("box", box.url, "vllm", "max_concurrent = 1"), closers);
    box.setFault({ kind: "stall", scope: "inference" });
    const first = postJson(`${gateway.url}/v1/chat/completions`, say("m", "first"));
    await waitUntil(() => box.inFlight === 1, { what: "the slot to be taken" });
    const unknown = await postJson(`${gateway.url}/v1/chat/completions`, say("nope", "x"));
    assert.equal(unknown.status, 404);
    assert.equal(unknown.json().error.code, "model_not_found");
    box.setFault({ kind: "none" });
    assert.equal((await first).status, 200);
  });

  it("embeddings use the same pipeline: they queue for a full backend too", async () => {
    const box = await startFakeOpenAI({ models: [{ id: "embedder", capabilities: ["embedding"] }] });
    fakes.push(box);
    const gateway = await startTestGateway(backendToml("box", box.url, "vllm", "max_concurrent = 1"), closers);
    const embed = (input: string) => postJson(`${gateway.url}/v1/embeddings`, { model: "embedder", input });
    box.setFault({ kind: "stall", scope: "inference" });
    const first = embed("one");
    await waitUntil(() => box.inFlight === 1, { what: "the slot to be taken" });
    const queued = queuedCount(gateway, 1);
    const second = embed("two");
    await queued;
    box.setFault({ kind: "none" });
    const [a, b] = await Promise.all([first, second]);
    assert.deepEqual([a.status, b.status], [200, 200]);
    assert.equal(b.json().object, "list");
  });
});

async function postJsonGet(url: string): Promise<unknown> {
  const response = await request(url);
  return response.body.json();
}
