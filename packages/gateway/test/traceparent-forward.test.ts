// A client's W3C traceparent reaches the backend that serves it, whatever the API and the backend type.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type FakeLlmServer, startFakeAnthropic, startFakeOpenAI } from "@switchboard/testkit";
import { backendToml, Closers, hello, postJson, startTestGateway } from "./helpers.ts";

const TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

describe("traceparent is forwarded to backends", () => {
  let vllm: FakeLlmServer;
  let claude: FakeLlmServer;
  let url: string;
  const closers = new Closers();

  before(async () => {
    vllm = await startFakeOpenAI({
      models: [{ id: "m" }, { id: "e", capabilities: ["embedding"] }],
    });
    claude = await startFakeAnthropic({ models: [{ id: "claude-haiku-4-5" }], apiKey: "k" });
    const gateway = await startTestGateway(
      backendToml("gpu", vllm.url, "vllm") + backendToml("claude", claude.url, "anthropic", 'api_key_env = "K"'),
      closers,
      { K: "k" },
    );
    url = gateway.url;
  });
  after(async () => {
    await closers.closeAll();
    await vllm.close();
    await claude.close();
  });

  it("chat, embeddings, and an inbound API to a translated backend carry it; a malformed one is not forwarded", async () => {
    const headers = { traceparent: TRACEPARENT };
    assert.equal((await postJson(`${url}/v1/chat/completions`, hello("m"), headers)).status, 200);
    assert.equal(vllm.requests.at(-1)?.headers["traceparent"], TRACEPARENT);
    assert.equal((await postJson(`${url}/v1/embeddings`, { model: "e", input: "x" }, headers)).status, 200);
    assert.equal(vllm.requests.at(-1)?.headers["traceparent"], TRACEPARENT);
    const messages = { model: "claude-haiku-4-5", max_tokens: 5, messages: [{ role: "user", content: "x" }] };
    assert.equal((await postJson(`${url}/v1/messages`, messages, headers)).status, 200);
    assert.equal(claude.requests.at(-1)?.headers["traceparent"], TRACEPARENT);
    await postJson(`${url}/v1/chat/completions`, hello("m"), { traceparent: "garbage" });
    assert.equal(vllm.requests.at(-1)?.headers["traceparent"], undefined);
  });
});
