import assert from "node:assert/strict";
import { networkInterfaces } from "node:os";
import { after, before, describe, it } from "node:test";
import { type FakeLlmServer, startFakeOllama, waitUntil } from "@switchboard/testkit";
import { Bonjour, type Service } from "bonjour-service";
import OpenAI from "openai";
import type { RunningGateway } from "../src/gateway.ts";
import type { GatewayEvent } from "../src/telemetry/events.ts";
import { backendToml, Closers, startTestGateway } from "./helpers.ts";

/** mDNS is announced with this machine's addresses: the fake Ollama listens on the first IPv4 one, not loopback. */
const address = Object.values(networkInterfaces())
  .flat()
  .find((entry) => entry && entry.family === "IPv4" && !entry.internal)?.address;

// A service type of this run's own (an "_ollama…" type, so it is taken for Ollama as _ollama._tcp is): gateways of
// other tests running meanwhile, and other machines, never see the advertisement.
const SERVICE = `ollama-sbt${process.pid}`;

describe("mDNS discovery over real multicast", {
  skip: address ? false : "no non-loopback IPv4 interface for multicast",
}, () => {
  let announced: FakeLlmServer;
  let configured: FakeLlmServer;
  let gateway: RunningGateway;
  let publisher: Bonjour;
  let service: Service;
  const closers = new Closers();
  const changes: GatewayEvent[] = [];

  before(async () => {
    announced = await startFakeOllama({ host: address!, models: [{ id: "found-model" }] });
    configured = await startFakeOllama({ host: address!, models: [{ id: "static-model" }] });
    gateway = await startTestGateway(
      `[discovery]\nservice_types = ["_${SERVICE}._tcp.local"]\ngrace_period_seconds = 1\n` +
        `[health_check]\ninterval_seconds = 3600\n${backendToml("configured", configured.url, "ollama")}`,
      closers,
    );
    gateway.events.onAny((event) => {
      if (event.type === "backend_changed") changes.push(event);
    });
    publisher = new Bonjour();
    closers.after(() => new Promise<void>((resolve) => publisher.destroy(() => resolve())));
  });
  after(async () => {
    await closers.closeAll();
    await Promise.all([announced.close(), configured.close()]);
  });

  it("adds an announced backend, serves a chat through it, and removes it after the grace period", async () => {
    const port = Number(new URL(announced.url).port);
    service = publisher.publish({ name: "Lab GPU Box", type: SERVICE, port, txt: { version: "0.12.6" } });
    // The configured backend's URL is announced too: static config wins, no duplicate.
    publisher.publish({ name: "configured twin", type: SERVICE, port: Number(new URL(configured.url).port) });
    await waitUntil(() => gateway.registry.get("lab-gpu-box")?.healthy, {
      what: "the announced backend",
      timeoutMs: 15_000,
    });
    assert.equal(gateway.registry.sourceOf("lab-gpu-box"), "mdns");
    assert.equal(gateway.registry.get("lab-gpu-box")!.settings.type, "ollama");
    const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: "x", maxRetries: 0 });
    const answer = await client.chat.completions.create({
      model: "found-model",
      messages: [{ role: "user", content: "hi" }],
    });
    assert.match(answer.choices[0]!.message.content ?? "", /hi/);
    assert.equal(gateway.registry.backends.length, 2, "the configured twin was not added");

    await new Promise<void>((resolve) => service.stop?.(() => resolve()));
    await waitUntil(() => gateway.registry.get("lab-gpu-box") === undefined, {
      what: "the backend's removal after the goodbye and the grace period",
      timeoutMs: 15_000,
    });
    assert.deepEqual(
      changes.map((event) => event.type === "backend_changed" && [event.change, event.backend, event.source]),
      [
        ["added", "lab-gpu-box", "mdns"],
        ["removed", "lab-gpu-box", "mdns"],
      ],
    );
    assert.ok(gateway.registry.get("configured"), "static backends are never removed by discovery");
  });
});
