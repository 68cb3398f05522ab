// The gateway listens while its first round of health probes runs: one backend whose probe does not answer no longer
// keeps the port closed. Meanwhile /health says "starting", a request that a backend already probed can serve goes
// at once, and what needs the rest of the fleet (a model only the silent backend has, the model lists, a model no
// backend has) waits for the round to settle. The silent backend here is a fake Ollama behind a proxy that holds its
// GET /api/tags until the test lets it answer: no timing is involved.
import assert from "node:assert/strict";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { type FakeLlmServer, freePort, startFakeOllama, waitUntil } from "@switchboard/testkit";
import pino from "pino";
import { type RunningGateway, startGateway } from "../src/gateway.ts";
import { parseConfigText } from "../src/load-config.ts";
import { backendToml, type HttpResult, http, postJson, withOwnStateFiles } from "./helpers.ts";

/** A proxy to `target` that holds GET /api/tags until `release()`. */
async function holdingProxy(target: string): Promise<{ url: string; release(): void; close(): Promise<void> }> {
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const server: Server = createServer((incoming, outgoing) => {
    const held = incoming.url === "/api/tags" ? released : Promise.resolve();
    void held.then(() => {
      const upstream = request(new URL(incoming.url ?? "/", target), {
        method: incoming.method,
        headers: incoming.headers,
      });
      upstream.on("response", (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      });
      upstream.on("error", () => outgoing.destroy());
      incoming.pipe(upstream);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    release,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A request's answer, and whether it has come yet. */
function tracked(answer: Promise<HttpResult>): { answer: Promise<HttpResult>; readonly settled: boolean } {
  const state = { answer, settled: false };
  void answer.finally(() => {
    state.settled = true;
  });
  return state;
}

const chat = (model: string) => ({ model, messages: [{ role: "user", content: "hi" }] });

describe("the gateway listens while its first probes run", () => {
  let quick: FakeLlmServer;
  let slow: FakeLlmServer;
  let proxy: Awaited<ReturnType<typeof holdingProxy>>;
  let url: string;
  let starting: Promise<RunningGateway>;
  let started = false;

  before(async () => {
    quick = await startFakeOllama({ models: [{ id: "quick-model" }] });
    slow = await startFakeOllama({ models: [{ id: "slow-model" }] });
    proxy = await holdingProxy(slow.url);
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    const toml =
      `[server]\nhost = "127.0.0.1"\nport = ${port}\n[discovery]\nenabled = false\n` +
      "[health_check]\ninterval_seconds = 3600\n" +
      backendToml("quick", quick.url, "ollama") +
      backendToml("slow", proxy.url, "ollama");
    starting = startGateway(
      parseConfigText(withOwnStateFiles(toml), "first-round.toml", {}),
      pino({ level: "silent" }),
    );
    void starting.then(() => {
      started = true;
    });
  });

  after(async () => {
    proxy.release();
    await (await starting).close();
    await Promise.all([proxy.close(), quick.close(), slow.close()]);
  });

  it("answers /health as starting, serves a probed backend's model, and holds the rest until the round settles", async () => {
    // The port opens while the slow backend's probe is held.
    let health: HttpResult | undefined;
    await waitUntil(
      async () => {
        health = await http(`${url}/health`).catch(() => undefined);
        return health !== undefined;
      },
      { what: "the gateway to answer /health" },
    );
    assert.equal(health?.status, 503);
    assert.equal(health?.json().status, "starting");
    assert.equal(started, false);

    // A client that leaves while its request is held: no attempt is made for it once the round settles.
    const leaving = new AbortController();
    const left = fetch(`${url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(chat("slow-model")),
      signal: leaving.signal,
    }).catch(() => undefined);
    const models = tracked(http(`${url}/v1/models`));
    const tags = tracked(http(`${url}/api/tags`));
    const slowChat = tracked(postJson(`${url}/v1/chat/completions`, chat("slow-model")));
    const nobody = tracked(postJson(`${url}/v1/chat/completions`, chat("nobody-model")));

    // The quick backend has answered its probe (or will, and the request waits for it): its model is served while
    // the round still runs.
    const quickChat = await postJson(`${url}/v1/chat/completions`, chat("quick-model"));
    assert.equal(quickChat.status, 200, quickChat.text);
    assert.equal(quickChat.json().choices[0].message.content, "echo: hi");
    assert.equal(started, false);
    for (const waiting of [models, tags, slowChat, nobody]) assert.equal(waiting.settled, false);

    leaving.abort();
    await left;
    // A request after the abort: the gateway has read the connection's close (sent first) by the time it answers.
    await http(`${url}/health`);
    proxy.release();
    await starting;
    const listed = (await models.answer).json().data.map((model: { id: string }) => model.id);
    assert.deepEqual(listed, ["quick-model", "slow-model"]);
    const tagged = (await tags.answer).json().models.map((model: { name: string }) => model.name);
    assert.deepEqual(tagged, ["quick-model", "slow-model"]);
    const slowAnswer = await slowChat.answer;
    assert.equal(slowAnswer.status, 200, slowAnswer.text);
    assert.equal(slowAnswer.json().model, "slow-model");
    const slowChats = slow.requests.filter((request) => request.path === "/v1/chat/completions");
    assert.equal(slowChats.length, 1, "one chat reached the slow backend: the client that left sent none");
    const nobodyAnswer = await nobody.answer;
    assert.equal(nobodyAnswer.status, 404, nobodyAnswer.text);
    assert.match(nobodyAnswer.json().error.message, /slow-model/);

    const settled = await http(`${url}/health`);
    assert.equal(settled.status, 200);
    assert.equal(settled.json().status, "healthy");
  });
});
