import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ModelInfo } from "../../src/backends/types.ts";
import type { Capability } from "../../src/config/types.ts";
import { chatRequirements, embeddingsRequirements } from "../../src/routing/requirements.ts";
import { type FleetView, Router, type RouterOptions } from "../../src/routing/router.ts";
import type { Candidate } from "../../src/routing/types.ts";

interface Fake extends Candidate {
  pending: number;
}

function backend(
  name: string,
  models: Record<string, { caps?: Capability[]; ctx?: number }>,
  extra: Partial<{
    priority: number;
    zone: "open" | "restricted";
    tier: number;
    max: number;
    status: "healthy" | "unhealthy";
    pending: number;
    latency: number;
  }> = {},
): Fake {
  const modelsById = new Map<string, ModelInfo>(
    Object.entries(models).map(([id, facts]) => [
      id,
      { id, capabilities: facts.caps ? new Set(facts.caps) : undefined, contextLength: facts.ctx },
    ]),
  );
  return {
    name,
    settings: {
      kind: "local",
      zone: extra.zone ?? "restricted",
      tier: extra.tier ?? 1,
      priority: extra.priority ?? 50,
      maxConcurrent: extra.max,
    },
    status: extra.status ?? "healthy",
    pending: extra.pending ?? 0,
    probeLatencyMs: extra.latency,
    modelsById,
  };
}

function fleet(backends: Fake[]): FleetView<Fake> {
  return {
    backendsFor: (model) => backends.filter((b) => b.modelsById.has(model)),
    knows: (model) => backends.some((b) => b.modelsById.has(model)),
    modelIds: () => new Set(backends.flatMap((b) => [...b.modelsById.keys()])),
    healthyModelIds: () =>
      [...new Set(backends.filter((b) => b.status === "healthy").flatMap((b) => [...b.modelsById.keys()]))].sort(),
  };
}

type TableOptions = Omit<Partial<RouterOptions>, "aliases" | "fallbacks"> & {
  aliases?: Record<string, string>;
  fallbacks?: Record<string, string[]>;
};

function router({ aliases = {}, fallbacks = {}, ...options }: TableOptions = {}): Router {
  return new Router({
    strategy: "smart",
    weights: { priority: 50, load: 30, latency: 20 },
    aliases: new Map(Object.entries(aliases)),
    fallbacks: new Map(Object.entries(fallbacks)),
    policies: [],
    ...options,
  });
}

const chat = (body: Record<string, unknown> = {}) =>
  chatRequirements({ model: "m", messages: [{ role: "user", content: "hello" }], ...body });

