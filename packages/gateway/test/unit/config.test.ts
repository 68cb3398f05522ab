import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { ConfigError } from "../../src/config/config-error.ts";
import { loadConfig, parseConfigText } from "../../src/load-config.ts";

const dir = mkdtempSync(join(tmpdir(), "gateway-config-"));
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}
function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected ConfigError, got ${String(error)}`);
    assert.ok(!error.message.includes("\n"), "a config error is one line");
    return error.message;
  }
  assert.fail("expected a ConfigError");
}

const NEXUS_STYLE = `
[server]
host = "0.0.0.0"
port = 8000
request_timeout_seconds = 300

[discovery]
enabled = true

[health_check]
interval_seconds = 30
timeout_seconds = 5
failure_threshold = 3
recovery_threshold = 2

[routing]
strategy = "smart"
max_retries = 2

[routing.weights]
priority = 50
load = 30
latency = 20

[routing.aliases]
"gpt-4" = "llama3:70b"

[routing.fallbacks]
"llama3:70b" = ["llama3:8b"]

[[routing.policies]]
model_pattern = "llama3*"
privacy = "restricted"
min_tier = 2

[[backends]]
name = "local-ollama"
url = "http://localhost:11434"
type = "ollama"
priority = 1
zone = "Restricted"
tier = 3

