import assert from "node:assert/strict";
import { connect } from "node:net";
import { after, before, describe, it } from "node:test";
import { type FakeLlmServer, startFakeOpenAI, withTimeout } from "@switchboard/testkit";
import OpenAI from "openai";
import { backendToml, Closers, hello, http, postJson, startTestGateway } from "./helpers.ts";

const LIMIT = 64 * 1024;
const WELL_OVER = 8 * 1024 * 1024;

function assertTooLarge(status: number, text: string): void {
  assert.equal(status, 413, text.slice(0, 300));
  const { error } = JSON.parse(text) as { error: { code: string; message: string } };
  assert.equal(error.code, "request_too_large");
  assert.match(error.message, /body_limit_bytes/);
  assert.match(error.message, /65536/);
}

describe("request bodies over body_limit_bytes", () => {
  let upstream: FakeLlmServer;
  let url: string;
  const closers = new Closers();

  before(async () => {
    upstream = await startFakeOpenAI({ models: [{ id: "m" }] });
    url = (
      await startTestGateway(
        `[server]\nport = 0\nbody_limit_bytes = ${LIMIT}\n${backendToml("b", upstream.url)}`,
        closers,
      )
    ).url;
  });
  after(async () => {
    await closers.closeAll();
    await upstream.close();
  });

  it("fetch, still sending a body well over the limit, reads the 413", async () => {
    const body = JSON.stringify(hello("m", { messages: [{ role: "user", content: "x".repeat(WELL_OVER) }] }));
    const response = await fetch(`${url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    assertTooLarge(response.status, await response.text());
  });

  it("fetch with a streamed body of unknown length reads the 413", async () => {
    const chunk = new TextEncoder().encode("x".repeat(64 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"model":"m","messages":[{"role":"user","content":"'));
      },
      pull(controller) {
        if (sent >= WELL_OVER) {
          controller.enqueue(new TextEncoder().encode('"}]}'));
          controller.close();
          return;
        }
        sent += chunk.length;
        controller.enqueue(chunk);
      },
    });
    const response = await fetch(`${url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: stream,
      duplex: "half",
    } as RequestInit);
    assertTooLarge(response.status, await response.text());
  });

  it("the openai SDK reports 413, not a connection error", async () => {
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: "unused", maxRetries: 0 });
    const error = await client.chat.completions
      .create({ model: "m", messages: [{ role: "user", content: "x".repeat(WELL_OVER) }] })
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    assert.ok(error instanceof OpenAI.APIError, `expected an APIError, got ${String(error)}`);
    assert.equal(error.status, 413, String(error));
    assert.match(error.message, /body_limit_bytes/);
    const embeddings = await client.embeddings.create({ model: "m", input: "x".repeat(WELL_OVER) }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    assert.ok(embeddings instanceof OpenAI.APIError && embeddings.status === 413, String(embeddings));
  });

  it("a client that never stops sending is cut off once a bounded amount was drained", async () => {
    const closed = new Promise<string>((resolve) => {
      const socket = connect(Number(new URL(url).port), "127.0.0.1");
      let received = "";
      const filler = Buffer.alloc(256 * 1024, "x");
      const pump = () => {
        while (!socket.destroyed && socket.write(filler)) {}
      };
      socket.on("connect", () => {
        socket.write(
          "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
            `Content-Length: ${1024 ** 4}\r\n\r\n`,
        );
        pump();
      });
      socket.on("drain", pump);
      socket.on("data", (chunk) => {
        received += chunk.toString();
      });
      socket.on("error", () => {});
      socket.on("close", () => resolve(received));
    });
    const received = await withTimeout(closed, 20_000, "the gateway closing an endless body");
    assert.match(received, /^HTTP\/1\.1 413 /);
  });

  it("bodies within the limit still work on the same server", async () => {
    assert.equal((await postJson(`${url}/v1/chat/completions`, hello("m"))).status, 200);
    assert.equal((await http(`${url}/health`)).status, 200);
  });
});
