import type { CoreSettings, GeneralOnlySettings } from "./core-keys.ts";
import type { AccountConfig } from "./descriptor.ts";
import type { Direction } from "./direction.ts";

export type { AccountConfig } from "./descriptor.ts";
export type { Direction };

/** [general]: the core keys set there (defaults of every account) and the process-wide keys, with their defaults. */
export type GeneralSettings = Partial<CoreSettings> & GeneralOnlySettings;

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
  /** The core keys set in [general] (protocol keys there are applied to each account of that protocol). */
  general: GeneralSettings;
  /** Accounts used by an enabled gateway, by id. */
  accounts: Map<string, AccountConfig>;
  /** Enabled gateways only. */
  gateways: GatewayConfig[];
  /** Things that do not stop start-up but deserve a line in the log (unknown keys, unused sections). */
  warnings: string[];
}
