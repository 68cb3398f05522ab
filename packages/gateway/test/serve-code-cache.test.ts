// The bin runs its command line from dist/bundle/program.cjs with V8's code cache (@switchboard/common/code-cache): a start
// from the cache still reads its settings at run time, and a corrupt entry means a normal start that replaces it.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { corruptFile, type FakeLlmServer, freePort, startFakeOpenAI, startProcess } from "@switchboard/testkit";
import { backendToml, http } from "./helpers.ts";

const BIN = fileURLToPath(new URL("../bin/switchboard-gateway.cjs", import.meta.url));
const BUNDLE = fileURLToPath(new URL("../dist/bundle/program.cjs", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "gateway-code-cache-"));
const cacheDir = join(dir, "cache");
const entriesDir = join(cacheDir, "switchboard-v8");

/** Serves on NEXUS_PORT=`port` until it answers /health, then stops it (SIGTERM; the cache is written at exit). */
async function serveOnce(config: string, port: number): Promise<void> {
  const gateway = await startProcess({
    command: process.execPath,
    args: [BIN, "serve", "-c", config],
    env: { ...process.env, NODE_COMPILE_CACHE: cacheDir, NODE_DISABLE_COMPILE_CACHE: "", NEXUS_PORT: String(port) },
    ready: { line: "listening on" },
    name: "switchboard-gateway",
    timeoutMs: 20_000,
  });
  try {
    assert.equal(gateway.listeningUrl, `http://127.0.0.1:${port}`);
    const health = await http(`http://127.0.0.1:${port}/health`);
    assert.equal(health.status, 200);
  } finally {
    const { code } = await gateway.stop();
    assert.equal(code, 0);
  }
}

const entries = () => (existsSync(entriesDir) ? readdirSync(entriesDir).filter((name) => name.endsWith(".v8")) : []);

describe("switchboard-gateway serve with V8's code cache", { skip: !existsSync(BUNDLE) && "not built" }, () => {
  let upstream: FakeLlmServer;
  let config: string;
  before(async () => {
    upstream = await startFakeOpenAI({ models: [{ id: "llama3" }] });
    config = join(dir, "gateway.toml");
    writeFileSync(config, `[server]\nport = 1\n${backendToml("gpu", upstream.url)}`);
  });
  after(async () => {
    await upstream.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("writes the cache at the first start, and a start from it reads the environment of its own", async () => {
    await serveOnce(config, await freePort());
    const [entry] = entries();
    assert.ok(entry, "the first start left an entry");
    const written = readFileSync(join(entriesDir, entry));
    // Another port through the environment: the start from the cache listens there, and leaves the entry as it was.
    await serveOnce(config, await freePort());
    assert.deepEqual(entries(), [entry]);
    assert.ok(readFileSync(join(entriesDir, entry)).equals(written));
  });

  it("starts normally on a corrupt entry, and replaces it", async () => {
    const [entry] = entries();
    assert.ok(entry);
    const corrupt = corruptFile(join(entriesDir, entry));
    await serveOnce(config, await freePort());
    assert.ok(!readFileSync(join(entriesDir, entry)).equals(corrupt), "the entry was written again");
  });
});
