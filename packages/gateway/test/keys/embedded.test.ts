// Keys and per-key limits on one gateway with the embedded store: authentication on every route but /health, the
// admin API, model lists, requests and tokens per minute with OpenAI's headers, concurrency, budgets, revocation,
// keys kept across a restart, and hostile admin bodies answered with designed 400s.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type FakeLlmServer, startFakeAnthropic, startFakeOpenAI, waitUntil } from "@switchboard/testkit";
import fc from "fast-check";
import { request } from "undici";
import { backendToml, Closers, hello, http, postJson, startTestGateway } from "../helpers.ts";

const MASTER = "master-key-for-tests-0123456789";
const ANTHROPIC_KEY = "sk-ant-keys";
const admin = { authorization: `Bearer ${MASTER}` };
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

async function send(url: string, method: "PATCH" | "DELETE" | "GET", body?: unknown, headers = admin) {
  const response = await request(url, {
    method,
    headers: body === undefined ? headers : { ...headers, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.body.text();
  return { status: response.statusCode, headers: response.headers, json: () => JSON.parse(text) };
}

describe("keys and limits (embedded store)", () => {
  let local: FakeLlmServer;
  let claude: FakeLlmServer;
  let dir: string;
  const closers = new Closers();

  before(async () => {
    local = await startFakeOpenAI({ models: [{ id: "llama3" }, { id: "qwen" }] });
    claude = await startFakeAnthropic({ models: [{ id: "claude-x" }], apiKey: ANTHROPIC_KEY });
    dir = mkdtempSync(join(tmpdir(), "gateway-keys-"));
  });
  after(async () => {
    await closers.closeAll();
    await local.close();
    await claude.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /**
   * A gateway on a state file of its own, or on `file`: the gateways of earlier tests keep running until the suite
   * ends, and a state file has one gateway at a time.
   */
  let files = 0;
  const start = (extra = "", file = `state-${++files}.json`) =>
    startTestGateway(
      backendToml("local", local.url) +
        backendToml("claude", claude.url, "anthropic", 'api_key_env = "ANTHROPIC_KEY"') +
        `[pricing."claude-x"]\ninput_usd_per_mtok = 100000\noutput_usd_per_mtok = 100000\n` +
        `[auth]\nmaster_key_env = "MASTER"\n${extra}[state]\npath = "${join(dir, file)}"\n`,
      closers,
      { MASTER, ANTHROPIC_KEY },
    );

  const createKey = async (url: string, body: Record<string, unknown>) => {
    const made = await postJson(`${url}/v1/keys`, body, admin);
    assert.equal(made.status, 201, made.text);
    return made.json() as { id: string; key: string; name: string };
  };

  it("without [auth] nothing changes: no key needed, the admin API says it is off", async () => {
    const gateway = await startTestGateway(backendToml("local", local.url), closers);
    assert.equal((await postJson(`${gateway.url}/v1/chat/completions`, hello("llama3"))).status, 200);
    const keys = await postJson(`${gateway.url}/v1/keys`, { name: "x" });
    assert.equal(keys.status, 404);
    assert.equal(keys.json().error.code, "auth_disabled");
  });

  it("needs a key on API routes; /health stays open; /metrics needs the master key", async () => {
    const gateway = await start();
    const missing = await postJson(`${gateway.url}/v1/chat/completions`, hello("llama3"));
    assert.equal(missing.status, 401);
    assert.equal(missing.json().error.code, "invalid_api_key");
    assert.equal(missing.json().error.type, "invalid_request_error");
    const wrong = await postJson(`${gateway.url}/v1/chat/completions`, hello("llama3"), bearer("sk-sb-nope"));
    assert.equal(wrong.status, 401);
    assert.equal((await http(`${gateway.url}/v1/models`)).status, 401);
    assert.equal((await http(`${gateway.url}/nowhere`)).status, 401, "no route probing without a key");
    assert.equal((await http(`${gateway.url}/health`)).status, 200);
    const metrics = await http(`${gateway.url}/metrics`);
    assert.equal(metrics.status, 401);
    assert.match(String(metrics.headers["www-authenticate"]), /^Basic /);
    const basic = `Basic ${Buffer.from(`admin:${MASTER}`).toString("base64")}`;
    assert.equal((await http(`${gateway.url}/metrics`, { headers: { authorization: basic } })).status, 200);
    const master = await postJson(`${gateway.url}/v1/chat/completions`, hello("llama3"), admin);
    assert.equal(master.status, 200);
  });

  it("a key made by the admin API works, is shown once, is listed without its secret, and is revoked", async () => {
    const gateway = await start("", "admin-api.json");
    const made = await createKey(gateway.url, { name: "team-a", metadata: { team: "a" } });
    assert.match(made.key, /^sk-sb-[\w-]{32}$/);
    const ok = await postJson(`${gateway.url}/v1/chat/completions`, hello("llama3"), bearer(made.key));
    assert.equal(ok.status, 200);
    const list = await send(`${gateway.url}/v1/keys`, "GET");
    assert.equal(list.status, 200);
    const text = JSON.stringify(list.json());
    assert.ok(!text.includes(made.key), "the secret is never listed");
    const one = await send(`${gateway.url}/v1/keys/${made.id}`, "GET");
    assert.equal(one.json().name, "team-a");
    assert.equal(one.json().requests, 1);
    assert.ok(one.json().tokens > 0);
    assert.equal(one.json().key, undefined);
    // A virtual key is not the master key.
    const asKey = await postJson(`${gateway.url}/v1/keys`, { name: "b" }, bearer(made.key));
    assert.equal(asKey.status, 403);
    assert.equal((await http(`${gateway.url}/metrics`, { headers: bearer(made.key) })).status, 403);
    const revoked = await send(`${gateway.url}/v1/keys/${made.id}`, "DELETE");
    assert.equal(revoked.status, 200);
    assert.equal(revoked.json().deleted, true);
    const after = await postJson(`${gateway.url}/v1/chat/completions`, hello("llama3"), bearer(made.key));
    assert.equal(after.status, 401);
    assert.equal((await send(`${gateway.url}/v1/keys/${made.id}`, "GET")).status, 404);
    const state = readFileSync(join(dir, "admin-api.json"), "utf8");
    assert.ok(!state.includes(made.key), "the state file holds hashes, never secrets");
  });

  it("models outside the key's list: 403 model_not_allowed", async () => {
    const gateway = await start();
    const made = await createKey(gateway.url, { name: "only-qwen", models: ["qwen"] });
    assert.equal((await postJson(`${gateway.url}/v1/chat/completions`, hello("qwen"), bearer(made.key))).status, 200);
    const refused = await postJson(`${gateway.url}/v1/chat/completions`, hello("llama3"), bearer(made.key));
    assert.equal(refused.status, 403);
    assert.equal(refused.json().error.code, "model_not_allowed");
    // Listings show such a key only its models; the master key sees them all.
    const listed = await http(`${gateway.url}/v1/models`, { headers: bearer(made.key) });
    assert.deepEqual(
      listed.json().data.map((model: { id: string }) => model.id),
      ["qwen"],
    );
    assert.equal((await http(`${gateway.url}/v1/models/llama3`, { headers: bearer(made.key) })).status, 404);
    const tags = await http(`${gateway.url}/api/tags`, { headers: bearer(made.key) });
    assert.deepEqual(
      tags.json().models.map((model: { name: string }) => model.name),
      ["qwen"],
    );
    const all = await http(`${gateway.url}/v1/models`, { headers: admin });
    assert.ok(all.json().data.length >= 3);
  });

  it("rpm: 429 rate_limit_exceeded with Retry-After and x-ratelimit-* headers on every answer", async () => {
    const gateway = await start();
    const made = await createKey(gateway.url, { name: "slow", rpm: 3 });
    const answers = [];
    for (let i = 0; i < 4; i++) {
      answers.push(await postJson(`${gateway.url}/v1/chat/completions`, hello("llama3"), bearer(made.key)));
    }
    assert.deepEqual(
      answers.map((a) => a.status),
      [200, 200, 200, 429],
    );
    assert.equal(answers[0]!.headers["x-ratelimit-limit-requests"], "3");
    assert.equal(answers[0]!.headers["x-ratelimit-remaining-requests"], "2");
    assert.equal(answers[2]!.headers["x-ratelimit-remaining-requests"], "0");
    assert.match(String(answers[0]!.headers["x-ratelimit-reset-requests"]), /^\d+(\.\d+)?s$/);
    const refused = answers[3]!;
    assert.equal(refused.json().error.code, "rate_limit_exceeded");
    assert.equal(refused.json().error.type, "requests");
    assert.ok(Number(refused.headers["retry-after"]) >= 1);
    // PATCH lifts the limit.
    const patched = await send(`${gateway.url}/v1/keys/${made.id}`, "PATCH", { rpm: null });
    assert.equal(patched.status, 200);
    assert.equal(patched.json().rpm, null);
    assert.equal((await postJson(`${gateway.url}/v1/chat/completions`, hello("llama3"), bearer(made.key))).status, 200);
  });

  it("tpm counts real usage: once the tokens are used, 429 with type tokens", async () => {
    const gateway = await start();
    const made = await createKey(gateway.url, { name: "tokens", tpm: 5 });
    const first = await postJson(`${gateway.url}/v1/chat/completions`, hello("llama3"), bearer(made.key));
    assert.equal(first.status, 200);
    assert.equal(first.headers["x-ratelimit-limit-tokens"], "5");
    const second = await postJson(`${gateway.url}/v1/chat/completions`, hello("llama3"), bearer(made.key));
    assert.equal(second.status, 429);
    assert.equal(second.json().error.type, "tokens");
    assert.equal(second.headers["x-ratelimit-remaining-tokens"], "0");
  });

  it("budget_usd: past it, 429 insufficient_quota", async () => {
    const gateway = await start();
    const made = await createKey(gateway.url, { name: "spender", budget_usd: 0.5, budget_period: "daily" });
    const first = await postJson(`${gateway.url}/v1/chat/completions`, hello("claude-x"), bearer(made.key));
    assert.equal(first.status, 200, first.text);
    const view = (await send(`${gateway.url}/v1/keys/${made.id}`, "GET")).json();
    assert.ok(view.spend_usd >= 0.5, `spend ${view.spend_usd}`);
    const refused = await postJson(`${gateway.url}/v1/chat/completions`, hello("claude-x"), bearer(made.key));
    assert.equal(refused.status, 429);
    assert.equal(refused.json().error.code, "insufficient_quota");
    const metrics = await http(`${gateway.url}/metrics`, { headers: admin });
    assert.match(metrics.text, /gateway_key_requests_total\{key="spender",status="200"\} 1/);
    assert.match(metrics.text, /gateway_key_spend_usd\{key="spender"\} [\d.]+/);
    assert.match(metrics.text, /^gateway_state_store_up 1$/m);
  });

  it("max_concurrent: a second request while one is in flight gets 429", async () => {
    const gateway = await start();
    const made = await createKey(gateway.url, { name: "one-at-a-time", max_concurrent: 1 });
    local.setFault({ kind: "stall", scope: "inference" });
    try {
      const held = postJson(`${gateway.url}/v1/chat/completions`, hello("llama3"), bearer(made.key));
      await waitUntil(() => local.inFlight === 1, { what: "the first request at the backend" });
      const second = await postJson(`${gateway.url}/v1/chat/completions`, hello("llama3"), bearer(made.key));
      assert.equal(second.status, 429);
      local.setFault({ kind: "none" });
      assert.equal((await held).status, 200);
    } finally {
      local.setFault({ kind: "none" });
    }
    assert.equal((await postJson(`${gateway.url}/v1/chat/completions`, hello("llama3"), bearer(made.key))).status, 200);
  });

  it("keys survive a restart of the gateway (the embedded state file)", async () => {
    const first = await start("", "restart.json");
    const made = await createKey(first.url, { name: "durable" });
    await first.close();
    const second = await start("", "restart.json");
    assert.equal((await postJson(`${second.url}/v1/chat/completions`, hello("llama3"), bearer(made.key))).status, 200);
  });

  it("hostile admin bodies get designed 400s, never a 500", async () => {
    const gateway = await start();
    const field = fc.constantFrom(
      "name",
      "models",
      "rpm",
      "tpm",
      "max_concurrent",
      "budget_usd",
      "budget_period",
      "expires_at",
      "metadata",
      "__proto__",
      "x",
    );
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.dictionary(field, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 })),
        fc.boolean(),
        async (body, patch) => {
          const url = patch ? `${gateway.url}/v1/keys/key_missing` : `${gateway.url}/v1/keys`;
          const answer = patch ? await send(url, "PATCH", body) : await postJson(url, body, admin);
          assert.ok([200, 201, 400, 404].includes(answer.status), `${answer.status} for ${JSON.stringify(body)}`);
        },
      ),
      { numRuns: 150 },
    );
    assert.equal((await http(`${gateway.url}/health`)).status, 200);
  });
});
