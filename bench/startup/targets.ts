// What bench/startup times for one copy of the services (the workspace, or the earlier commit given with --before):
// each bin to its version flag, and each bin to listening on the configs of configs.ts, written into a folder of the
// copy's own (the bridge keeps its state file beside its config, the gateway in that folder too), so that two copies
// never read each other's state.
import { mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { bridgeConfig, GATEWAY_ENV, type GatewayUpstreams, gatewayConfig } from "./configs.ts";
import type { Bins } from "./installed.ts";
import type { ListeningTarget } from "./time-to-answer.ts";

export interface ExitTarget {
  name: string;
  args: string[];
}

export interface Ports {
  bridge: number;
  /** Where nothing listens: the bridge's other accounts connect there and fail. */
  closed: number;
  gateway: number;
}

/** `label` is appended to each row's name (", before"); empty for the workspace. */
export function exitTargets(bins: Bins, label: string): ExitTarget[] {
  return [
    { name: `switchboard-gateway --version${label}`, args: [bins.gateway, "--version"] },
    { name: `switchboard-bridge -version${label}`, args: [bins.bridge, "-version"] },
  ];
}

export function listeningTargets(
  bins: Bins,
  label: string,
  options: { parentDir: string; ports: Ports; upstreams: GatewayUpstreams },
): ListeningTarget[] {
  const { ports } = options;
  const dir = mkdtempSync(join(options.parentDir, "copy-"));
  writeFileSync(join(dir, "bridge.toml"), bridgeConfig(ports.bridge, ports.closed));
  writeFileSync(join(dir, "gateway.toml"), gatewayConfig(ports.gateway, options.upstreams, dir));
  return [
    {
      name: `switchboard-gateway serve (9 backends, every section)${label}`,
      args: [bins.gateway, "serve", "--config", join(dir, "gateway.toml")],
      url: `http://127.0.0.1:${ports.gateway}/health`,
      env: { ...process.env, ...GATEWAY_ENV },
    },
    {
      name: `switchboard-bridge (13 account types)${label}`,
      args: [bins.bridge, "-conf", join(dir, "bridge.toml")],
      url: `http://127.0.0.1:${ports.bridge}/api/health`,
    },
  ];
}
