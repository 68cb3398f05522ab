import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type FakeLlmServer, startFakeOllama, startFakeOpenAI, waitUntil } from "@switchboard/testkit";
import OpenAI from "openai";
import type { RunningGateway } from "../src/gateway.ts";
import type { OperationView } from "../src/telemetry/events.ts";
import { backendToml, Closers, http, postJson, startTestGateway } from "./helpers.ts";

describe("the model lifecycle API", () => {
  let box: FakeLlmServer;
  let spare: FakeLlmServer;
  let plain: FakeLlmServer;
  let gateway: RunningGateway;
  let client: OpenAI;
  const closers = new Closers();
  const progress = new Map<string, number[]>();

  /** Polls GET /v1/models/operations/{id} until it is finished. */
  async function finished(id: string): Promise<Record<string, unknown>> {
    let body: Record<string, unknown> = {};
    await waitUntil(
      async () => {
        body = (await http(`${gateway.url}/v1/models/operations/${id}`)).json();
        return body["status"] === "completed" || body["status"] === "failed";
      },
      { what: `operation ${id} to finish` },
    );
    return body;
  }

  before(async () => {
    box = await startFakeOllama({
      models: [{ id: "base" }],
      library: [{ id: "new-model" }],
      chunks: 10,
      chunkIntervalMs: 30,
    });
    spare = await startFakeOllama({ models: [], library: [{ id: "base" }] });
    plain = await startFakeOpenAI({ models: [{ id: "other" }] });
    gateway = await startTestGateway(
      "[health_check]\ninterval_seconds = 3600\nfailure_threshold = 1\n" +
        backendToml("box", box.url, "ollama") +
        backendToml("spare", spare.url, "ollama") +
        backendToml("plain", plain.url, "vllm"),
      closers,
    );
    gateway.events.on("operation", (event: { operation: OperationView }) => {
      const list = progress.get(event.operation.id) ?? [];
      list.push(event.operation.progress ?? 0);
      progress.set(event.operation.id, list);
    });
    client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: "x", maxRetries: 0 });
  });
  after(async () => {
    await closers.closeAll();
    await Promise.all([box.close(), spare.close(), plain.close()]);
  });

  it("loads a model (pulling it first, with progress) and serves it as soon as the operation completes", async () => {
    const started = await postJson(`${gateway.url}/v1/models/load`, { model: "new-model", backend: "box" });
    assert.equal(started.status, 202);
    const id = started.json().id as string;
    assert.equal(started.headers["location"], `/v1/models/operations/${id}`);
    assert.equal(started.headers["x-gateway-operation-id"], id);
    // One operation per backend at a time.
    const second = await postJson(`${gateway.url}/v1/models/load`, { model: "base", backend: "box" });
    assert.equal(second.status, 409);
    assert.equal(second.json().error.code, "operation_in_progress");
    const done = await finished(id);
    assert.equal(done["status"], "completed", JSON.stringify(done));
    assert.equal(done["progress"], 1);
    const seen = progress.get(id)!;
    assert.ok(seen.length >= 5, "progress reported along the way");
    for (let i = 1; i < seen.length; i++) assert.ok(seen[i]! >= seen[i - 1]!, "progress never goes back");
    const answer = await client.chat.completions.create({
      model: "new-model",
      messages: [{ role: "user", content: "hi" }],
    });
    assert.match(answer.choices[0]!.message.content ?? "", /hi/);
    const listed = (await http(`${gateway.url}/v1/models/operations`)).json();
    assert.equal(listed.data[0].id, id);
  });

  it("reports a failed pull with the backend's message", async () => {
    const started = await postJson(`${gateway.url}/v1/models/load`, { model: "no-such-model", backend: "box" });
    const done = await finished(started.json().id);
    assert.equal(done["status"], "failed");
    assert.match(String(done["error"]), /file does not exist/);
  });

  it("refuses what it cannot do: 404, 501, 400, and 409 to unload a model with requests in flight", async () => {
    assert.equal((await postJson(`${gateway.url}/v1/models/load`, { model: "x", backend: "nowhere" })).status, 404);
    const unsupported = await postJson(`${gateway.url}/v1/models/load`, { model: "other", backend: "plain" });
    assert.equal(unsupported.status, 501);
    assert.match(unsupported.json().error.message, /cannot load or unload/);
    assert.equal((await postJson(`${gateway.url}/v1/models/load`, { model: "x" })).status, 400);
    assert.equal((await http(`${gateway.url}/v1/models/base`, { method: "DELETE" })).status, 400);
    assert.equal((await http(`${gateway.url}/v1/models/operations/op-nope`)).status, 404);
    assert.equal((await http(`${gateway.url}/v1/models/nothing?backend=box`, { method: "DELETE" })).status, 404);

    const stream = await client.chat.completions.create({
      model: "base",
      messages: [{ role: "user", content: "a slow answer" }],
      stream: true,
    });
    const reading = (async () => {
      for await (const _chunk of stream) {
        // drained
      }
    })();
    await waitUntil(() => gateway.registry.get("box")!.pending > 0, { what: "the stream in flight" });
    const busy = await http(`${gateway.url}/v1/models/base?backend=box`, { method: "DELETE" });
    assert.equal(busy.status, 409);
    assert.equal(busy.json().error.code, "model_in_use");
    await reading;
    const unload = await http(`${gateway.url}/v1/models/base?backend=box`, { method: "DELETE" });
    assert.equal(unload.status, 202);
    assert.equal((await finished(unload.json().id))["status"], "completed");
    assert.ok(!box.loadedModels.includes("base"), "Ollama freed the model's memory");
  });

  it("migrates a model with no failed request, then routes it to the target only", async () => {
    let failures = 0;
    let running = true;
    const load = (async () => {
      while (running) {
        await client.chat.completions
          .create({ model: "base", messages: [{ role: "user", content: "hi" }] })
          .catch(() => {
            failures++;
          });
      }
    })();
    const started = await postJson(`${gateway.url}/v1/models/migrate`, { model: "base", from: "box", to: "spare" });
    assert.equal(started.status, 202);
    const done = await finished(started.json().id);
    running = false;
    await load;
    assert.equal(done["status"], "completed", JSON.stringify(done));
    assert.equal(done["from"], "box");
    assert.equal(failures, 0);
    const after = await postJson(`${gateway.url}/v1/chat/completions`, {
      model: "base",
      messages: [{ role: "user", content: "hi" }],
    });
    assert.equal(after.headers["x-gateway-backend"], "spare");
    assert.ok(!box.loadedModels.includes("base"));
  });

  it("answers 502 when the backend is down, naming why", async () => {
    spare.setFault({ kind: "refuse" });
    await gateway.health.checkNow();
    const response = await postJson(`${gateway.url}/v1/models/load`, { model: "base", backend: "spare" });
    assert.equal(response.status, 502);
    assert.equal(response.json().error.code, "backend_unavailable");
    spare.setFault({ kind: "none" });
  });
});
