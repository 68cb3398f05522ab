import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type FakeLlmServer, startFakeOpenAI } from "@switchboard/testkit";
import fc from "fast-check";
import { backendToml, Closers, type HttpResult, http, postJson, startTestGateway } from "./helpers.ts";

// Every name a plain object inherits: looked up in a plain object, each would find something that is not there.
const KEYS = Object.getOwnPropertyNames(Object.prototype);

/** Every way a name reaches the gateway from a client: as a model, a path segment, a header, a field value. */
const FIELDS = [
  "chat model",
  "embeddings model",
  "models/{id}",
  "priority header",
  "request id header",
  "header name",
  "message role",
  "content part type",
  "response_format type",
  "body key",
] as const;
type Field = (typeof FIELDS)[number];

const chat = (model: string, extra: Record<string, unknown> = {}) => ({
  model,
  messages: [{ role: "user", content: "hello" }],
  ...extra,
});

function send(base: string, field: Field, key: string): Promise<HttpResult> {
  switch (field) {
    case "chat model":
      return postJson(`${base}/v1/chat/completions`, chat(key));
    case "embeddings model":
      return postJson(`${base}/v1/embeddings`, { model: key, input: "hello" });
    case "models/{id}":
      return http(`${base}/v1/models/${encodeURIComponent(key)}`);
    case "priority header":
      return postJson(`${base}/v1/chat/completions`, chat("m"), { "x-gateway-priority": key, "x-gateway-strict": key });
    case "request id header":
      return postJson(`${base}/v1/chat/completions`, chat("m"), { "x-request-id": key });
    case "header name":
      return postJson(`${base}/v1/chat/completions`, chat("m"), { [key]: "1" });
    case "message role":
      return postJson(`${base}/v1/chat/completions`, chat("m", { messages: [{ role: key, content: "x" }] }));
    case "content part type":
      return postJson(
        `${base}/v1/chat/completions`,
        chat("m", { messages: [{ role: "user", content: [{ type: key }] }] }),
      );
    case "response_format type":
      return postJson(`${base}/v1/chat/completions`, chat("m", { response_format: { type: key } }));
    case "body key":
      return http(`${base}/v1/chat/completions`, {
        method: "POST",
        body: `{"model":"m","messages":[{"role":"user","content":"x"}],${JSON.stringify(key)}:{"model":"x"}}`,
      });
  }
}

function assertDesigned(response: HttpResult, what: string): void {
  assert.ok(response.status < 500, `${what}: HTTP ${response.status} ${response.text.slice(0, 300)}`);
  if (response.status >= 400) {
    const body = JSON.parse(response.text);
    assert.equal(typeof body.error.message, "string", what);
    assert.doesNotMatch(response.text, /at \w+ \(|TypeError|node:internal/, `${what}: no stack trace`);
  }
}

describe("names that Object.prototype already has", () => {
  let upstream: FakeLlmServer;
  let plain: string;
  let named: string;
  const closers = new Closers();

  before(async () => {
    upstream = await startFakeOpenAI({ models: [{ id: "m" }] });
    plain = (await startTestGateway(backendToml("b", upstream.url), closers)).url;
    // Every such name as an alias, a fallback key, a backend name and a static model id: all plain names.
    const quoted = KEYS.map((key) => JSON.stringify(key));
    const toml =
      `[routing.aliases]\n${quoted.map((key) => `${key} = "m"`).join("\n")}\n` +
      `[routing.fallbacks]\n${quoted.map((key) => `${key} = ["m"]`).join("\n")}\n` +
      `[[routing.policies]]\nmodel_pattern = "constructor"\nprivacy = "restricted"\n` +
      KEYS.map((key) => backendToml(key, upstream.url, "vllm", 'zone = "restricted"')).join("") +
      `[[backends.models]]\nid = "valueOf"\ncapabilities = ["completion"]\n`;
    named = (await startTestGateway(toml, closers)).url;
  });
  after(async () => {
    await closers.closeAll();
    await upstream.close();
  });

  it("are ordinary names in every field and route a client controls", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...KEYS), fc.constantFrom(...FIELDS), async (key, field) => {
        const response = await send(plain, field, key);
        assertDesigned(response, `${field} = ${key}`);
        if (field === "chat model" || field === "embeddings model" || field === "models/{id}") {
          assert.equal(response.status, 404, `${field} = ${key}: ${response.text}`);
          assert.equal(JSON.parse(response.text).error.code, "model_not_found");
        }
      }),
      { numRuns: 250, examples: KEYS.flatMap((key) => FIELDS.map((field): [string, Field] => [key, field])) },
    );
  });

  it("are ordinary names as aliases, fallbacks and backends in the configuration", async () => {
    for (const key of KEYS) {
      const response = await postJson(`${named}/v1/chat/completions`, chat(key));
      assert.equal(response.status, 200, `model ${key}: ${response.text}`);
      const sent = upstream.requests.at(-1)?.body as { model?: string } | undefined;
      assert.equal(sent?.model, "m", "the alias target goes upstream");
      assert.ok(KEYS.includes(String(response.headers["x-gateway-backend"])), `backend ${key}`);
      const embeddings = await postJson(`${named}/v1/embeddings`, { model: key, input: "x" });
      assertDesigned(embeddings, `embeddings ${key}`);
    }
    const stats = (await http(`${named}/v1/stats`)).json() as { backends: { name: string }[] };
    assert.deepEqual(
      stats.backends.map((backend) => backend.name),
      KEYS,
    );
  });
});
