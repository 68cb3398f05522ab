// Lifecycle operations under stress: a load of a model already in service keeps it in service, an operation that
// never ends is cut by [lifecycle] operation_timeout_seconds or cancelled, and every route agrees on the bounds of
// ids and on 404 operation_not_found.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type FakeLlmServer, startFakeOllama } from "@switchboard/testkit";
import fc from "fast-check";
import type { ModelLifecycle } from "../src/backends/types.ts";
import type { RunningGateway } from "../src/gateway.ts";
import type { OperationView } from "../src/telemetry/events.ts";
import { backendToml, Closers, http, postJson, startTestGateway } from "./helpers.ts";

/** Something the test releases: a backend call held open until then. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

/** Resolves with the next operation event `match` accepts; rejects after 10 s. */
function nextOperation(gateway: RunningGateway, match: (view: OperationView) => boolean): Promise<OperationView> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error("no such operation event within 10 s"));
    }, 10_000);
    const off = gateway.events.on("operation", (event: { operation: OperationView }) => {
      if (!match(event.operation)) return;
      clearTimeout(timer);
      off();
      resolve(event.operation);
    });
  });
}

/** The lifecycle of backend `name`, whose calls the test may replace (the backend's real module object). */
function lifecycleOf(gateway: RunningGateway, name: string): ModelLifecycle {
  return gateway.registry.get(name)!.backend.lifecycle!;
}

/** A pull that never ends on its own, as a stuck registry would: it only ends when the operation aborts it. */
function pullForever(lifecycle: ModelLifecycle, aborted: AbortSignal[]): void {
  lifecycle.pull = (_model, onProgress, signal) => {
    onProgress({ detail: "pulling manifest" });
    aborted.push(signal);
    return new Promise((_resolve, reject) => signal.addEventListener("abort", () => reject(signal.reason)));
  };
}

