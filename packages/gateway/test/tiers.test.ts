import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type FakeLlmServer, startFakeOpenAI, waitUntil } from "@switchboard/testkit";
import type { RunningGateway } from "../src/gateway.ts";
import { backendToml, Closers, eventCount, hello, postJson, startTestGateway } from "./helpers.ts";

const FLEXIBLE = { "x-gateway-flexible": "true" };

function chatModels(fake: FakeLlmServer): string[] {
  return fake.requests.filter((r) => r.path === "/v1/chat/completions").map((r) => (r.body as { model: string }).model);
}

describe("strict and flexible tiers, privacy through the queue and substitution", () => {
  let low: FakeLlmServer;
  let high: FakeLlmServer;
  let cloud: FakeLlmServer;
  let vault: FakeLlmServer;
  let gateway: RunningGateway;
  const closers = new Closers();

  before(async () => {
    low = await startFakeOpenAI({ models: [{ id: "big" }, { id: "tiny" }] });
    high = await startFakeOpenAI({ models: [{ id: "bigger" }] });
    cloud = await startFakeOpenAI({ models: [{ id: "secret" }, { id: "cloud-best" }] });
    vault = await startFakeOpenAI({ models: [{ id: "secret" }] });
    gateway = await startTestGateway(
      '[[routing.policies]]\nmodel_pattern = "big"\nmin_tier = 2\n' +
        '[[routing.policies]]\nmodel_pattern = "secret"\nprivacy = "restricted"\n' +
        backendToml("low", low.url, "vllm", "tier = 1") +
        backendToml("high", high.url, "vllm", "tier = 3") +
        backendToml("cloud", cloud.url, "generic", 'zone = "open"\ntier = 5') +
        backendToml("vault", vault.url, "vllm", "tier = 1\nmax_concurrent = 1"),
      closers,
    );
  });
  after(async () => {
    await closers.closeAll();
    await Promise.all([low, high, cloud, vault].map((fake) => fake.close()));
  });

  const chat = (model: string, headers: Record<string, string> = {}) =>
    postJson(`${gateway.url}/v1/chat/completions`, hello(model), headers);

  it("strict (the default, or X-Gateway-Strict: true): 503 with required_tier and the rejection headers", async () => {
    const variants: Record<string, string>[] = [
      {},
      { "x-gateway-strict": "true" },
      { "x-gateway-strict": "true", ...FLEXIBLE },
    ];
    for (const headers of variants) {
      const response = await chat("big", headers);
      assert.equal(response.status, 503, response.text);
      const body = response.json();
      assert.equal(body.error.code, "no_available_backend");
      assert.equal(body.error.context.required_tier, 2);
      assert.equal(response.headers["x-gateway-rejection-reasons"], "tier_too_low");
      assert.deepEqual(JSON.parse(String(response.headers["x-gateway-rejection-details"]))[0], {
        backend: "low",
        model: "big",
        reason: "tier_too_low",
        detail: "backend tier 1 is below the minimum tier 2",
      });
      assert.equal(response.headers["x-gateway-fallback-model"], undefined);
    }
    assert.deepEqual(chatModels(high), [], "strict never substitutes");
  });

  it("flexible: a different model of the same or a higher tier, reported in the headers", async () => {
    const response = await chat("big", FLEXIBLE);
    assert.equal(response.status, 200, response.text);
    assert.equal(response.headers["x-gateway-backend"], "high");
    assert.equal(response.headers["x-gateway-fallback-model"], "bigger");
    assert.equal(response.headers["x-gateway-route-reason"], "flexible-substitution");
    assert.deepEqual(chatModels(high), ["bigger"], "the substitute's name is what the backend receives");
    assert.deepEqual(chatModels(low), [], "never a downgrade to the lower tier");
  });

  it("flexible never substitutes for a model that is served: the requested one wins", async () => {
    const response = await chat("tiny", FLEXIBLE);
    assert.equal(response.status, 200);
    assert.equal(response.headers["x-gateway-backend"], "low");
    assert.equal(response.headers["x-gateway-fallback-model"], undefined);
  });

  it("a restricted request never reaches an open backend via the queue or flexible substitution", async () => {
    vault.setFault({ kind: "stall", scope: "inference" });
    const first = chat("secret");
    await waitUntil(() => vault.inFlight === 1, { what: "the restricted backend's only slot to be taken" });
    // The open "cloud" backend lists "secret" itself, has room and a higher tier: neither path may use it.
    const queued = eventCount(gateway, "queued", 1, (event) => event.requestedModel === "secret");
    const strict = chat("secret");
    await queued;
    const flexible = await chat("secret", FLEXIBLE);
    assert.equal(flexible.status, 200, flexible.text);
    assert.equal(flexible.headers["x-gateway-backend"], "low", "substituted only inside the restricted zone");
    assert.equal(flexible.headers["x-gateway-fallback-model"], "tiny");
    assert.equal(flexible.headers["x-gateway-privacy-zone"], "restricted");
    vault.setFault({ kind: "none" });
    for (const response of await Promise.all([first, strict])) {
      assert.equal(response.status, 200, response.text);
      assert.equal(response.headers["x-gateway-backend"], "vault", "the queued request waited for the restricted slot");
      assert.equal(response.headers["x-gateway-privacy-zone"], "restricted");
    }
    assert.deepEqual(chatModels(cloud), [], "the open backend received nothing");
  });

  it("a restricted model whose restricted backend is down: strict 503 naming the zone; flexible stays restricted", async () => {
    vault.setFault({ kind: "refuse" });
    for (let i = 0; i < 3; i++) await gateway.health.checkNow(); // failure_threshold
    try {
      const strict = await chat("secret");
      assert.equal(strict.status, 503, strict.text);
      assert.equal(strict.json().error.context.privacy_zone_required, "restricted");
      assert.match(String(strict.headers["x-gateway-rejection-reasons"]), /privacy_zone_mismatch/);
      const flexible = await chat("secret", FLEXIBLE);
      assert.equal(flexible.headers["x-gateway-privacy-zone"], "restricted");
      assert.deepEqual(chatModels(cloud), []);
    } finally {
      vault.setFault({ kind: "none" });
      for (let i = 0; i < 2; i++) await gateway.health.checkNow(); // recovery_threshold
    }
  });
});
