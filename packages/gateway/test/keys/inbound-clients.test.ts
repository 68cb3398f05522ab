// Keys with the other APIs' own clients: the Anthropic SDK sends its key as x-api-key (also when it lists models) and
// reads errors in Anthropic's envelope; the Ollama client reads Ollama's {"error": ...}.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import { type FakeLlmServer, startFakeOpenAI } from "@switchboard/testkit";
import { Ollama } from "ollama";
import type { RunningGateway } from "../../src/gateway.ts";
import { backendToml, Closers, postJson, startTestGateway } from "../helpers.ts";

const MASTER = "master-key-for-inbound-0123456789";

describe("keys with the Anthropic and Ollama clients", () => {
  let local: FakeLlmServer;
  let gateway: RunningGateway;
  let key: string;
  let dir: string;
  const closers = new Closers();

  before(async () => {
    local = await startFakeOpenAI({ models: [{ id: "llama3" }] });
    dir = mkdtempSync(join(tmpdir(), "gateway-inbound-keys-"));
    gateway = await startTestGateway(
      `${backendToml("local", local.url)}[auth]\nmaster_key_env = "MASTER"\n[state]\npath = "${join(dir, "s.json")}"\n`,
      closers,
      { MASTER },
    );
    const made = await postJson(
      `${gateway.url}/v1/keys`,
      { name: "claude-code" },
      { authorization: `Bearer ${MASTER}` },
    );
    assert.equal(made.status, 201, made.text);
    key = made.json().key;
  });
  after(async () => {
    await closers.closeAll();
    await local.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("the Anthropic SDK lists models and sends messages with its x-api-key", async () => {
    const client = new Anthropic({ apiKey: key, baseURL: gateway.url, maxRetries: 0 });
    const models = await client.models.list();
    assert.ok(models.data.some((model) => model.id === "llama3"));
    const message = await client.messages.create({
      model: "llama3",
      max_tokens: 32,
      messages: [{ role: "user", content: "hello" }],
    });
    assert.equal(message.type, "message");
  });

  it("a wrong key is an Anthropic authentication_error for the Anthropic SDK", async () => {
    const client = new Anthropic({ apiKey: "sk-sb-wrong", baseURL: gateway.url, maxRetries: 0 });
    await assert.rejects(
      client.messages.create({ model: "llama3", max_tokens: 8, messages: [{ role: "user", content: "x" }] }),
      (error: unknown) =>
        error instanceof Anthropic.AuthenticationError &&
        (error.error as { error?: { type?: string } }).error?.type === "authentication_error",
    );
    await assert.rejects(client.models.list(), Anthropic.AuthenticationError);
  });

  it("the Ollama client works with the key, and reads a refusal as Ollama's error", async () => {
    const ollama = new Ollama({ host: gateway.url, headers: { authorization: `Bearer ${key}` } });
    const answer = await ollama.chat({ model: "llama3", messages: [{ role: "user", content: "hi" }], stream: false });
    assert.equal(answer.message.role, "assistant");
    const refused = new Ollama({ host: gateway.url, headers: { authorization: "Bearer sk-sb-wrong" } });
    await assert.rejects(
      refused.chat({ model: "llama3", messages: [{ role: "user", content: "hi" }], stream: false }),
      (error: Error & { status_code?: number }) => error.status_code === 401 && /API key/.test(error.message),
    );
  });
});