describe("lifecycle operations under stress", () => {
  let solo: FakeLlmServer;
  let gateway: RunningGateway;
  let quick: RunningGateway;
  const closers = new Closers();

  before(async () => {
    // The only backend serving "base", which it lists and holds in memory.
    solo = await startFakeOllama({ models: [{ id: "base" }], library: [{ id: "huge" }] });
    gateway = await startTestGateway(
      `[health_check]\ninterval_seconds = 3600\n${backendToml("solo", solo.url, "ollama")}`,
      closers,
    );
    quick = await startTestGateway(
      `[health_check]\ninterval_seconds = 3600\n[lifecycle]\noperation_timeout_seconds = 0.05\n${backendToml("solo", solo.url, "ollama")}`,
      closers,
    );
  });
  after(async () => {
    await closers.closeAll();
    await solo.close();
  });

  it("a load of a model the backend already lists and holds keeps it in service while it runs", async () => {
    const lifecycle = lifecycleOf(gateway, "solo");
    const load = lifecycle.load;
    const held = gate();
    const entered = gate();
    lifecycle.load = async (model, signal) => {
      entered.open();
      await held.opened;
      return load(model, signal);
    };
    try {
      const started = await postJson(`${gateway.url}/v1/models/load`, { model: "base", backend: "solo" });
      assert.equal(started.status, 202);
      await entered.opened;
      const chats = await Promise.all(
        Array.from({ length: 20 }, () =>
          postJson(`${gateway.url}/v1/chat/completions`, {
            model: "base",
            messages: [{ role: "user", content: "hi" }],
          }),
        ),
      );
      const statuses = chats.map((chat) => chat.status);
      assert.deepEqual(statuses, Array(20).fill(200), `while the load runs: ${statuses.join(",")}`);
      const done = nextOperation(gateway, (view) => view.id === started.json().id && view.status !== "running");
      held.open();
      assert.equal((await done).status, "completed");
    } finally {
      lifecycle.load = load;
    }
  });

  it("an operation that never ends fails at operation_timeout_seconds, freeing its backend", async () => {
    const lifecycle = lifecycleOf(quick, "solo");
    const pull = lifecycle.pull;
    const aborted: AbortSignal[] = [];
    pullForever(lifecycle, aborted);
    try {
      const failed = nextOperation(quick, (view) => view.status === "failed");
      const started = await postJson(`${quick.url}/v1/models/load`, { model: "huge", backend: "solo" });
      assert.equal(started.status, 202);
      const view = await failed;
      assert.equal(view.id, started.json().id);
      assert.match(view.error ?? "", /timed out after 0\.05 s \(\[lifecycle\] operation_timeout_seconds\)/);
      assert.equal(aborted.length, 1);
      assert.equal(aborted[0]!.aborted, true, "the pull itself was aborted");
      const polled = (await http(`${quick.url}/v1/models/operations/${view.id}`)).json();
      assert.equal(polled.status, "failed");
    } finally {
      lifecycle.pull = pull;
    }
    // The backend is free: the next operation starts.
    const next = await postJson(`${quick.url}/v1/models/load`, { model: "base", backend: "solo" });
    assert.equal(next.status, 202, next.text);
  });

  it("DELETE /v1/models/operations/{id} cancels a running operation at once; 404 and 409 otherwise", async () => {
    const lifecycle = lifecycleOf(gateway, "solo");
    const pull = lifecycle.pull;
    const aborted: AbortSignal[] = [];
    pullForever(lifecycle, aborted);
    try {
      const started = await postJson(`${gateway.url}/v1/models/load`, { model: "huge", backend: "solo" });
      assert.equal(started.status, 202);
      const id = started.json().id as string;
      const busy = await postJson(`${gateway.url}/v1/models/load`, { model: "base", backend: "solo" });
      assert.equal(busy.status, 409);
      const cancelled = await http(`${gateway.url}/v1/models/operations/${id}`, { method: "DELETE" });
      assert.equal(cancelled.status, 200, cancelled.text);
      assert.equal(cancelled.json().status, "cancelled");
      assert.equal(aborted[0]?.aborted, true, "the pull was aborted");
      assert.equal((await http(`${gateway.url}/v1/models/operations/${id}`)).json().status, "cancelled");
      const again = await http(`${gateway.url}/v1/models/operations/${id}`, { method: "DELETE" });
      assert.equal(again.status, 409);
      assert.equal(again.json().error.code, "operation_finished");
      const unknown = await http(`${gateway.url}/v1/models/operations/op-nope`, { method: "DELETE" });
      assert.equal(unknown.status, 404);
      assert.equal(unknown.json().error.code, "operation_not_found");
    } finally {
      lifecycle.pull = pull;
    }
    const free = await postJson(`${gateway.url}/v1/models/load`, { model: "base", backend: "solo" });
    assert.equal(free.status, 202, "the backend is free once the operation is cancelled");
  });

  it("every route bounds ids alike and answers an unknown operation 404 operation_not_found, whatever its length", async () => {
    const overLimit = "m".repeat(513);
    const body = await postJson(`${gateway.url}/v1/models/load`, { model: overLimit, backend: "solo" });
    const path = await http(`${gateway.url}/v1/models/${overLimit}?backend=solo`, { method: "DELETE" });
    const query = await http(`${gateway.url}/v1/models/base?backend=${"b".repeat(513)}`, { method: "DELETE" });
    for (const [what, response, field] of [
      ["POST body", body, "model"],
      ["DELETE path", path, "model"],
      ["DELETE query", query, "backend"],
    ] as const) {
      assert.equal(response.status, 400, `${what}: ${response.text.slice(0, 200)}`);
      assert.equal(response.json().error.message, `${field} must be a non-empty string (at most 512 characters)`);
    }
    await fc.assert(
      // Up to 1000 code points: any id, over the limit or not, with "/" or not, stays within the header cap once encoded.
      fc.asyncProperty(fc.string({ maxLength: 1000, unit: "binary" }), async (id) => {
        for (const method of ["GET", "DELETE"] as const) {
          const response = await http(`${gateway.url}/v1/models/operations/${encodeURIComponent(id)}`, { method });
          assert.equal(response.status, 404, `${method} ${id.length} chars: ${response.text.slice(0, 200)}`);
          assert.equal(response.json().error.code, "operation_not_found");
        }
      }),
      { numRuns: 60, examples: [["x".repeat(101)], ["a/b"], [""]] },
    );
  });
});
