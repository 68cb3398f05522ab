// What the protocol tests through the bin share: a config bridging a platform account's channels with an api account
// (api.local) on gateway "main", the bin started with it, and a stream on the api account that shows what the
// platform account relays.
import type { Teardown } from "@switchboard/testkit";
import { type BridgeProcess, type BridgeProcessOptions, startBridgeProcess } from "./bridge-process.ts";
import { openStream, type StreamClient } from "./helpers.ts";

/** A channel of the platform account on the gateway, with its gateway options (`Topic = "relay"`) when it has any. */
type GatewayChannel = string | { channel: string; options: Record<string, string> };

export interface ApiGateway {
  /** The platform account's id, e.g. `zulip.zu`. */
  account: string;
  channels: readonly GatewayChannel[];
  /** Lines added to the api account's table, e.g. `ShowJoinPart = true`. */
  api?: string;
}

function inout(account: string, entry: GatewayChannel): string {
  const { channel, options } = typeof entry === "string" ? { channel: entry, options: {} } : entry;
  const lines = [
    "  [[gateway.inout]]",
    `  account = ${JSON.stringify(account)}`,
    `  channel = ${JSON.stringify(channel)}`,
  ];
  const optionLines = Object.entries(options).map(([key, value]) => `  ${key} = ${JSON.stringify(value)}`);
  if (optionLines.length > 0) lines.push("  [gateway.inout.options]", ...optionLines);
  return lines.join("\n");
}

/** `table` (the platform account's TOML table) and gateway "main" bridging its channels with api.local. */
export function apiGatewayConfig(table: string, gateway: ApiGateway): string {
  return `${table}

[api.local]
BindAddress = "127.0.0.1:0"
RemoteNickFormat = "{NICK}@{PROTOCOL}"
${gateway.api ?? ""}

[[gateway]]
name = "main"
enable = true
${gateway.channels.map((channel) => inout(gateway.account, channel)).join("\n")}
${inout("api.local", "api")}
`;
}

export interface ApiStream {
  bridge: BridgeProcess;
  /** The api account's base URL. */
  api: string;
  stream: StreamClient;
}

/** Starts the bin with `toml` and opens a stream on its api account (closed at teardown). */
export async function startWithApiStream(
  toml: string,
  teardown: Teardown,
  options: BridgeProcessOptions = {},
): Promise<ApiStream> {
  const bridge = await startBridgeProcess(toml, teardown, options);
  const api = bridge.url("api.local");
  const stream = await openStream(api);
  teardown.after(() => stream.close());
  return { bridge, api, stream };
}
