import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import {
  type FakeLlmServer,
  freePort,
  type ManagedProcess,
  runToExit,
  startFakeOllama,
  startFakeOpenAI,
  startProcess,
  type Teardown,
  withTimeout,
} from "@switchboard/testkit";
import fc from "fast-check";
import { parseConfigText } from "../src/load-config.ts";
import { backendToml, Closers, hello, http, postJson } from "./helpers.ts";

const BIN = fileURLToPath(new URL("../bin/switchboard-gateway.cjs", import.meta.url));
const EXAMPLE = fileURLToPath(new URL("../../../examples/gateway.toml", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "gateway-cli-"));

function cli(args: string[], env: NodeJS.ProcessEnv = {}) {
  return runToExit({ command: process.execPath, args: [BIN, ...args], env: { ...process.env, ...env }, cwd: dir });
}

function serve(args: string[], teardown: Teardown, env: NodeJS.ProcessEnv = {}) {
  return startProcess(
    {
      command: process.execPath,
      args: [BIN, "serve", ...args],
      env: { ...process.env, ...env },
      ready: { line: "listening on" },
      name: "switchboard-gateway",
      timeoutMs: 20_000,
    },
    teardown,
  );
}

describe("switchboard-gateway command line", () => {
  let upstream: FakeLlmServer;
  let ollama: FakeLlmServer;
  let base: string;
  let gateway: ManagedProcess;
  const closers = new Closers();

  before(async () => {
    upstream = await startFakeOpenAI({ models: [{ id: "llama3" }] });
    ollama = await startFakeOllama({ models: [{ id: "qwen", contextLength: 32768 }] });
    const file = join(dir, "served.toml");
    writeFileSync(
      file,
      `[server]\nport = 0\n${backendToml("gpu", upstream.url)}${backendToml("box", ollama.url, "ollama")}`,
    );
    gateway = await serve(["-c", file], closers);
    base = gateway.listeningUrl ?? "";
    assert.match(base, /^http:\/\/127\.0\.0\.1:\d+$/);
  });
  after(async () => {
    await closers.closeAll();
    await upstream.close();
    await ollama.close();
  });

  it("serve: proxies a chat completion", async () => {
    const response = await postJson(`${base}/v1/chat/completions`, hello("llama3"));
    assert.equal(response.status, 200);
    assert.equal(response.headers["x-gateway-backend"], "gpu");
    // One info line per request: method, path, status, duration, model and backend.
    await gateway.waitForLine(/POST \/v1\/chat\/completions 200 [\d.]+ ms llama3 via gpu/, 10_000);
  });

  it("serve: hostile requests get designed statuses and the process lives on", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string({ maxLength: 100 }),
          fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
        ),
        async (body) => {
          const response = await http(`${base}/v1/chat/completions`, { method: "POST", body });
          assert.ok([400, 404].includes(response.status), `${response.status} for ${body}`);
        },
      ),
      { numRuns: 50 },
    );
    assert.equal((await http(`${base}/health`)).status, 200);
    assert.ok(process.kill(gateway.pid, 0));
  });

  it("backends: a table, or JSON with --json", async () => {
    const table = await cli(["backends", "--url", base]);
    assert.equal(table.code, 0, table.stderr);
    const lines = table.stdout.trim().split("\n");
    assert.match(lines[0]!, /^NAME\s+TYPE\s+STATUS\s+MODELS/);
    assert.match(table.stdout, /\ngpu\s+vllm\s+healthy\s+1\s/);
    assert.match(table.stdout, /\nbox\s+ollama\s+healthy\s+1\s/);
    const json = await cli(["backends", "--url", base, "--json"]);
    const parsed = JSON.parse(json.stdout) as { backends: { name: string; status: string }[] };
    assert.deepEqual(
      parsed.backends.map((b) => [b.name, b.status]),
      [
        ["gpu", "healthy"],
        ["box", "healthy"],
      ],
    );
  });

  it("models and health: tables and --json", async () => {
    const models = await cli(["models", "--url", base]);
    assert.equal(models.code, 0, models.stderr);
    assert.match(models.stdout, /^MODEL\s+BACKEND\s+CONTEXT\s+CAPABILITIES/);
    assert.match(models.stdout, /\nqwen\s+box\s+32768\s+completion,json,tools/);
    const modelsJson = JSON.parse((await cli(["models", "--url", base, "--json"])).stdout) as {
      models: { id: string }[];
    };
    assert.deepEqual(
      modelsJson.models.map((m) => m.id),
      ["llama3", "qwen"],
    );
    const health = await cli(["health", "--url", base]);
    assert.equal(health.code, 0);
    assert.match(health.stdout, /\nhealthy\s+0\.1\.0\s+\d+\s+2\s+2\s+0\s+2/);
    const healthJson = JSON.parse((await cli(["health", "--url", base, "--json"])).stdout);
    assert.equal(healthJson.status, "healthy");
    assert.deepEqual(healthJson.backends, { total: 2, healthy: 2, unhealthy: 0 });
  });

  it("query commands say clearly when nothing answers", async () => {
    const port = await freePort();
    const result = await cli(["health", "--url", `http://127.0.0.1:${port}`]);
    assert.equal(result.code, 1);
    assert.match(
      result.stderr,
      /^switchboard-gateway: cannot reach the gateway at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)/,
    );
  });
});

