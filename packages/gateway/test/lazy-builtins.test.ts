// The bundle's copies of fastify, ws and prom-client require node's https, http2 and tls at their top, for paths the
// gateway never takes at start (a TLS or HTTP/2 server, a wss: client, a Pushgateway); the build gives them stand-ins
// that load the module on first use (scripts/build.mjs, LAZY_BUILTINS). None is loaded when the gateway listens.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import {
  builtinsLoadedAtListening,
  type FakeLlmServer,
  startFakeAnthropic,
  startFakeOpenAI,
} from "@switchboard/testkit";
import { backendToml } from "./helpers.ts";

const BIN = fileURLToPath(new URL("../bin/switchboard-gateway.cjs", import.meta.url));

describe("built-in modules the gateway loads before it listens", () => {
  const dir = mkdtempSync(join(tmpdir(), "gateway-builtins-"));
  const servers: FakeLlmServer[] = [];
  let config: string;
  before(async () => {
    const vllm = await startFakeOpenAI({ models: [{ id: "m" }] });
    const claude = await startFakeAnthropic({ models: [{ id: "claude-haiku-4-5" }], apiKey: "k" });
    servers.push(vllm, claude);
    config = join(dir, "gateway.toml");
    writeFileSync(
      config,
      "[server]\nport = 0\n" +
        backendToml("gpu", vllm.url, "vllm") +
        backendToml("claude", claude.url, "anthropic", 'api_key_env = "K"'),
    );
  });
  after(async () => {
    for (const server of servers) await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("leaves out https, http2 and tls", async () => {
    const loaded = await builtinsLoadedAtListening([BIN, "serve", "-c", config], { env: { ...process.env, K: "k" } });
    assert.ok(loaded.has("http"), `the report lists what was loaded: ${[...loaded].join(" ")}`);
    for (const module of ["https", "http2", "tls"]) assert.ok(!loaded.has(module), `${module} was loaded`);
  });
});