describe("routing", () => {
  it("reads what a chat request needs", () => {
    const needs = chatRequirements({
      model: "m",
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "x".repeat(40) },
            { type: "image_url", image_url: { url: "data:" } },
          ],
        },
      ],
      tools: [{ type: "function", function: { name: "f" } }],
      response_format: { type: "json_schema" },
    });
    assert.deepEqual(needs, { kind: "chat", vision: true, tools: true, json: true, estimatedTokens: 10 });
    assert.equal(chat({ tools: [] }).tools, false);
    assert.equal(embeddingsRequirements(["abcd", "efgh"]).estimatedTokens, 2);
  });

  it("resolves aliases up to three hops and sends the target name", () => {
    const r = router({ aliases: { a: "b", b: "c", c: "llama" } });
    const decision = r.decide("a", chat(), fleet([backend("one", { llama: {} })]));
    assert.equal(decision.outcome, "route");
    if (decision.outcome !== "route") return;
    assert.equal(decision.targets[0]!.model, "llama");
    assert.equal(decision.reason, "capability-match");
  });

  it("orders by smart score: priority, load, latency", () => {
    const backends = [
      backend("slow", { m: {} }, { priority: 10, latency: 900 }),
      backend("busy", { m: {} }, { priority: 10, pending: 90 }),
      backend("best", { m: {} }, { priority: 10 }),
      backend("low", { m: {} }, { priority: 90 }),
    ];
    const decision = router().decide("m", chat(), fleet(backends));
    assert.equal(decision.outcome, "route");
    if (decision.outcome === "route")
      assert.deepEqual(
        decision.targets.map((t) => t.backend.name),
        ["best", "slow", "busy", "low"],
      );
  });

  it("round_robin rotates, priority_only sorts, random picks by the given source", () => {
    const backends = [
      backend("a", { m: {} }, { priority: 3 }),
      backend("b", { m: {} }, { priority: 1 }),
      backend("c", { m: {} }, { priority: 2 }),
    ];
    const rr = router({ strategy: "round_robin" });
    const firsts = [0, 1, 2, 3].map(() => {
      const d = rr.decide("m", chat(), fleet(backends));
      return d.outcome === "route" ? d.targets[0]!.backend.name : "";
    });
    assert.deepEqual(firsts, ["a", "b", "c", "a"]);
    const prio = router({ strategy: "priority_only" }).decide("m", chat(), fleet(backends));
    if (prio.outcome === "route")
      assert.deepEqual(
        prio.targets.map((t) => t.backend.name),
        ["b", "c", "a"],
      );
    const random = router({ strategy: "random", random: () => 0.99 }).decide("m", chat(), fleet(backends));
    if (random.outcome === "route")
      assert.deepEqual(
        random.targets.map((t) => t.backend.name),
        ["c", "b", "a"],
      );
  });

  it("keeps a request only one API's backends can serve for them", () => {
    const anthropic = {
      ...backend("claude", { m: {} }, { priority: 90 }),
      nativeApis: new Set(["anthropic-messages" as const]),
    };
    const backends = [backend("compatible", { m: {} }, { priority: 10 }), anthropic];
    const decision = router().decide("m", { ...chat(), api: "anthropic-messages" }, fleet(backends));
    assert.equal(decision.outcome, "route");
    if (decision.outcome === "route") {
      assert.deepEqual(
        decision.targets.map((t) => t.backend.name),
        ["claude"],
      );
      assert.deepEqual(
        decision.rejections.map((x) => [x.backend, x.reason]),
        [["compatible", "api_unsupported"]],
      );
    }
    const only = router().decide("m", { ...chat(), api: "anthropic-messages" }, fleet([backends[0]!]));
    assert.equal(only.outcome, "unavailable");
    const any = router().decide("m", chat(), fleet(backends));
    if (any.outcome === "route") assert.equal(any.targets.length, 2, "without the requirement both serve");
  });

  it("filters on capabilities and records why", () => {
    const backends = [
      backend("plain", { m: { caps: ["completion"], ctx: 8 } }),
      backend("unknown", { m: {} }),
      backend("vision", { m: { caps: ["completion", "vision", "tools", "json"] } }),
    ];
    const r = router();
    const vision = r.decide(
      "m",
      chat({ messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "x" } }] }] }),
      fleet(backends),
    );
    assert.equal(vision.outcome, "route");
    if (vision.outcome === "route") {
      assert.deepEqual(
        vision.targets.map((t) => t.backend.name),
        ["unknown", "vision"],
      );
      assert.deepEqual(
        vision.rejections.map((x) => [x.backend, x.reason]),
        [["plain", "vision_unsupported"]],
      );
    }
    const long = r.decide("m", chat({ messages: [{ role: "user", content: "x".repeat(100) }] }), fleet(backends));
    if (long.outcome === "route")
      assert.deepEqual(
        long.rejections.map((x) => x.reason),
        ["context_length_exceeded"],
      );
    const tools = r.decide("m", chat({ tools: [{}] }), fleet(backends));
    if (tools.outcome === "route")
      assert.deepEqual(
        tools.rejections.map((x) => x.reason),
        ["tools_unsupported"],
      );
    const json = r.decide("m", chat({ response_format: { type: "json_object" } }), fleet(backends));
    if (json.outcome === "route")
      assert.deepEqual(
        json.rejections.map((x) => x.reason),
        ["json_mode_unsupported"],
      );
    const embed = r.decide("m", embeddingsRequirements("x"), fleet([backend("e", { m: { caps: ["completion"] } })]));
    assert.equal(embed.outcome, "unavailable");
    if (embed.outcome === "unavailable") assert.equal(embed.rejections[0]!.reason, "embeddings_unsupported");
  });

  it("unknown model: lists what is available; known but unavailable: reasons and context", () => {
    const backends = [backend("up", { a: {} }), backend("down", { b: {} }, { status: "unhealthy" })];
    const unknown = router().decide("zzz", chat(), fleet(backends));
    assert.deepEqual(unknown, { outcome: "unknown_model", resolvedModel: "zzz", available: ["a"] });
    const down = router().decide("b", chat(), fleet(backends));
    assert.equal(down.outcome, "unavailable");
    if (down.outcome !== "unavailable") return;
    assert.deepEqual(down.rejections, [
      { backend: "down", model: "b", reason: "unhealthy", detail: "backend is unhealthy" },
    ]);
    assert.equal(down.requiredTier, 1);
    assert.equal(down.privacyZoneRequired, "open");
    assert.deepEqual(down.availableBackends, []);
  });

  it("falls back along the chain and reports failover", () => {
    const backends = [backend("down", { big: {} }, { status: "unhealthy" }), backend("up", { small: {} })];
    const r = router({ fallbacks: { big: ["missing", "small-alias"] }, aliases: { "small-alias": "small" } });
    const decision = r.decide("big", chat(), fleet(backends));
    assert.equal(decision.outcome, "route");
    if (decision.outcome !== "route") return;
    assert.deepEqual(
      decision.targets.map((t) => [t.backend.name, t.model, t.fallback]),
      [["up", "small", true]],
    );
    assert.equal(decision.reason, "failover");
    const healthy = router({ fallbacks: { small: ["big"] } }).decide(
      "small",
      chat(),
      fleet([backend("a", { small: {} }), backend("b", { big: {} })]),
    );
    if (healthy.outcome === "route")
      assert.deepEqual(
        healthy.targets.map((t) => [t.backend.name, t.fallback]),
        [
          ["a", false],
          ["b", true],
        ],
      );
  });

  it("applies privacy, tier and capacity filters", () => {
    const policies = [
      { model_pattern: "secret-*", privacy: "restricted" as const, min_tier: 2, fallback_allowed: true },
    ];
    const backends = [
      backend("cloud", { "secret-1": {} }, { zone: "open", tier: 5 }),
      backend("small", { "secret-1": {} }, { tier: 1 }),
      backend("full", { "secret-1": {} }, { tier: 3, max: 2, pending: 2 }),
    ];
    const decision = router({ policies }).decide("secret-1", chat(), fleet(backends));
    assert.equal(decision.outcome, "at_capacity", "only capacity turned the last one away: the request may wait");
    if (decision.outcome !== "at_capacity") return;
    assert.deepEqual(
      decision.blocked.map((t) => t.backend.name),
      ["full"],
    );
    assert.deepEqual(
      decision.rejections.map((x) => [x.backend, x.reason]),
      [
        ["cloud", "privacy_zone_mismatch"],
        ["small", "tier_too_low"],
        ["full", "at_capacity"],
      ],
    );
    assert.equal(decision.requiredTier, 2);
    assert.equal(decision.privacyZoneRequired, "restricted");
    assert.deepEqual(decision.availableBackends, ["cloud", "small", "full"]);
    backends[2]!.pending = 1;
    const routed = router({ policies }).decide("secret-1", chat(), fleet(backends));
    if (routed.outcome === "route") {
      assert.equal(routed.targets[0]!.backend.name, "full");
      assert.equal(routed.reason, "privacy-requirement");
    }
    const overflow = router().decide(
      "m",
      chat(),
      fleet([backend("x", { m: {} }, { max: 1, pending: 1 }), backend("y", { m: {} })]),
    );
    if (overflow.outcome === "route") assert.equal(overflow.reason, "capacity-overflow");
  });

  it("smart: a slow time to first token lowers a backend's score; an excluded one is left out (quality)", () => {
    const backends = [backend("slow", { m: {} }, { priority: 10 }), backend("fast", { m: {} }, { priority: 20 })];
    const quality = {
      admits: (name: string) => name !== "excluded",
      ttftFactor: (name: string) => (name === "slow" ? 0.2 : 1),
    };
    const decision = router({ quality }).decide("m", chat(), fleet(backends));
    assert.equal(decision.outcome, "route");
    if (decision.outcome === "route")
      assert.deepEqual(
        decision.targets.map((t) => t.backend.name),
        ["fast", "slow"],
      );
    const left = router({ quality }).decide("m", chat(), fleet([backend("excluded", { m: {} })]));
    assert.equal(left.outcome, "unavailable");
    if (left.outcome === "unavailable") assert.equal(left.rejections[0]?.reason, "error_rate_too_high");
  });
});
