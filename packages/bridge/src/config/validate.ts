// Turns the lower-cased raw TOML into a BridgeConfig, or throws a ConfigError with one clear line. This file knows
// the generic structure only ([general], [protocol.name] sections, [[gateway]], [[samechannelgateway]]); each
// account's keys are read by account-settings.ts with the core keys and its protocol's descriptor.

import { didYouMean } from "@switchboard/common";
import { declaredKeys, isSecret, resolveAccountSettings } from "./account-settings.ts";
import { CORE_KEYS, GENERAL_ONLY_KEYS } from "./core-keys.ts";
import { describeValue } from "./describe-value.ts";
import type { ProtocolRegistry } from "./descriptor.ts";
import { ConfigError } from "./errors.ts";
import { isHostPort } from "./host-port.ts";
import { checkKind } from "./key-spec.ts";
import { emptyTable, isTable, own, spelling, type Table } from "./table.ts";
import type { AccountConfig, BridgeConfig, ChannelConfig, Direction, GatewayConfig, GeneralSettings } from "./types.ts";

/** Protocols Matterbridge has; named in the error when a config uses one Switchboard does not implement yet. */
const MATTERBRIDGE_PROTOCOLS = new Set([
  "api", "discord", "harmony", "irc", "keybase", "matrix", "mattermost", "msteams", "mumble", "nctalk", "rocketchat",
  "slack", "slack-legacy", "sshchat", "steam", "telegram", "vk", "whatsapp", "xmpp", "zulip",
]); // biome-ignore format: a list

const TOP_LEVEL = new Set(["general", "gateway", "samechannelgateway", "tengo"]);
const DIRECTIONS: Direction[] = ["in", "out", "inout"];

export interface ValidateOptions {
  path: string;
  protocols: ProtocolRegistry;
}

function fail(message: string): never {
  throw new ConfigError(message);
}

/**
 * [general]: the core keys are checked here; a protocol's key is checked for each account of that protocol (it is
 * that account's default); a key no registered protocol declares is a warning.
 */
function readGeneral(table: Table, protocols: ProtocolRegistry, warnings: string[]): GeneralSettings {
  const general: Record<string, unknown> = {};
  const known = new Map<string, string>();
  for (const name of Object.keys(CORE_KEYS)) known.set(name.toLowerCase(), name);
  for (const descriptor of protocols.descriptors()) {
    for (const key of declaredKeys(descriptor).values()) known.set(key.name.toLowerCase(), key.name);
    for (const name of descriptor.unsupportedKeys ?? []) known.set(name.toLowerCase(), name);
  }
  const core = declaredKeys();
  for (const [name, spec] of Object.entries(GENERAL_ONLY_KEYS)) {
    core.set(name.toLowerCase(), { name, spec, core: true });
    known.set(name.toLowerCase(), name);
  }
  for (const [name, spec] of Object.entries(GENERAL_ONLY_KEYS))
    general[name] ??= "default" in spec ? spec.default : undefined;
  for (const [lower, value] of Object.entries(table)) {
    const key = core.get(lower);
    if (key !== undefined) {
      const problem = checkKind(key.spec, value);
      if (problem) fail(`[general]: ${key.name} ${problem} (got ${describeValue(value, isSecret(key))})`);
      general[key.name] = value;
    } else if (!known.has(lower) && !isTable(value)) {
      const written = spelling(table, lower);
      warnings.push(
        `[general]: key "${written}" is not used by Switchboard; ignored${didYouMean(written, known.values())}`,
      );
    }
  }
  const status = general["StatusAddress"];
  if (typeof status === "string" && status !== "" && !isHostPort(status)) {
    fail(`[general]: StatusAddress must be <host>:<port>, e.g. "127.0.0.1:9090" (got ${JSON.stringify(status)})`);
  }
  return general as GeneralSettings;
}

function tableList(raw: Table, key: string): Table[] {
  const value = own(raw, key);
  if (value === undefined) return [];
  if (!Array.isArray(value)) fail(`[${key}] must be an array of tables: write [[${key}]]`);
  return value.map((entry, index) => (isTable(entry) ? entry : fail(`[[${key}]] entry ${index + 1} is not a table`)));
}

function gatewayName(entry: Table, index: number, kind: string): string {
  const name = entry["name"];
  if (typeof name !== "string" || name.trim() === "") fail(`[[${kind}]] number ${index + 1} has no name`);
  return name;
}

function isEnabled(entry: Table, name: string, kind: string): boolean {
  const enable = entry["enable"] ?? false;
  if (typeof enable !== "boolean") fail(`[[${kind}]] "${name}": enable must be true or false`);
  return enable;
}

/** Adds or merges a channel: the same account+channel in `in` and `out` becomes `inout`, as in Matterbridge. */
function addChannel(channels: ChannelConfig[], next: ChannelConfig): void {
  const same = channels.find(
    (c) => c.account.toLowerCase() === next.account.toLowerCase() && c.channel === next.channel,
  );
  if (!same) {
    channels.push(next);
  } else if (same.direction !== next.direction) {
    same.direction = "inout";
  }
}

