// The configs the "to listening" rows start the bins on: every account type the bridge supports, and every backend
// type and feature section of the gateway (as examples/gateway.toml lists them).

/** Every bridge protocol, api first: the bridge starts accounts in config order, and the api account is what listens. */
const BRIDGE_PROTOCOLS = [
  "api",
  "irc",
  "xmpp",
  "matrix",
  "discord",
  "slack",
  "telegram",
  "mattermost",
  "zulip",
  "rocketchat",
  "nctalk",
  "msteams",
  "mumble",
] as const;

/**
 * The bridge with one account of each type on one gateway. Every account but the api one points at `closedPort`
 * (nothing listens there): each makes its first connect attempt, fails, and retries in the background, which the
 * bridge does without holding up the others. The state file (the default one, beside the config) is kept.
 */
export function bridgeConfig(apiPort: number, closedPort: number): string {
  const there = `127.0.0.1:${closedPort}`;
  const url = `http://${there}`;
  const accounts = `
[general]
RemoteNickFormat = "[{PROTOCOL}] <{NICK}> "

[api.web]
BindAddress = "127.0.0.1:${apiPort}"
Buffer = 1000

[irc.chat]
Server = "${there}"
Nick = "bridgebot"

[xmpp.chat]
Server = "${there}"
Jid = "bridge@localhost"
Password = "pw"
Muc = "conference.localhost"
Nick = "Bridge"
NoTLS = true

[matrix.hs]
Server = "${url}"
Login = "bridgebot"
Password = "pw"

[discord.dc]
Token = "token"
Server = "guild"
ApiURL = "${url}/api"

[slack.ws]
Token = "xoxb-1"
AppToken = "xapp-1"
ApiURL = "${url}/api/"

[telegram.tg]
Token = "1:abc"
ApiURL = "${url}"

[mattermost.mm]
Server = "${there}"
NoTLS = true
Team = "team"
Login = "bridgebot"
Password = "pw"

[zulip.work]
Server = "${url}"
Login = "bot@example.com"
Token = "key"

[rocketchat.rc]
Server = "${url}"
Login = "bridgebot"
Password = "pw"

[nctalk.cloud]
Server = "${url}"
Login = "bridgebot"
Password = "pw"

[msteams.work]
TenantID = "tenant"
ClientID = "client"
TeamID = "team"
LoginURL = "${url}"
GraphURL = "${url}"

[mumble.voice]
Server = "${there}"
Nick = "bridgebot"
`;
  const channels: Record<(typeof BRIDGE_PROTOCOLS)[number], string> = {
    api: "api.web api",
    irc: "irc.chat #room",
    xmpp: "xmpp.chat room",
    matrix: "matrix.hs #room:localhost",
    discord: "discord.dc general",
    slack: "slack.ws general",
    telegram: "telegram.tg -100123",
    mattermost: "mattermost.mm town-square",
    zulip: "zulip.work general/topic:bridge",
    rocketchat: "rocketchat.rc #general",
    nctalk: "nctalk.cloud abc123",
    msteams: "msteams.work General",
    mumble: "mumble.voice 1",
  };
  const inouts = BRIDGE_PROTOCOLS.map((protocol) => {
    const [account, channel] = channels[protocol].split(" ");
    return `  [[gateway.inout]]\n  account = "${account}"\n  channel = "${channel}"\n`;
  });
  return `${accounts}\n[[gateway]]\nname = "all"\nenable = true\n${inouts.join("")}`;
}

export interface GatewayUpstreams {
  ollama: string;
  openai: string;
  anthropic: string;
  google: string;
}

/** The environment variables the gateway config names (cloud keys, the master key). */
export const GATEWAY_ENV = {
  BENCH_OPENAI_KEY: "sk-bench",
  BENCH_ANTHROPIC_KEY: "sk-ant-bench",
  BENCH_GEMINI_KEY: "gemini-bench",
  BENCH_MASTER_KEY: "bench-master-key-0123456789",
};

const OPENAI_COMPATIBLE_TYPES = ["vllm", "llamacpp", "lmstudio", "exo", "generic"];

/**
 * The gateway with a backend of every type (on the testkit's simulators), and every section of
 * examples/gateway.toml set: routing with aliases, fallbacks and a policy, budget with a state file, auth, the
 * embedded state, pricing, lifecycle; tracing on as well, and discovery left on (its default).
 */
export function gatewayConfig(port: number, upstreams: GatewayUpstreams, stateDir: string): string {
  const backend = (name: string, type: string, url: string, extra = "") =>
    `[[backends]]\nname = "${name}"\nurl = "${url}"\ntype = "${type}"\n${extra}\n`;
  const compatible = OPENAI_COMPATIBLE_TYPES.map((type, index) =>
    backend(`${type}-box`, type, upstreams.openai, `priority = ${2 + index}\n`),
  );
  return `
[server]
host = "127.0.0.1"
port = ${port}

[health_check]
enabled = true
interval_seconds = 30

[routing]
strategy = "smart"
max_retries = 2

[routing.weights]
priority = 50
load = 30
latency = 20

[routing.aliases]
"gpt-3.5-turbo" = "llama3.2:3b"

[routing.fallbacks]
"llama3.1:70b" = ["llama3.1:8b", "llama3.2:3b"]

[[routing.policies]]
model_pattern = "internal-*"
privacy = "restricted"
min_tier = 2

[logging]
level = "info"

[budget]
monthly_limit_usd = 100
daily_limit_usd = 10
soft_limit_percent = 75
hard_limit_action = "block_cloud"
state_file = "${stateDir}/gateway-spend.json"

[auth]
master_key_env = "BENCH_MASTER_KEY"

[state]
backend = "embedded"
path = "${stateDir}/gateway-state.json"

[pricing."my-finetune"]
input_usd_per_mtok = 3
output_usd_per_mtok = 15

[lifecycle]
operation_timeout_seconds = 3600

[tracing]
enabled = true

${backend("local-ollama", "ollama", upstreams.ollama, "priority = 1\n")}
${compatible.join("\n")}
${backend("openai", "openai", upstreams.openai, 'api_key_env = "BENCH_OPENAI_KEY"\npriority = 90\n')}
${backend("claude", "anthropic", upstreams.anthropic, 'api_key_env = "BENCH_ANTHROPIC_KEY"\npriority = 90\n')}
${backend("gemini", "google", upstreams.google, 'api_key_env = "BENCH_GEMINI_KEY"\npriority = 90\n')}
`;
}
