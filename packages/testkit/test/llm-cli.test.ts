import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { freePort } from "../src/ports.ts";
import { startProcess, tsNode } from "../src/process.ts";

const cli = fileURLToPath(new URL("../src/llm/cli.ts", import.meta.url));

describe("fake LLM server CLI", () => {
  it("runs a CRLF OpenAI fake on the given port and stops with exit 0 on SIGTERM", async (t) => {
    const port = await freePort();
    const { command, args } = tsNode(cli, ["--kind", "openai", "--port", String(port), "--crlf", "--model", "m1"]);
    const child = await startProcess({ command, args, ready: { line: "listening on http://127.0.0.1" } }, t);
    assert.match(child.output, new RegExp(`listening on http://127.0.0.1:${port}`));
    const models = (await (await fetch(`http://127.0.0.1:${port}/v1/models`)).json()) as {
      data: Array<{ id: string }>;
    };
    assert.deepEqual(
      models.data.map((m) => m.id),
      ["m1"],
    );
    const stream = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ model: "m1", stream: true, messages: [{ role: "user", content: "x" }] }),
    });
    assert.ok((await stream.text()).endsWith("data: [DONE]\r\n\r\n"));
    const exit = await child.stop();
    assert.equal(exit.code, 0);
  });

  it("runs an Ollama fake on a free port", async (t) => {
    const { command, args } = tsNode(cli, ["--kind", "ollama", "--model", "llama3:latest"]);
    const child = await startProcess({ command, args, ready: { line: "listening on" } }, t);
    const url = child.output.match(/listening on (\S+)/)?.[1];
    const tags = (await (await fetch(`${url}/api/tags`)).json()) as { models: Array<{ name: string }> };
    assert.equal(tags.models[0]?.name, "llama3:latest");
    assert.equal((await child.stop()).code, 0);
  });

  it("runs an Anthropic fake that checks x-api-key", async (t) => {
    const { command, args } = tsNode(cli, ["--kind", "anthropic", "--model", "claude-test", "--api-key", "k"]);
    const child = await startProcess({ command, args, ready: { line: "listening on" } }, t);
    const url = child.output.match(/listening on (\S+)/)?.[1];
    const message = { model: "claude-test", max_tokens: 8, messages: [{ role: "user", content: "hi" }] };
    const post = (key: string) =>
      fetch(`${url}/v1/messages`, {
        method: "POST",
        headers: { "x-api-key": key, "anthropic-version": "2023-06-01", "content-type": "application/json" },
        body: JSON.stringify(message),
      });
    assert.equal((await post("wrong")).status, 401);
    const answer = (await (await post("k")).json()) as { type: string; model: string };
    assert.equal(answer.type, "message");
    assert.equal(answer.model, "claude-test");
    assert.equal((await child.stop()).code, 0);
  });

  it("rejects a bad kind with exit code 2 and the usage", async (t) => {
    const { command, args } = tsNode(cli, ["--kind", "cohere"]);
    const child = await startProcess({ command, args }, t);
    const exit = await child.exited;
    assert.equal(exit.code, 2);
    assert.match(child.output, /usage:/);
  });
});
