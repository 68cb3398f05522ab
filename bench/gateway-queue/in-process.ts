// The queue's own cost per request, in process and without HTTP: a request enters the queue (event, deadline timer),
// and when a slot frees it routes again (the real Router), takes the slot and leaves (event). Everything else a queued
// request costs (parsing, relaying) it would cost without the queue too.
import { RequestQueue } from "../../packages/gateway/src/dispatch/request-queue.ts";
import { ServiceTimes } from "../../packages/gateway/src/dispatch/service-times.ts";
import type { BackendState } from "../../packages/gateway/src/fleet/backend-state.ts";
import { ConcurrencySlots } from "../../packages/gateway/src/fleet/slots.ts";
import { chatRequirements } from "../../packages/gateway/src/routing/requirements.ts";
import { Router } from "../../packages/gateway/src/routing/router.ts";
import { EventBus } from "../../packages/gateway/src/telemetry/events.ts";
import { Stats } from "../../packages/gateway/src/telemetry/stats.ts";

/** Microseconds of queue work per request, the median of `rounds` runs of `total` requests over `slots` slots. */
export function queueCostMicros(total: number, slots: number, rounds = 7): number {
  const events = new EventBus();
  new Stats(events);
  const queue = new RequestQueue(
    { enabled: true, maxSize: total, maxWaitSeconds: 600 },
    events,
    new ServiceTimes(events),
  );
  const slotsOf = new ConcurrencySlots(slots);
  const backend = {
    name: "limited",
    settings: { kind: "local", zone: "restricted", tier: 1, priority: 50, maxConcurrent: slots },
    status: "healthy",
    get pending() {
      return slotsOf.inFlight;
    },
    probeLatencyMs: 1,
    modelsById: new Map([["m", { id: "m" }]]),
    slots: slotsOf,
  } as unknown as BackendState;
  const fleet = {
    backendsFor: () => [backend],
    knows: () => true,
    healthyModelIds: () => ["m"],
    modelIds: () => ["m"],
  };
  const router = new Router({
    strategy: "smart",
    weights: { priority: 50, load: 30, latency: 20 },
    aliases: new Map(),
    fallbacks: new Map(),
    policies: [],
  });
  const requirements = chatRequirements({ model: "m", messages: [{ role: "user", content: "hello" }] });
  const request = {
    requestId: "r",
    endpoint: "chat" as const,
    requestedModel: "m",
    stream: false,
    priority: "normal" as const,
  };
  const results: number[] = [];
  for (let round = 0; round < rounds; round++) {
    while (slotsOf.tryAcquire()) {}
    const started = process.hrtime.bigint();
    for (let i = 0; i < total; i++) {
      queue.enter(request, [backend], {
        offer: () => router.decide("m", requirements, fleet).outcome === "route" && slotsOf.tryAcquire(),
        expired: () => {},
      });
    }
    // Each release hands the slot to the next queued request (synchronously, as in the gateway).
    while (queue.depth > 0) {
      slotsOf.release();
      queue.slotFreed(backend);
    }
    results.push(Number(process.hrtime.bigint() - started) / 1000 / total);
    while (slotsOf.inFlight > 0) slotsOf.release();
  }
  results.sort((a, b) => a - b);
  return results[Math.floor(results.length / 2)]!;
}
