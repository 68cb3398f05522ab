// A gateway whose backends are all `http:` serves chat, the probes and the model listings without loading undici
// (its backends' pools are made on first use: backends/lazy-pool.ts), which keeps undici's evaluation out of start-up.
// Its own process (node --test runs each file in one): nothing else in it loads the backends' undici.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  type FakeLlmServer,
  startFakeAnthropic,
  startFakeGoogle,
  startFakeOllama,
  startFakeOpenAI,
} from "@switchboard/testkit";
import { isUndiciLoaded } from "../src/backends/lazy-pool.ts";
import { backendToml, Closers, hello, http, postJson, startTestGateway } from "./helpers.ts";

describe("undici, loaded by the backends on first use", () => {
  const servers: FakeLlmServer[] = [];
  let url: string;
  const closers = new Closers();

  before(async () => {
    const vllm = await startFakeOpenAI({ models: [{ id: "m" }, { id: "e", capabilities: ["embedding"] }] });
    const ollama = await startFakeOllama({ models: [{ id: "llama3.2:3b" }] });
    const claude = await startFakeAnthropic({ models: [{ id: "claude-haiku-4-5" }], apiKey: "k" });
    const gemini = await startFakeGoogle({ models: [{ id: "gemini-2.5-flash" }], apiKey: "g" });
    servers.push(vllm, ollama, claude, gemini);
    const toml =
      "[health_check]\nenabled = true\ninterval_seconds = 30\n" +
      backendToml("gpu", vllm.url, "vllm") +
      backendToml("local", ollama.url, "ollama") +
      backendToml("claude", claude.url, "anthropic", 'api_key_env = "K"') +
      backendToml("gemini", gemini.url, "google", 'api_key_env = "G"');
    url = (await startTestGateway(toml, closers, { K: "k", G: "g" })).url;
  });
  after(async () => {
    await closers.closeAll();
    for (const server of servers) await server.close();
  });

  it("is not loaded by the probes, the listings and chat to http: backends of every type", async () => {
    const models = (await http(`${url}/v1/models`)).json();
    const ids = models.data.map((model: { id: string }) => model.id);
    for (const id of ["m", "llama3.2:3b", "claude-haiku-4-5", "gemini-2.5-flash"]) assert.ok(ids.includes(id), id);
    for (const model of ["m", "llama3.2:3b", "claude-haiku-4-5", "gemini-2.5-flash"]) {
      assert.equal((await postJson(`${url}/v1/chat/completions`, hello(model))).status, 200, model);
      assert.equal((await postJson(`${url}/v1/chat/completions`, hello(model, { stream: true }))).status, 200);
    }
    assert.equal(isUndiciLoaded(), false);
  });

  it("is loaded by an embeddings call, which it serves", async () => {
    const reply = await postJson(`${url}/v1/embeddings`, { model: "e", input: "x" });
    assert.equal(reply.status, 200);
    assert.equal(reply.json().data.length, 1);
    assert.equal(isUndiciLoaded(), true);
  });
});
