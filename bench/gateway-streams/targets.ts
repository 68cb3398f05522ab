// The three paths the slow streams go through: the gateway with its defaults, the gateway with the features of
// examples/gateway.toml on, and the minimal proxy. Each is started fresh (its own process) for every round.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, type ManagedProcess, startProcess } from "@switchboard/testkit";
import { minimalSwitchboardConfig } from "../gateway/switchboard.ts";
import { serviceBin } from "../service-bin.ts";

export type TargetName = "gateway" | "gateway-features" | "proxy";

export const TARGET_LABELS: Record<TargetName, string> = {
  gateway: "Switchboard, default config",
  "gateway-features": "Switchboard, examples/gateway.toml features",
  proxy: "minimal proxy (node:http + undici, no pool cap)",
};

const MASTER_KEY = "bench-master-key-0123456789";

/**
 * examples/gateway.toml's features, pointed at the slow upstream: its timeouts, health checks, smart routing with
 * weights, an alias (the requests name it), a fallback, info logs, a budget with its state file, auth with a master
 * key (the requests carry it) and a price for the model.
 */
function featuresConfig(port: number, upstreamUrl: string, dir: string): string {
  return `
[server]
host = "127.0.0.1"
port = ${port}
request_timeout_seconds = 300
body_limit_bytes = 10485760
client_timeout_seconds = 30

[health_check]
enabled = true
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
"gpt-3.5-turbo" = "bench-model"

[routing.fallbacks]
"bench-model-large" = ["bench-model"]

[logging]
level = "info"

[budget]
monthly_limit_usd = 100
daily_limit_usd = 10
soft_limit_percent = 75
hard_limit_action = "block_cloud"
state_file = "${join(dir, "spend.json")}"

[auth]
master_key_env = "BENCH_GATEWAY_MASTER_KEY"

[state]
backend = "embedded"
path = "${join(dir, "state.json")}"

[pricing."bench-model"]
input_usd_per_mtok = 3
output_usd_per_mtok = 15

[[backends]]
name = "slow-upstream"
url = "${upstreamUrl}"
type = "generic"
priority = 1
`;
}

export interface StartedTarget {
  process: ManagedProcess;
  /** The streams' URL and the health URL. */
  url: string;
  healthUrl: string;
  headers: Record<string, string>;
  /** The model the requests name. */
  model: string;
}

export interface StartOptions {
  root: string;
  upstreamUrl: string;
  /** Where heap snapshots go; undefined: no snapshots. */
  snapshotDir: string | undefined;
  /** Where V8 CPU profiles go; undefined: none. */
  profileDir: string | undefined;
  /** More flags for the target's node (e.g. --trace-gc). */
  nodeFlags: string[];
  /** A nice value for the target (e.g. -10: ahead of other work on a shared machine); undefined: inherited. */
  nice: number | undefined;
  temporaryDirs: string[];
}

export async function startTarget(name: TargetName, options: StartOptions): Promise<StartedTarget> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const snapshotFlags = [
    ...(options.snapshotDir ? ["--heapsnapshot-signal=SIGUSR2", `--diagnostic-dir=${options.snapshotDir}`] : []),
    ...(options.profileDir ? ["--cpu-prof", `--cpu-prof-dir=${options.profileDir}`] : []),
    ...options.nodeFlags,
  ];
  const start = (args: string[], env?: NodeJS.ProcessEnv) =>
    startProcess({
      name,
      // nice execs node: the pid stays the target's own.
      command: options.nice === undefined ? process.execPath : "nice",
      args: [
        ...(options.nice === undefined ? [] : ["-n", String(options.nice), process.execPath]),
        ...snapshotFlags,
        ...args,
      ],
      cwd: options.root,
      env: { ...process.env, ...env },
      ready: { port },
      timeoutMs: 30_000,
    });
  if (name === "proxy") {
    const minProxy = join(options.root, "bench/gateway/min-proxy.ts");
    const child = await start(["--import", "tsx", minProxy, String(port), options.upstreamUrl, "0"]);
    return {
      process: child,
      url: `${base}/v1/chat/completions`,
      healthUrl: `${base}/__proxy_health`,
      headers: {},
      model: "bench-model",
    };
  }
  const dir = mkdtempSync(join(tmpdir(), "switchboard-streams-bench-"));
  options.temporaryDirs.push(dir);
  const file = join(dir, "gateway.toml");
  const features = name === "gateway-features";
  writeFileSync(
    file,
    features ? featuresConfig(port, options.upstreamUrl, dir) : minimalSwitchboardConfig(port, options.upstreamUrl),
  );
  const bin = serviceBin(options.root, "gateway");
  const env = features ? { BENCH_GATEWAY_MASTER_KEY: MASTER_KEY } : {};
  const child = await start([bin, "serve", "-c", file], env).catch(async (error: Error) => {
    // Other work in the same checkout may be rebuilding dist/ just now: once more, a little later.
    if (!/dist\/ is missing/.test(error.message)) throw error;
    await new Promise((resolve) => setTimeout(resolve, 30_000));
    return start([bin, "serve", "-c", file], env);
  });
  return {
    process: child,
    url: `${base}/v1/chat/completions`,
    healthUrl: `${base}/health`,
    headers: features ? { authorization: `Bearer ${MASTER_KEY}` } : {},
    model: features ? "gpt-3.5-turbo" : "bench-model",
  };
}
