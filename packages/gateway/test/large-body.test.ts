import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { embeddingOf, type FakeLlmServer, startFakeOllama, startFakeOpenAI } from "@switchboard/testkit";
import OpenAI from "openai";
import { backendToml, Closers, http, startTestGateway } from "./helpers.ts";

// Bodies of long texts are parsed on a worker thread: what arrives upstream and what is validated must not change.
describe("large bodies made of long texts", () => {
  let upstream: FakeLlmServer;
  let ollama: FakeLlmServer;
  let url: string;
  const closers = new Closers();

  before(async () => {
    const embedder = { capabilities: ["embedding" as const], contextLength: 10_000_000 };
    upstream = await startFakeOpenAI({
      models: [
        { id: "m", contextLength: 10_000_000 },
        { id: "e", ...embedder },
      ],
    });
    ollama = await startFakeOllama({ models: [{ id: "o:latest", ...embedder }] });
    url = (
      await startTestGateway(
        `${backendToml("b", upstream.url)}${backendToml("ol", ollama.url, "ollama")}[routing.aliases]\n"alias" = "m"\n"e-alias" = "e"\n`,
        closers,
      )
    ).url;
  });
  after(async () => {
    await closers.closeAll();
    await upstream.close();
    await ollama.close();
  });

  it("are validated, routed and forwarded unchanged (also re-serialised under an alias)", async () => {
    const text = 'line "one"\n\ttwo é ✓ 𝄞 \\ '.repeat(60_000);
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: "unused", maxRetries: 0 });
    for (const model of ["m", "alias"]) {
      const reply = await client.chat.completions.create({ model, messages: [{ role: "user", content: text }] });
      assert.equal(reply.object, "chat.completion");
      const sent = upstream.requests.findLast((r) => r.path === "/v1/chat/completions")?.body as {
        model: string;
        messages: { content: string }[];
      };
      assert.equal(sent.model, "m");
      assert.equal(sent.messages[0]?.content, text);
    }
  });

  it("are embedded from the client's bytes: forwarded as they came, or re-encoded for Ollama", async () => {
    const text = 'line "one"\n\ttwo é ✓ 𝄞 \\ '.repeat(40_000);
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: "unused", maxRetries: 0 });
    for (const [model, server, path] of [
      ["e", upstream, "/v1/embeddings"],
      ["e-alias", upstream, "/v1/embeddings"],
      ["o:latest", ollama, "/api/embed"],
    ] as const) {
      for (const input of [text, ["short", text]]) {
        const reply = await client.embeddings.create({ model, input });
        const texts = Array.isArray(input) ? input : [input];
        assert.equal(reply.data.length, texts.length);
        const sent = server.requests.findLast((r) => r.path === path)?.body as { model: string; input: unknown };
        assert.equal(sent.model, model === "e-alias" ? "e" : model);
        assert.deepEqual(sent.input, input);
        assert.deepEqual(
          reply.data.map((item) => item.embedding),
          texts.map((each) => embeddingOf(each, 16)),
        );
      }
    }
  });

  it("are refused with the same errors", async () => {
    const long = "x".repeat(2 * 1024 * 1024);
    const broken = await http(`${url}/v1/chat/completions`, {
      method: "POST",
      body: `{"model":"m","messages":"${long}`,
    });
    assert.equal(broken.status, 400);
    assert.equal(broken.json().error.code, "invalid_json");
    const wrong = await http(`${url}/v1/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ model: "m", messages: [{ role: "robot", content: long }] }),
    });
    assert.equal(wrong.status, 400);
    assert.equal(wrong.json().error.param, "messages[0].role");
  });
});