function readGateway(entry: Table, name: string): ChannelConfig[] {
  const channels: ChannelConfig[] = [];
  for (const direction of DIRECTIONS) {
    const list = entry[direction];
    if (list === undefined) continue;
    if (!Array.isArray(list)) fail(`gateway "${name}": ${direction} must be written [[gateway.${direction}]]`);
    for (const item of list) {
      if (!isTable(item)) fail(`gateway "${name}": a [[gateway.${direction}]] entry is not a table`);
      const account = item["account"];
      if (typeof account !== "string" || account === "") {
        fail(`gateway "${name}": a [[gateway.${direction}]] entry has no account (e.g. account = "api.local")`);
      }
      let channel = item["channel"];
      if (channel === undefined && account.toLowerCase().startsWith("api.")) channel = "api";
      if (typeof channel !== "string" || channel === "") {
        fail(`gateway "${name}": account ${account} in [[gateway.${direction}]] has no channel`);
      }
      const options = isTable(item["options"]) ? item["options"] : {};
      addChannel(channels, { account, channel, direction, options, sameChannel: false });
    }
  }
  return channels;
}

function readSameChannelGateway(entry: Table, name: string): ChannelConfig[] {
  const accounts = entry["accounts"];
  const channels = entry["channels"];
  const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === "string");
  if (!isStrings(accounts) || !isStrings(channels)) {
    fail(`samechannelgateway "${name}": accounts and channels must be lists of strings`);
  }
  const result: ChannelConfig[] = [];
  for (const account of accounts) {
    for (const channel of channels) {
      addChannel(result, { account, channel, direction: "inout", options: {}, sameChannel: true });
    }
  }
  return result;
}

function resolveAccount(
  raw: Table,
  id: string,
  gateway: string,
  protocols: ProtocolRegistry,
  general: Table,
  warnings: string[],
): AccountConfig {
  const parts = id.split(".");
  const protocol = parts[0]?.toLowerCase() ?? "";
  const name = parts[1] ?? "";
  if (parts.length !== 2 || protocol === "" || name === "") {
    fail(`gateway "${gateway}": account "${id}" must be written <protocol>.<name>, e.g. api.local`);
  }
  const descriptor = protocols.get(protocol);
  if (descriptor === undefined) {
    const known = MATTERBRIDGE_PROTOCOLS.has(protocol) ? "is not supported yet" : "is not a known protocol";
    const supported = protocols.names.join(", ");
    fail(`gateway "${gateway}": account ${id}: protocol "${protocol}" ${known}; supported protocols: ${supported}`);
  }
  const section = own(raw, protocol);
  const table = isTable(section) ? own(section, name.toLowerCase()) : undefined;
  if (!isTable(table)) fail(`account ${id} is used in gateway "${gateway}" but has no [${protocol}.${name}] section`);
  const settings = resolveAccountSettings(descriptor, { id, table, general }, warnings);
  return { id, protocol, name, settings, descriptor };
}

export function validateConfig(raw: Table, options: ValidateOptions): BridgeConfig {
  const warnings: string[] = [];
  const generalTable = own(raw, "general") ?? emptyTable();
  if (!isTable(generalTable)) fail("[general] must be a table");
  const general = readGeneral(generalTable, options.protocols, warnings);
  if (own(raw, "tengo") !== undefined) warnings.push("[tengo] scripts are not supported by Switchboard; ignored");

  const gateways: GatewayConfig[] = [];
  const names = new Set<string>();
  const sources = [
    ...tableList(raw, "gateway").map((entry) => ({ entry, kind: "gateway" })),
    ...tableList(raw, "samechannelgateway").map((entry) => ({ entry, kind: "samechannelgateway" })),
  ];
  for (const [index, { entry, kind }] of sources.entries()) {
    const name = gatewayName(entry, index, kind);
    if (names.has(name)) fail(`duplicate gateway name "${name}": every [[gateway]] needs its own name`);
    names.add(name);
    if (!isEnabled(entry, name, kind)) continue;
    const channels = kind === "gateway" ? readGateway(entry, name) : readSameChannelGateway(entry, name);
    gateways.push({ name, channels });
  }
  if (gateways.length === 0) {
    fail("no enabled gateway: add a [[gateway]] with name, enable = true and [[gateway.inout]] entries");
  }

  const accounts = new Map<string, AccountConfig>();
  const byLower = new Map<string, AccountConfig>();
  for (const gateway of gateways) {
    for (const channel of gateway.channels) {
      const lower = channel.account.toLowerCase();
      let account = byLower.get(lower);
      if (!account) {
        account = resolveAccount(raw, channel.account, gateway.name, options.protocols, generalTable, warnings);
        byLower.set(lower, account);
        accounts.set(account.id, account);
      }
      channel.account = account.id;
    }
  }
  for (const [key, value] of Object.entries(raw)) {
    if (TOP_LEVEL.has(key) || !isTable(value)) continue;
    for (const name of Object.keys(value)) {
      if (isTable(value[name]) && !byLower.has(`${key}.${name}`)) {
        warnings.push(`[${key}.${name}] is not used by any enabled gateway; ignored`);
      }
    }
  }
  return { path: options.path, general, accounts, gateways, warnings };
}
