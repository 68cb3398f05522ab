// BackendHttpClient's JSON calls (probes, model listings) to an http: backend, which go through node:http
// (backends/whole-reply.ts) rather than undici: the same requests, answers and failures as before.
import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { freePort } from "@switchboard/testkit";
import { BackendHttpClient } from "../../src/backends/http-client.ts";
import { UpstreamUnreachable } from "../../src/backends/network-errors.ts";
import { parseConfigText } from "../../src/load-config.ts";

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

function clientFor(url: string): BackendHttpClient {
  const toml = `[server]\nport = 0\n[[backends]]\nname = "b"\nurl = "${url}"\ntype = "vllm"\napi_key_env = "K"\n`;
  const [settings] = parseConfigText(toml, "test.toml", { K: "sk-test" }).backends;
  return new BackendHttpClient(settings!, { requestTimeoutMs: 5_000, answerLimitBytes: 1024 * 1024 });
}

describe("a backend's JSON calls over node:http", () => {
  const seen: Seen[] = [];
  let handle: (request: IncomingMessage, response: ServerResponse) => void = () => {};
  let server: Server;
  let base: string;
  before(async () => {
    server = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk: Buffer) => (body += chunk.toString()));
      request.on("end", () => {
        seen.push({ method: request.method ?? "", url: request.url ?? "", headers: request.headers, body });
        handle(request, response);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("GETs and POSTs under the backend's path with its headers, and parses the answer", async () => {
    handle = (_request, response) => response.end('{"data":[{"id":"m"}]}');
    const client = clientFor(`${base}/prefix/`);
    assert.deepEqual(await client.getJson("/v1/models", 1_000), { data: [{ id: "m" }] });
    const get = seen.at(-1)!;
    assert.equal(get.method, "GET");
    assert.equal(get.url, "/prefix/v1/models");
    assert.equal(get.headers.authorization, "Bearer sk-test");
    assert.equal(get.headers.accept, "application/json");
    await client.postJson("/api/show", { model: "m" }, 1_000);
    const post = seen.at(-1)!;
    assert.equal(post.method, "POST");
    assert.equal(post.headers["content-type"], "application/json");
    assert.equal(post.body, '{"model":"m"}');
    await client.close();
  });

  it("refuses a status other than 2xx and a body that is not JSON", async () => {
    const client = clientFor(base);
    handle = (_request, response) => {
      response.statusCode = 503;
      response.end("{}");
    };
    await assert.rejects(client.getJson("/v1/models", 1_000), /^Error: GET \/v1\/models answered HTTP 503$/);
    handle = (_request, response) => response.end("<html>");
    await assert.rejects(client.getJson("/v1/models", 1_000), /^Error: GET \/v1\/models answered invalid JSON$/);
    await client.close();
  });

  it("turns a refused connection, a silent backend and a reset into UpstreamUnreachable", async () => {
    const refused = clientFor(`http://127.0.0.1:${await freePort()}`);
    await assert.rejects(
      refused.getJson("/v1/models", 1_000),
      (error) => error instanceof UpstreamUnreachable && error.message === "connection refused" && !error.timedOut,
    );
    const client = clientFor(base);
    handle = () => {};
    await assert.rejects(
      client.getJson("/v1/models", 200),
      (error) => error instanceof UpstreamUnreachable && error.timedOut,
    );
    handle = (_request, response) => {
      response.writeHead(200, { "content-length": "100" });
      response.write('{"data":');
      setTimeout(() => response.socket?.destroy(), 20);
    };
    await assert.rejects(
      client.getJson("/v1/models", 1_000),
      (error) => error instanceof UpstreamUnreachable && !error.timedOut,
    );
    await client.close();
  });

  it("a call with a stop signal is cut by it, and leaves nothing attached to it", async () => {
    const client = clientFor(base);
    const stop = new AbortController();
    handle = (_request, response) => response.end('{"data":[]}');
    for (let i = 0; i < 50; i++) await client.getJson("/v1/models", 1_000, stop.signal);
    handle = (_request, response) => response.writeHead(404).end();
    await assert.rejects(client.getJson("/v1/missing", 1_000, stop.signal));
    assert.equal(getEventListeners(stop.signal, "abort").length, 0);
    // A silent backend: the stop, not the minute's timeout, ends the call.
    handle = () => {};
    const call = client.getJson("/v1/models", 60_000, stop.signal);
    stop.abort();
    await assert.rejects(call);
    assert.equal(getEventListeners(stop.signal, "abort").length, 0);
    await client.close();
  });
});