[[backends]]
name = "gpu-server"
url = "http://192.168.1.100:8000/v1/"
type = "vllm"
priority = 2
`;

describe("configuration", () => {
  it("loads a Nexus-style file unchanged, with defaults and normalised values", () => {
    const config = loadConfig({ path: file("nexus.toml", NEXUS_STYLE), env: {} });
    assert.equal(config.server.host, "0.0.0.0");
    assert.equal(config.server.port, 8000);
    assert.equal(config.routing.strategy, "smart");
    assert.deepEqual(config.routing.aliases, new Map([["gpt-4", "llama3:70b"]]));
    assert.equal(config.backends.length, 2);
    assert.equal(config.backends[0]!.zone, "restricted");
    assert.equal(config.backends[0]!.kind, "local");
    assert.equal(config.backends[1]!.url, "http://192.168.1.100:8000");
    assert.equal(config.backends[1]!.zone, "restricted");
    assert.equal(config.backends[1]!.tier, 1);
    // [discovery] is active now: its Nexus keys are read, not warned about.
    assert.deepEqual(config.inactiveSections, []);
    assert.equal(config.discovery.enabled, true);
    assert.equal(config.policies[0]!.privacy, "restricted");
  });

  it("serves 127.0.0.1:8000 in front of a local Ollama without a file", () => {
    const config = loadConfig({ env: {} });
    assert.equal(config.source, "(built-in defaults)");
    assert.equal(config.server.host, "127.0.0.1");
    assert.equal(config.server.port, 8000);
    assert.equal(config.backends[0]!.url, "http://127.0.0.1:11434");
    assert.equal(config.backends[0]!.type, "ollama");
  });

  it("applies CLI flags over environment over file", () => {
    const path = file("ports.toml", "[server]\nport = 9000\n");
    assert.equal(loadConfig({ path, env: {} }).server.port, 9000);
    assert.equal(loadConfig({ path, env: { NEXUS_PORT: "9100" } }).server.port, 9100);
    assert.equal(loadConfig({ path, port: "9200", env: { NEXUS_PORT: "9100" } }).server.port, 9200);
    assert.equal(loadConfig({ env: { NEXUS_CONFIG: path } }).server.port, 9000);
    assert.equal(loadConfig({ env: { NEXUS_HOST: "0.0.0.0" } }).server.host, "0.0.0.0");
    assert.equal(loadConfig({ env: { NEXUS_LOG_LEVEL: "DEBUG" } }).logging.level, "debug");
    assert.match(
      errorOf(() => loadConfig({ env: { NEXUS_PORT: "http" } })),
      /NEXUS_PORT: "http" is not a port/,
    );
  });

  it("names the file, the key and the allowed values", () => {
    const path = file("bad-type.toml", '[[backends]]\nname = "a"\nurl = "http://x"\ntype = "ollamma"\n');
    const message = errorOf(() => loadConfig({ path, env: {} }));
    assert.ok(message.startsWith(`${path}: backends[0].type:`), message);
    assert.match(message, /did you mean "ollama"/);
    assert.match(message, /allowed: ollama, vllm, llamacpp, lmstudio, exo, generic, openai/);
  });

  it("rejects unknown keys with a suggestion (Nexus ignores typos)", () => {
    assert.match(
      errorOf(() => parseConfigText('[routing]\nstratgy = "smart"\n', "f.toml")),
      /^f\.toml: routing\.stratgy: unknown key; did you mean "strategy"\?$/,
    );
    assert.match(
      errorOf(() => parseConfigText("[sever]\nport = 1\n", "f.toml")),
      /sever: unknown key; did you mean "server"/,
    );
    assert.match(
      errorOf(() => parseConfigText('[[backends]]\nname="a"\nurl="http://x"\ntype="vllm"\nprority=1\n', "f.toml")),
      /backends\[0\]\.prority: unknown key; did you mean "priority"/,
    );
  });

  it("rejects alias cycles and chains longer than three hops", () => {
    assert.match(
      errorOf(() => parseConfigText('[routing.aliases]\na = "b"\nb = "a"\n', "f.toml")),
      /alias cycle a -> b -> a/,
    );
    assert.match(
      errorOf(() => parseConfigText('[routing.aliases]\na = "b"\nb = "c"\nc = "d"\nd = "e"\n', "f.toml")),
      /longer than 3 hops/,
    );
    assert.doesNotThrow(() => parseConfigText('[routing.aliases]\na = "b"\nb = "c"\nc = "d"\n', "f.toml"));
  });

  it("type-specific keys belong to their type; duplicate names and missing keys are rejected", () => {
    const anthropic = '[[backends]]\nname="c"\nurl="https://api.anthropic.com"\ntype="anthropic"\n';
    assert.match(
      errorOf(() => parseConfigText(anthropic, "f.toml", {})),
      /backends\[0\]\.api_key_env: required for type "anthropic"/,
    );
    const versioned = parseConfigText(`${anthropic}api_key_env="K"\nanthropic_version="2023-06-01"\n`, "f.toml", {
      K: "x",
    });
    assert.deepEqual(versioned.backends[0]!.options, { anthropic_version: "2023-06-01" });
    assert.equal(versioned.backends[0]!.kind, "cloud");
    assert.match(
      errorOf(() => parseConfigText(`${anthropic}api_key_env="K"\norganization="org-1"\n`, "f.toml", { K: "x" })),
      /backends\[0\]\.organization: not a key of type "anthropic" backends; its own keys: anthropic_version, default_max_tokens/,
    );
    assert.match(
      errorOf(() => parseConfigText(`${anthropic}api_key_env="K"\norganisation="org-1"\n`, "f.toml", { K: "x" })),
      /organisation: unknown key; did you mean "organization"/,
    );
    const twice =
      '[[backends]]\nname="a"\nurl="http://x"\ntype="vllm"\n[[backends]]\nname="a"\nurl="http://y"\ntype="vllm"\n';
    assert.match(
      errorOf(() => parseConfigText(twice, "f.toml")),
      /backends\[1\]\.name: "a" is already used/,
    );
    const openai = '[[backends]]\nname="o"\nurl="https://api.openai.com/v1"\ntype="openai"\napi_key_env="OPENAI_KEY"\n';
    assert.match(
      errorOf(() => parseConfigText(openai, "f.toml", {})),
      /OPENAI_KEY is not set/,
    );
    const ok = parseConfigText(openai, "f.toml", { OPENAI_KEY: "sk-test" });
    assert.equal(ok.backends[0]!.kind, "cloud");
    assert.equal(ok.backends[0]!.zone, "open");
    assert.equal(ok.backends[0]!.url, "https://api.openai.com");
  });

  it("reports invalid TOML, wrong types and missing files in one line", () => {
    assert.match(
      errorOf(() => parseConfigText("[server\nport=1", "f.toml")),
      /^f\.toml:\d+:\d+: invalid TOML/,
    );
    assert.match(
      errorOf(() => parseConfigText('[server]\nport = "x"\n', "f.toml")),
      /server\.port: expected a number, got a string/,
    );
    assert.match(
      errorOf(() => parseConfigText("[server]\nport = 70000\n", "f.toml")),
      /server\.port: 70000 is too large; maximum 65535/,
    );
    assert.match(
      errorOf(() => parseConfigText('[[backends]]\nname="a"\ntype="vllm"\n', "f.toml")),
      /backends\[0\]\.url: is required/,
    );
    assert.match(
      errorOf(() => loadConfig({ path: join(dir, "missing.toml"), env: {} })),
      /missing\.toml: file not found/,
    );
  });
});
