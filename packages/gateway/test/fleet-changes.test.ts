import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type FakeLlmServer, startFakeOpenAI, waitUntil } from "@switchboard/testkit";
import OpenAI from "openai";
import type { BackendSettings } from "../src/config/types.ts";
import type { RunningGateway } from "../src/gateway.ts";
import { parseConfigText } from "../src/load-config.ts";
import type { GatewayEvent } from "../src/telemetry/events.ts";
import { backendToml, Closers, http, startTestGateway } from "./helpers.ts";

/** A backend's settings as the config loader builds them (what discovery and the lifecycle API hand the fleet). */
function settingsFor(name: string, url: string): BackendSettings {
  return parseConfigText(`[server]\nport = 0\n${backendToml(name, url)}`, "test.toml", {}).backends[0]!;
}

describe("the fleet changes while requests are in flight", () => {
  let first: FakeLlmServer;
  let second: FakeLlmServer;
  let gateway: RunningGateway;
  let client: OpenAI;
  const closers = new Closers();
  const changes: GatewayEvent[] = [];

  before(async () => {
    first = await startFakeOpenAI({ models: [{ id: "m" }, { id: "long" }], chunks: 20, chunkIntervalMs: 20 });
    second = await startFakeOpenAI({ models: [{ id: "m" }, { id: "only-second" }] });
    gateway = await startTestGateway(
      `[health_check]\ninterval_seconds = 3600\n${backendToml("first", first.url)}`,
      closers,
    );
    gateway.events.onAny((event) => {
      if (event.type === "backend_changed" || event.type === "models_changed") changes.push(event);
    });
    client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: "x", maxRetries: 0 });
  });
  after(async () => {
    await closers.closeAll();
    await Promise.all([first.close(), second.close()]);
  });

  it("a backend added at run time serves at once, with no failed request under load", async () => {
    let failures = 0;
    let running = true;
    const load = (async () => {
      while (running) {
        await client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "hi" }] }).catch(() => {
          failures++;
        });
      }
    })();
    await gateway.fleet.add(settingsFor("second", second.url), "api");
    const answer = await client.chat.completions.create({
      model: "only-second",
      messages: [{ role: "user", content: "hi" }],
    });
    assert.match(answer.choices[0]!.message.content ?? "", /hi/);
    running = false;
    await load;
    assert.equal(failures, 0);
    assert.deepEqual(
      changes
        .filter((event) => event.type === "backend_changed")
        .map((event) => [event.change, event.backend, event.source]),
      [["added", "second", "api"]],
    );
    assert.ok(changes.some((event) => event.type === "models_changed" && event.added.includes("only-second")));
    const models = (await http(`${gateway.url}/v1/models`)).json().data.map((model: { id: string }) => model.id);
    assert.ok(models.includes("only-second"));
    await assert.rejects(gateway.fleet.add(settingsFor("second", second.url), "api"), /already exists/);
  });

  it("a backend removed mid-stream finishes that stream, and takes no new request", async () => {
    // "long" is only on `first`, which streams slowly.
    const stream = await client.chat.completions.create({
      model: "long",
      messages: [{ role: "user", content: "a long answer" }],
      stream: true,
    });
    const chunks: string[] = [];
    const reading = (async () => {
      for await (const chunk of stream) chunks.push(chunk.choices[0]?.delta?.content ?? "");
    })();
    await waitUntil(() => chunks.length > 0, { what: "the first chunk" });
    const serving = gateway.registry.get("first")!;
    assert.equal(serving.pending, 1);
    assert.ok(gateway.fleet.remove("first"));
    assert.ok(!gateway.registry.backends.includes(serving));
    await reading;
    assert.equal(chunks.join(""), "echo: a long answer", "the whole answer arrived");
    // New requests go to the backend that is left.
    const answer = await client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "hi" }] });
    assert.ok(answer.choices[0]!.message.content);
    assert.equal(gateway.registry.backends.length, 1);
    assert.ok(changes.some((event) => event.type === "backend_changed" && event.change === "removed"));
    assert.equal(gateway.fleet.remove("no-such-backend"), false);
  });
});
