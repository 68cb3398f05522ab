// BackendHttpClient's undici pool is made on first use (backends/lazy-pool.ts): the calls that do not need it leave it
// unmade, those that do make it, and close() neither needs nor makes one. The first test runs before anything in this
// process has loaded undici, so that an https: backend's first chat call goes through the loading.
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { freePort } from "@switchboard/testkit";
import { BackendHttpClient } from "../../src/backends/http-client.ts";
import { isUndiciLoaded } from "../../src/backends/lazy-pool.ts";
import { UpstreamUnreachable } from "../../src/backends/network-errors.ts";
import type { ResponseSink } from "../../src/backends/upstream-call.ts";
import { parseConfigText } from "../../src/load-config.ts";

function clientFor(url: string): BackendHttpClient {
  const toml = `[server]\nport = 0\n[[backends]]\nname = "b"\nurl = "${url}"\ntype = "vllm"\n`;
  const [settings] = parseConfigText(toml, "test.toml", {}).backends;
  return new BackendHttpClient(settings!, { requestTimeoutMs: 5_000, answerLimitBytes: 1024 * 1024 });
}

/** A sink that records what it is given; `done` resolves at its end or error. */
function recordingSink() {
  const events: string[] = [];
  let chunks = "";
  let finish: (error?: Error) => void = () => {};
  const done = new Promise<Error | undefined>((resolve) => (finish = resolve));
  const sink: ResponseSink = {
    start: (status) => events.push(`start ${status}`),
    data: (chunk) => (chunks += chunk.toString()),
    end: () => {
      events.push("end");
      finish();
    },
    error: (error) => {
      events.push(`error ${error.name}`);
      finish(error);
    },
  };
  return { sink, events, done, body: () => chunks };
}

const IDS = { requestId: "r1" };

describe("a backend's undici pool, made on first use", () => {
  let server: Server;
  let base: string;
  let requests = 0;
  let handle: (request: IncomingMessage, response: ServerResponse) => void = (_request, response) =>
    response.end('{"ok":true}');
  before(async () => {
    server = createServer((request, response) => {
      requests++;
      request.resume();
      request.on("end", () => handle(request, response));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("an https: backend's first chat call waits for undici, then fails as undici's did; one aborted meanwhile ends", async () => {
    assert.equal(isUndiciLoaded(), false);
    const client = clientFor(`https://127.0.0.1:${await freePort()}`);
    const aborted = recordingSink();
    client.dispatch("/v1/chat/completions", "{}", IDS, aborted.sink).abort();
    const refused = recordingSink();
    const call = client.dispatch("/v1/chat/completions", "{}", IDS, refused.sink);
    assert.equal(call.aborted, false);
    const error = await refused.done;
    assert.ok(error instanceof UpstreamUnreachable && error.message === "connection refused", String(error));
    assert.deepEqual(await aborted.done.then((reason) => reason?.name), "AbortError");
    assert.deepEqual(aborted.events, ["error AbortError"]);
    assert.equal(client.poolCreated, true);
    await client.close();
  });

  it("an http: backend's chat and JSON calls leave it unmade; its streams and whole replies make it", async () => {
    const client = clientFor(base);
    const chat = recordingSink();
    client.dispatch("/v1/chat/completions", "{}", IDS, chat.sink);
    await chat.done;
    assert.deepEqual(chat.events, ["start 200", "end"]);
    assert.deepEqual(await client.getJson("/v1/models", 1_000), { ok: true });
    await client.postJson("/api/show", { model: "m" }, 1_000);
    assert.equal(client.poolCreated, false);
    const reply = await client.fetch("POST", "/v1/embeddings", "{}");
    assert.equal(reply.statusCode, 200);
    assert.equal(reply.body.toString(), '{"ok":true}');
    assert.equal(client.poolCreated, true);
    await client.close();
  });

  it("close() with no pool made is done at once and makes none; a call after it fails without reaching the backend", async () => {
    const client = clientFor(base);
    await client.close();
    assert.equal(client.poolCreated, false);
    const before = requests;
    await assert.rejects(client.request("GET", "/v1/models", undefined), UpstreamUnreachable);
    assert.equal(requests, before);
  });

  it("a request's signal aborts it, the pool made on the way", async () => {
    handle = () => {};
    const client = clientFor(base);
    const controller = new AbortController();
    const pending = client.request("POST", "/v1/embeddings", "{}", { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await assert.rejects(pending, (error) => error instanceof Error && error.name === "AbortError");
    handle = (_request, response) => response.end('{"ok":true}');
    await client.close();
  });
});
