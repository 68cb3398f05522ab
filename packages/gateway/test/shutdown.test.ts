import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type Server, type ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it, type TestContext } from "node:test";
import { fileURLToPath } from "node:url";
import { freePort, startProcess, waitUntil, withTimeout } from "@switchboard/testkit";
import { backendToml } from "./helpers.ts";

const BIN = fileURLToPath(new URL("../bin/switchboard-gateway.cjs", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "gateway-shutdown-"));

/** A backend whose "endless" model streams one event and then nothing, and whose "quick" model answers in 300 ms. */
function startBackend(): Promise<{ url: string; server: Server; open: Set<ServerResponse>; received: string[] }> {
  const open = new Set<ServerResponse>();
  const received: string[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      if (req.url === "/v1/models") {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ object: "list", data: [{ id: "endless" }, { id: "quick" }] }));
        return;
      }
      const { model } = JSON.parse(body) as { model: string };
      received.push(model);
      if (model === "endless") {
        open.add(res);
        res.on("close", () => open.delete(res));
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write(
          `data: ${JSON.stringify({ object: "chat.completion.chunk", choices: [{ index: 0, delta: { content: "a" } }] })}\n\n`,
        );
        return;
      }
      setTimeout(() => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            object: "chat.completion",
            choices: [{ index: 0, message: { role: "assistant", content: "done" } }],
          }),
        );
      }, 300);
    });
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({ url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server, open, received }),
    ),
  );
}

describe("graceful shutdown", () => {
  let backend: Awaited<ReturnType<typeof startBackend>>;
  before(async () => {
    backend = await startBackend();
  });
  after(() => {
    for (const res of backend.open) res.destroy();
    backend.server.close();
  });

  async function serve(t: TestContext, grace: number) {
    const file = join(dir, `grace-${grace}-${Math.random().toString(36).slice(2)}.toml`);
    writeFileSync(file, `[server]\nport = 0\nshutdown_grace_seconds = ${grace}\n${backendToml("b", backend.url)}`);
    const gateway = await startProcess(
      {
        command: process.execPath,
        args: [BIN, "serve", "-c", file],
        ready: { line: "listening on" },
        timeoutMs: 20_000,
      },
      t,
    );
    return { gateway, url: gateway.listeningUrl ?? "" };
  }

  const post = (url: string, body: unknown) =>
    fetch(`${url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });

  it("a signal while the first probes run: the start completes, the held request is answered, then it exits 0", async (t) => {
    // A second backend that holds its probe until released: the gateway listens, its round still running.
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const silent = createServer((_req, res) => {
      void released.then(() => res.writeHead(200, { "content-type": "application/json" }).end('{"data":[]}'));
    });
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    t.after(() => {
      release();
      silent.closeAllConnections();
      silent.close();
    });
    const port = await freePort();
    const file = join(dir, `first-round-${port}.toml`);
    writeFileSync(
      file,
      `[server]\nport = ${port}\n${backendToml("b", backend.url)}` +
        backendToml("silent", `http://127.0.0.1:${(silent.address() as { port: number }).port}`),
    );
    const gateway = await startProcess(
      { command: process.execPath, args: [BIN, "serve", "-c", file], ready: { port }, timeoutMs: 20_000 },
      t,
    );
    const url = `http://127.0.0.1:${port}`;
    const before = backend.received.length;
    const answer = post(url, { model: "quick", messages: [{ role: "user", content: "hi" }] });
    await waitUntil(() => backend.received.length > before, { timeoutMs: 10_000, what: "the backend receiving it" });
    gateway.killGroup("SIGTERM");
    release();
    const response = await answer;
    assert.equal(response.status, 200);
    const { code, signal } = await withTimeout(gateway.exited, 20_000, "the gateway stopping");
    assert.deepEqual({ code, signal }, { code: 0, signal: null });
  });

  it("with nothing in flight: exits 0", async (t) => {
    const { gateway } = await serve(t, 5);
    gateway.killGroup("SIGTERM");
    const { code, signal } = await withTimeout(gateway.exited, 15_000, "the gateway stopping");
    assert.deepEqual({ code, signal }, { code: 0, signal: null });
  });

  it("a request that finishes within the grace period is answered, and the exit code is 0", async (t) => {
    const { gateway, url } = await serve(t, 10);
    const before = backend.received.length;
    const answer = post(url, { model: "quick", messages: [{ role: "user", content: "hi" }] });
    await waitUntil(() => backend.received.length > before, { timeoutMs: 10_000, what: "the backend receiving it" });
    gateway.killGroup("SIGTERM");
    const response = await answer;
    assert.equal(response.status, 200);
    assert.equal(((await response.json()) as { object: string }).object, "chat.completion");
    const { code } = await withTimeout(gateway.exited, 20_000, "the gateway stopping");
    assert.equal(code, 0);
  });

  it("a stream still running when the grace period ends gets an error event and [DONE]; the exit code is 1", async (t) => {
    const { gateway, url } = await serve(t, 0.5);
    const response = await post(url, { model: "endless", stream: true, messages: [{ role: "user", content: "hi" }] });
    assert.equal(response.status, 200);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = decoder.decode((await reader.read()).value);
    assert.match(text, /"content":"a"/);
    gateway.killGroup("SIGTERM");
    const rest = (async () => {
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
        text += decoder.decode(chunk.value);
    })();
    await withTimeout(rest, 15_000, "the stream ending");
    const events = text.split("\n\n").filter((event) => event.trim() !== "");
    assert.equal(events.at(-1), "data: [DONE]");
    const error = JSON.parse(events.at(-2)!.slice("data: ".length)) as { error: { code: string; message: string } };
    assert.equal(error.error.code, "shutting_down");
    const { code } = await withTimeout(gateway.exited, 20_000, "the gateway stopping");
    assert.equal(code, 1);
    assert.match(gateway.output, /1 request\(s\) were cut off after the 0\.5 s grace period/);
  });
});
