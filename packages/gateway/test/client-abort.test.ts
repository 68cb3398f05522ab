import assert from "node:assert/strict";
import { connect, createServer, type Server, type Socket } from "node:net";
import { after, before, describe, it } from "node:test";
import { type FakeLlmServer, startFakeOpenAI, waitUntil } from "@switchboard/testkit";
import { backendToml, Closers, hello, http, startTestGateway } from "./helpers.ts";

/**
 * A TCP relay in front of a backend that knows which of the gateway's connections to it carried which requests (the
 * request lines seen on each), so that a test can watch the one that carried a given request close.
 */
async function requestRelay(
  target: number,
): Promise<{ url: string; carrying(path: string): Socket[]; close(): Promise<void> }> {
  const requestLines = new Map<Socket, string>();
  const server: Server = createServer((client) => {
    const upstream = connect(target, "127.0.0.1");
    requestLines.set(client, "");
    client.on("data", (chunk: Buffer) => requestLines.set(client, requestLines.get(client) + chunk.toString("latin1")));
    client.pipe(upstream).pipe(client);
    const end = () => {
      requestLines.delete(client);
      client.destroy();
      upstream.destroy();
    };
    client.on("close", end).on("error", end);
    upstream.on("close", end).on("error", end);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    carrying: (path) => [...requestLines].filter(([, bytes]) => bytes.includes(`POST ${path} `)).map(([s]) => s),
    close: () =>
      new Promise((resolve) => {
        for (const socket of requestLines.keys()) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

interface BackendStats {
  requests: number;
  errors: number;
  client_aborts: number;
}

describe("a client that disconnects", () => {
  let upstream: FakeLlmServer;
  let relay: Awaited<ReturnType<typeof requestRelay>>;
  let url: string;
  const closers = new Closers();

  before(async () => {
    upstream = await startFakeOpenAI({ models: [{ id: "m", capabilities: ["completion", "embedding"] }] });
    relay = await requestRelay(upstream.port);
    url = (await startTestGateway(backendToml("b", relay.url), closers)).url;
  });
  after(async () => {
    await closers.closeAll();
    await relay.close();
    await upstream.close();
  });

  const stats = async () => ((await http(`${url}/v1/stats`)).json() as { backends: BackendStats[] }).backends[0]!;

  for (const [name, path, body] of [
    ["a chat completion", "/v1/chat/completions", hello("m")],
    ["a streamed chat completion", "/v1/chat/completions", hello("m", { stream: true })],
    ["an embeddings request", "/v1/embeddings", { model: "m", input: "x" }],
  ] as const) {
    it(`${name}: counted as a client abort, and its backend connection is closed`, async () => {
      upstream.setFault({ kind: "stall", scope: "inference" });
      const before = await stats();
      const controller = new AbortController();
      const request = fetch(`${url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
        signal: controller.signal,
      }).catch(() => undefined);
      await waitUntil(() => upstream.inFlight > 0, { timeoutMs: 10_000 });
      // The connection that carries the stalled request: the abort must close it (a reused one would wait forever).
      const carriers = relay.carrying(path);
      assert.equal(carriers.length, 1);
      controller.abort();
      await request;
      await waitUntil(() => upstream.inFlight === 0, { timeoutMs: 10_000 });
      await waitUntil(async () => (await stats()).requests > before.requests, { timeoutMs: 10_000 });
      const afterAbort = await stats();
      assert.equal(afterAbort.errors, before.errors, "not a backend error");
      assert.equal(afterAbort.client_aborts, (before.client_aborts ?? 0) + 1);
      await waitUntil(() => carriers[0]!.destroyed, { timeoutMs: 10_000 });
      upstream.setFault({ kind: "none" });
    });
  }
});