describe("configuration errors and config init", () => {
  it("a bad config stops start-up with one line and exit 1", async () => {
    const file = join(dir, "bad.toml");
    writeFileSync(file, '[routing]\nstratgy = "smart"\n');
    const result = await cli(["serve", "-c", file]);
    assert.equal(result.code, 1);
    assert.equal(
      result.stderr,
      `switchboard-gateway: ${file}: routing.stratgy: unknown key; did you mean "strategy"?\n`,
    );
    const missing = await cli(["serve", "-c", join(dir, "nope.toml")]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /nope\.toml: file not found\n$/);
    const env = await cli(["serve"], { NEXUS_PORT: "eighty" });
    assert.equal(env.code, 1);
    assert.match(env.stderr, /NEXUS_PORT: "eighty" is not a port/);
  });

  it("config init writes the commented example that npm start serves", async () => {
    const out = join(dir, "init.toml");
    const first = await cli(["config", "init", "-o", out]);
    assert.equal(first.code, 0, first.stderr);
    const written = readFileSync(out, "utf8");
    assert.equal(written, readFileSync(EXAMPLE, "utf8"));
    assert.ok(written.includes("# "), "it is commented");
    assert.doesNotThrow(() => parseConfigText(written, out));
    assert.ok(first.stdout.startsWith(`wrote ${out};`), first.stdout);
    assert.ok(first.stdout.endsWith(`\n  switchboard-gateway serve -c ${out}\n`), "it prints the next command");
    const again = await cli(["config", "init", "-o", out]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /already exists; use --force/);
    assert.equal((await cli(["config", "init", "-o", out, "--force"])).code, 0);
  });

  it("serve without -c reads ./gateway.toml; config init says so", async (t) => {
    const here = mkdtempSync(join(tmpdir(), "gateway-cwd-"));
    const init = await runToExit({ command: process.execPath, args: [BIN, "config", "init"], cwd: here });
    assert.equal(init.code, 0, init.stderr);
    assert.match(init.stdout, /wrote gateway\.toml;.*\n {2}switchboard-gateway serve\n$/);
    writeFileSync(join(here, "gateway.toml"), `[server]\nport = 0\n${backendToml("from-cwd", "http://127.0.0.1:9")}`);
    const gateway = await startProcess(
      {
        command: process.execPath,
        args: [BIN, "serve"],
        cwd: here,
        env: { ...process.env, NEXUS_CONFIG: "" },
        ready: { line: "listening on" },
        timeoutMs: 20_000,
      },
      t,
    );
    assert.match(gateway.output, /configuration: gateway\.toml \(1 backend\(s\)\)/);
    const stats = await http(`${gateway.listeningUrl}/v1/stats`);
    assert.equal(stats.json().backends[0].name, "from-cwd");
  });

  it("a port in use: one line naming how to change it, exit 1", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    try {
      const port = (taken.address() as { port: number }).port;
      const result = await cli(["serve", "-p", String(port)]);
      assert.equal(result.code, 1);
      assert.equal(
        result.stderr,
        `switchboard-gateway: cannot listen on 127.0.0.1:${port}: the port is already in use; choose another with --port (or NEXUS_PORT, or port in [server])\n`,
      );
    } finally {
      taken.close();
    }
  });

  it("a second gateway on one state file: one line naming the first, exit 1; the file is free again after a stop or a kill -9", async (t) => {
    const here = mkdtempSync(join(tmpdir(), "gateway-lock-"));
    const file = join(here, "gateway.toml");
    writeFileSync(file, `[server]\nport = 0\n${backendToml("far", "http://127.0.0.1:9")}`);
    const first = await serve(["-c", file], t);
    const second = await cli(["serve", "-c", file]);
    assert.equal(second.code, 1);
    const state = join(here, "gateway-state.json");
    assert.equal(
      second.stderr,
      `switchboard-gateway: state file ${state} is in use by process ${first.pid} (${state}.lock): two processes on ` +
        "one file would overwrite each other's changes. Give each gateway its own [state] path, or let replicas " +
        `share one store with [state] backend = "redis"; remove ${state}.lock only if that process is gone\n`,
    );
    await first.stop();
    const third = await serve(["-c", file], t);
    third.killGroup("SIGKILL");
    await withTimeout(third.exited, 10_000, "the gateway killed");
    // Its lock file is left behind, naming a process that is gone: taken over.
    const fourth = await serve(["-c", file], t);
    assert.equal((await http(`${fourth.listeningUrl}/health`)).status, 503);
  });

  it("the example config serves with no backend reachable (reported unhealthy) and stops on SIGINT", async (t) => {
    const ollamaPort = await freePort(); // nothing listens there
    const file = join(dir, "example.toml");
    writeFileSync(
      file,
      readFileSync(EXAMPLE, "utf8").replace("http://127.0.0.1:11434", `http://127.0.0.1:${ollamaPort}`),
    );
    const gateway = await serve([], t, { NEXUS_CONFIG: file, NEXUS_PORT: "0" });
    const health = await http(`${gateway.listeningUrl}/health`);
    assert.equal(health.status, 503);
    assert.equal(health.json().status, "unhealthy");
    await gateway.waitForLine(
      /backend local-ollama: unknown -> unhealthy \(1 consecutive failure\(s\): connection refused\)/,
    );
    const result = await cli(["health", "--url", gateway.listeningUrl ?? ""]);
    assert.equal(result.code, 1, "health exits 1 when the gateway is unhealthy");
    gateway.killGroup("SIGINT");
    const { code } = await withTimeout(gateway.exited, 10_000, "the gateway stopping on SIGINT");
    assert.equal(code, 0);
  });
});
