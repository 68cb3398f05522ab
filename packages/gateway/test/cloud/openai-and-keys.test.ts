// The openai cloud type (pass-through with the configured key, organisation and project headers, spend observed on the
// side) and where keys may and may not appear: the right header of the right backend, never a log line or a body.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { after, before, describe, it } from "node:test";
import {
  type FakeLlmServer,
  startFakeAnthropic,
  startFakeGoogle,
  startFakeOpenAI,
  waitUntil,
} from "@switchboard/testkit";
import OpenAI from "openai";
import pino from "pino";
import { type RunningGateway, startGateway } from "../../src/gateway.ts";
import { parseConfigText } from "../../src/load-config.ts";
import { backendToml, http, postJson, withOwnStateFiles } from "../helpers.ts";

const KEYS = { OPENAI_KEY: "sk-openai-SECRET1", ANTHROPIC_KEY: "sk-ant-SECRET2", GEMINI_KEY: "AIza-SECRET3" };

describe("openai cloud pass-through and key hygiene", () => {
  let openai: FakeLlmServer;
  let claude: FakeLlmServer;
  let gemini: FakeLlmServer;
  let gateway: RunningGateway;
  let client: OpenAI;
  let logs = "";
  let dir: string;

  before(async () => {
    openai = await startFakeOpenAI({ models: [{ id: "gpt-4o-mini" }], apiKey: KEYS.OPENAI_KEY, chunks: 4 });
    claude = await startFakeAnthropic({ models: [{ id: "claude-haiku-4-5" }], apiKey: KEYS.ANTHROPIC_KEY });
    gemini = await startFakeGoogle({ models: [{ id: "gemini-2.5-flash" }], apiKey: KEYS.GEMINI_KEY });
    dir = mkdtempSync(join(tmpdir(), "gateway-keys-"));
    const toml =
      "[server]\nport = 0\n" +
      backendToml(
        "openai",
        openai.url,
        "openai",
        'api_key_env = "OPENAI_KEY"\norganization = "org-42"\nproject = "proj-7"',
      ) +
      backendToml("claude", claude.url, "anthropic", 'api_key_env = "ANTHROPIC_KEY"') +
      backendToml("gemini", gemini.url, "google", 'api_key_env = "GEMINI_KEY"') +
      `[budget]\nmonthly_limit_usd = 100\nstate_file = "${join(dir, "spend.json")}"\n`;
    const sink = new Writable({
      write(chunk, _encoding, done) {
        logs += chunk.toString();
        done();
      },
    });
    gateway = await startGateway(
      parseConfigText(withOwnStateFiles(toml), "keys.toml", KEYS),
      pino({ level: "trace" }, sink),
    );
    client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: "client-SECRET0", maxRetries: 0 });
  });
  after(async () => {
    await gateway.close();
    await openai.close();
    await claude.close();
    await gemini.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("openai: byte-for-byte pass-through with the configured key, organisation and project", async () => {
    const { data, response } = await client.chat.completions
      .create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }], logprobs: true, n: 2 })
      .withResponse();
    assert.equal(data.choices.length, 2, "fields the translation would refuse pass through to OpenAI");
    assert.equal(response.headers.get("x-gateway-backend-type"), "cloud");
    assert.ok(Number(response.headers.get("x-gateway-cost-estimated")) > 0);
    const sent = openai.requests.findLast((request) => request.path === "/v1/chat/completions")!;
    assert.equal(sent.headers["authorization"], `Bearer ${KEYS.OPENAI_KEY}`);
    assert.equal(sent.headers["openai-organization"], "org-42");
    assert.equal(sent.headers["openai-project"], "proj-7");
  });

  it("openai: a stream without include_usage still counts as spend (the streamed text is counted, a moment after)", async () => {
    const before = (await http(`${gateway.url}/v1/stats`)).json().budget.current_spending_usd;
    const stream = await client.chat.completions.create({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: "a fairly long question to count" }],
      stream: true,
    });
    let text = "";
    for await (const chunk of stream) {
      assert.equal(chunk.usage, undefined, "no usage chunk the client did not ask for");
      text += chunk.choices[0]?.delta.content ?? "";
    }
    assert.equal(text, "echo: a fairly long question to count");
    // Counted on the tokenizer thread once the stream ended.
    await waitUntil(async () => (await http(`${gateway.url}/v1/stats`)).json().budget.current_spending_usd > before, {
      timeoutMs: 5_000,
      what: "the stream's spend",
    });
  });

  it("each backend gets only its own key in its own header; the client's never leaves", async () => {
    await client.chat.completions.create({ model: "claude-haiku-4-5", messages: [{ role: "user", content: "hi" }] });
    await client.chat.completions.create({ model: "gemini-2.5-flash", messages: [{ role: "user", content: "hi" }] });
    const everything = [...openai.requests, ...claude.requests, ...gemini.requests];
    for (const request of everything) {
      const text = JSON.stringify(request);
      assert.ok(!text.includes("client-SECRET0"), "the client's key never reaches a backend");
    }
    for (const request of claude.requests) {
      assert.equal(request.headers["x-api-key"], KEYS.ANTHROPIC_KEY);
      assert.equal(request.headers["authorization"], undefined);
      assert.ok(
        !JSON.stringify(request).includes(KEYS.OPENAI_KEY) && !JSON.stringify(request).includes(KEYS.GEMINI_KEY),
      );
    }
    for (const request of gemini.requests) {
      assert.equal(request.headers["x-goog-api-key"], KEYS.GEMINI_KEY);
      assert.equal(request.query.includes(KEYS.GEMINI_KEY), false);
    }
  });

  it("a rejected key fails over to 502 without echoing it; no log line holds a key", async () => {
    claude.setFault({
      kind: "status",
      status: 401,
      scope: "inference",
      body: {
        type: "error",
        error: { type: "authentication_error", message: `invalid x-api-key ${KEYS.ANTHROPIC_KEY}` },
      },
    });
    const reply = await postJson(`${gateway.url}/v1/chat/completions`, {
      model: "claude-haiku-4-5",
      messages: [{ role: "user", content: "hi" }],
    });
    assert.equal(reply.status, 502);
    assert.ok(!reply.text.includes(KEYS.ANTHROPIC_KEY));
    claude.setFault({ kind: "none" });
    assert.ok(logs.length > 0, "the gateway logged");
    for (const key of [...Object.values(KEYS), "client-SECRET0"])
      assert.ok(!logs.includes(key), `no log line holds ${key}`);
  });
});
