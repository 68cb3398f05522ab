import assert from "node:assert/strict";
import { connect } from "node:net";
import { after, before, describe, it } from "node:test";
import { type FakeLlmServer, startFakeOpenAI, withTimeout } from "@switchboard/testkit";
import OpenAI from "openai";
import { backendToml, Closers, http, startTestGateway } from "./helpers.ts";

interface RawResponse {
  status: number;
  headers: Map<string, string>;
  body: string;
}

/**
 * Sends bytes no client library would send, and reads one response: until its Content-Length is complete, or the
 * server closes the connection.
 */
function exchange(port: number, request: string): Promise<RawResponse> {
  const received = new Promise<RawResponse>((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(request));
    let text = "";
    const parse = (): RawResponse | undefined => {
      const end = text.indexOf("\r\n\r\n");
      if (end < 0) return undefined;
      const [statusLine, ...lines] = text.slice(0, end).split("\r\n");
      const headers = new Map(
        lines.map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]),
      );
      const body = text.slice(end + 4);
      const length = Number(headers.get("content-length"));
      if (Number.isFinite(length) && Buffer.byteLength(body) < length) return undefined;
      return { status: Number(statusLine?.split(" ")[1]), headers, body };
    };
    socket.on("data", (chunk) => {
      text += chunk.toString("latin1");
      const response = parse();
      if (response) {
        socket.destroy();
        resolve(response);
      }
    });
    socket.on("close", () => {
      const response = parse();
      if (response) resolve(response);
      else reject(new Error(`connection closed without a complete response: ${JSON.stringify(text)}`));
    });
    socket.on("error", () => {});
  });
  return withTimeout(received, 10_000, `an answer to ${JSON.stringify(request.slice(0, 40))}`);
}

/** Sends bytes and reads everything until the server closes the connection (a hang fails the test). */
function untilClosed(port: number, request: string): Promise<string> {
  const received = new Promise<string>((resolve) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(request));
    let text = "";
    socket.on("data", (chunk) => {
      text += chunk.toString("latin1");
    });
    socket.on("close", () => resolve(text));
    socket.on("error", () => {});
  });
  return withTimeout(received, 10_000, `the server to close after ${JSON.stringify(request.slice(0, 40))}`);
}

function assertEnvelope(response: RawResponse, status: number, code: string): void {
  assert.equal(response.status, status, response.body);
  assert.match(response.headers.get("content-type") ?? "", /^application\/json/);
  assert.ok(response.headers.get("x-request-id"), "X-Request-Id");
  const body = JSON.parse(response.body) as { error: Record<string, unknown> };
  assert.equal(body.error["code"], code, response.body);
  assert.equal(typeof body.error["message"], "string");
  assert.ok("param" in body.error && "type" in body.error);
}

describe("errors Node and fastify raise themselves are answered in the envelope", () => {
  let upstream: FakeLlmServer;
  let url: string;
  let port: number;
  const closers = new Closers();

  before(async () => {
    upstream = await startFakeOpenAI({ models: [{ id: "m" }, { id: "50%-off" }, { id: "org/model" }] });
    const gateway = await startTestGateway(backendToml("b", upstream.url), closers);
    url = gateway.url;
    port = Number(new URL(url).port);
  });
  after(async () => {
    await closers.closeAll();
    await upstream.close();
  });

  it("GET /v1/models/{id} decodes the id once", async () => {
    const percent = await http(`${url}/v1/models/%25`);
    assert.equal(percent.status, 404, percent.text);
    assert.equal(percent.json().error.code, "model_not_found");
    assert.match(percent.json().error.message, /Model '%' not found/);
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: "unused", maxRetries: 0 });
    assert.equal((await client.models.retrieve("50%-off")).id, "50%-off");
    assert.equal((await http(`${url}/v1/models/org/model`)).json().id, "org/model");
    assert.equal((await http(`${url}/v1/models/org%2Fmodel`)).json().id, "org/model");
  });

  it("malformed percent-encoding: 400 invalid_url", async () => {
    const response = await exchange(port, "GET /v1/models/%E0%A4%A HTTP/1.1\r\nHost: x\r\n\r\n");
    assertEnvelope(response, 400, "invalid_url");
  });

  it("an unknown method: 501", async () => {
    assertEnvelope(await exchange(port, "FROB / HTTP/1.1\r\nHost: x\r\n\r\n"), 501, "method_not_implemented");
  });

  it("a method no route has: 404", async () => {
    assertEnvelope(await exchange(port, "PROPFIND /health HTTP/1.1\r\nHost: x\r\n\r\n"), 404, "not_found");
  });

  it("Content-Length together with Transfer-Encoding: 400", async () => {
    const response = await exchange(
      port,
      "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
        "Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
    );
    assertEnvelope(response, 400, "invalid_framing");
  });

  it("headers larger than Node accepts: 431", async () => {
    const response = await exchange(port, `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(40_000)}\r\n\r\n`);
    assertEnvelope(response, 431, "headers_too_large");
  });

  it("CONNECT: 405", async () => {
    assertEnvelope(
      await exchange(port, "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n"),
      405,
      "method_not_allowed",
    );
  });

  it("an upgrade of anything but the dashboard's socket: 400 at once, then the connection closes", async () => {
    const upgrade = "Host: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n";
    const body = '{"model":"m","messages":[{"role":"user","content":"hi"}]}';
    const json = `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n`;
    for (const request of [
      `POST /v1/chat/completions HTTP/1.1\r\n${upgrade}${json}\r\n${body}`,
      `GET /v1/models HTTP/1.1\r\n${upgrade}\r\n`,
      `PUT /v1/dashboard/socket HTTP/1.1\r\n${upgrade}\r\n`,
    ]) {
      const answer = await untilClosed(port, request);
      assert.match(answer, /^HTTP\/1\.1 400 /, answer);
      assert.match(answer, /"code":"upgrade_not_supported"/, answer);
      assert.match(answer, /Upgrade is only accepted on GET \/v1\/dashboard\/socket/);
    }
  });

  it("a header name with a space, an unknown HTTP version: 400", async () => {
    assertEnvelope(await exchange(port, "GET /health HTTP/1.1\r\nBad Header: 1\r\n\r\n"), 400, "malformed_request");
    assertEnvelope(await exchange(port, "GET /health HTTP/9.9\r\nHost: x\r\n\r\n"), 400, "malformed_request");
  });

  it("bad JSON, a wrong content type and an unknown route, sent raw", async () => {
    const post = (type: string, body: string) =>
      `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: ${type}\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    assertEnvelope(await exchange(port, post("application/json", "{nope")), 400, "invalid_json");
    assertEnvelope(await exchange(port, post("text/plain", "{}")), 415, "unsupported_media_type");
    assertEnvelope(await exchange(port, "GET /v2/nothing HTTP/1.1\r\nHost: x\r\n\r\n"), 404, "not_found");
  });

  it("still serves afterwards", async () => {
    assert.equal((await http(`${url}/health`)).status, 200);
  });
});
