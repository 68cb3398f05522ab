import type { Settings } from "./keys.ts";

export type Direction = "in" | "out" | "inout";

export interface AccountConfig {
  /** `<protocol>.<name>` as the gateways spell it; used in the `account` field of messages. */
  id: string;
  protocol: string;
  name: string;
  /** The account's own keys over the [general] defaults. */
  settings: Settings;
}

export interface ChannelConfig {
  /** Id of the account (see AccountConfig.id). */
  account: string;
  channel: string;
  direction: Direction;
  /** [gateway.<dir>.options]: key, WebhookURL, Topic... kept as given for the protocols that use them. */
  options: Record<string, unknown>;
  /** From [[samechannelgateway]]: deliver only to the same channel name on other accounts. */
  sameChannel: boolean;
}

export interface GatewayConfig {
  name: string;
  channels: ChannelConfig[];
}

export interface BridgeConfig {
  path: string;
  general: Settings;
  /** Accounts used by an enabled gateway, by id. */
  accounts: Map<string, AccountConfig>;
  /** Enabled gateways only. */
  gateways: GatewayConfig[];
  /** Things that do not stop start-up but deserve a line in the log (unknown keys, unused sections). */
  warnings: string[];
}
