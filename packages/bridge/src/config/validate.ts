// Turns the lower-cased raw TOML into a BridgeConfig, or throws a ConfigError with one clear line.
import { compileGoRegex, splitPatterns } from "../regex.ts";
import { ConfigError } from "./errors.ts";
import { ACCOUNT_KEYS, checkValue, GENERAL_ONLY_KEYS, isAccountKey, type Settings } from "./keys.ts";
import { isTable, type Table } from "./table.ts";
import type { AccountConfig, BridgeConfig, ChannelConfig, Direction, GatewayConfig } from "./types.ts";

/** Protocols Matterbridge has; named in the error when a config uses one Switchboard does not implement yet. */
const MATTERBRIDGE_PROTOCOLS = new Set([
  "api", "discord", "harmony", "irc", "keybase", "matrix", "mattermost", "msteams", "mumble", "nctalk", "rocketchat",
  "slack", "slack-legacy", "sshchat", "steam", "telegram", "vk", "whatsapp", "xmpp", "zulip",
]); // biome-ignore format: a list

const TOP_LEVEL = new Set(["general", "gateway", "samechannelgateway", "tengo"]);
const DIRECTIONS: Direction[] = ["in", "out", "inout"];

export interface ValidateOptions {
  path: string;
  supportedProtocols: readonly string[];
}

function fail(message: string): never {
  throw new ConfigError(message);
}

function readSettings(table: Table, where: string, warnings: string[]): Settings {
  const settings: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(table)) {
    if (!isAccountKey(key)) {
      if (!isTable(value)) warnings.push(`${where}: key "${key}" is not used by Switchboard; ignored`);
      continue;
    }
    const problem = checkValue(key, value);
    if (problem) fail(`${where}: ${ACCOUNT_KEYS[key].name} ${problem} (got ${JSON.stringify(value)})`);
    if (GENERAL_ONLY_KEYS.has(key) && where !== "[general]") {
      warnings.push(`${where}: ${ACCOUNT_KEYS[key].name} is read from [general] only; ignored here`);
      continue;
    }
    settings[key] = value;
  }
  for (const key of ["ignorenicks", "ignoremessages"] as const) {
    for (const pattern of splitPatterns(settings[key] as string | undefined)) checkRegex(pattern, where, key);
  }
  for (const key of ["replacemessages", "replacenicks", "extractnicks"] as const) {
    const pairs = settings[key] as [string, string][] | undefined;
    for (const [pattern, second] of pairs ?? []) {
      checkRegex(pattern, where, key);
      if (key === "extractnicks") checkRegex(second, where, key);
    }
  }
  return settings as Settings;
}

function checkRegex(pattern: string, where: string, key: keyof typeof ACCOUNT_KEYS): void {
  try {
    compileGoRegex(pattern);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    fail(`${where}: ${ACCOUNT_KEYS[key].name} has an invalid regular expression ${JSON.stringify(pattern)}: ${reason}`);
  }
}

function tableList(raw: Table, key: string): Table[] {
  const value = raw[key];
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
  options: ValidateOptions,
  general: Settings,
  warnings: string[],
): AccountConfig {
  const parts = id.split(".");
  const protocol = parts[0]?.toLowerCase() ?? "";
  const name = parts[1] ?? "";
  if (parts.length !== 2 || protocol === "" || name === "") {
    fail(`gateway "${gateway}": account "${id}" must be written <protocol>.<name>, e.g. api.local`);
  }
  if (!options.supportedProtocols.includes(protocol)) {
    const known = MATTERBRIDGE_PROTOCOLS.has(protocol) ? "is not supported yet" : "is not a known protocol";
    const supported = options.supportedProtocols.join(", ");
    fail(`gateway "${gateway}": account ${id}: protocol "${protocol}" ${known}; supported protocols: ${supported}`);
  }
  const section = raw[protocol];
  const table = isTable(section) ? section[name.toLowerCase()] : undefined;
  if (!isTable(table)) fail(`account ${id} is used in gateway "${gateway}" but has no [${protocol}.${name}] section`);
  const own = readSettings(table, `[${protocol}.${name}]`, warnings);
  const settings: Settings = { ...general, ...own };
  if (protocol === "api") checkApiAccount(id, settings);
  return { id, protocol, name, settings };
}

function checkApiAccount(id: string, settings: Settings): void {
  const bind = settings.bindaddress;
  if (bind === undefined || bind.trim() === "") {
    fail(`[${id}] has no BindAddress; add e.g. BindAddress = "127.0.0.1:4242"`);
  }
  if (!/^(\[[0-9a-fA-F:.]+\]|[^:\s]*):\d{1,5}$/.test(bind) || Number(bind.slice(bind.lastIndexOf(":") + 1)) > 65535) {
    fail(`[${id}] BindAddress must be <host>:<port>, e.g. "127.0.0.1:4242" (got ${JSON.stringify(bind)})`);
  }
  if (settings.buffer !== undefined && (settings.buffer < 0 || settings.buffer > 1_000_000)) {
    fail(`[${id}] Buffer must be between 0 and 1000000 (got ${settings.buffer})`);
  }
  if (settings.bodylimit !== undefined && (settings.bodylimit < 1 || settings.bodylimit > 1024 ** 3)) {
    fail(`[${id}] BodyLimit must be between 1 and ${1024 ** 3} bytes (got ${settings.bodylimit})`);
  }
  checkRange(id, "readheadertimeout", settings.readheadertimeout, 1, 3600, " seconds");
  checkRange(id, "readtimeout", settings.readtimeout, 1, 3600, " seconds");
  checkRange(id, "idletimeout", settings.idletimeout, 1, 3600, " seconds");
  checkRange(id, "maxconnections", settings.maxconnections, 1, 1_000_000, "");
}

function checkRange(
  id: string,
  key: keyof typeof ACCOUNT_KEYS,
  value: number | undefined,
  min: number,
  max: number,
  unit: string,
): void {
  if (value !== undefined && (value < min || value > max)) {
    fail(`[${id}] ${ACCOUNT_KEYS[key].name} must be between ${min} and ${max}${unit} (got ${value})`);
  }
}

export function validateConfig(raw: Table, options: ValidateOptions): BridgeConfig {
  const warnings: string[] = [];
  const generalTable = raw["general"] ?? {};
  if (!isTable(generalTable)) fail("[general] must be a table");
  const general = readSettings(generalTable, "[general]", warnings);
  checkRange("general", "shutdowntimeout", general.shutdowntimeout, 1, 3600, " seconds");
  if (raw["tengo"] !== undefined) warnings.push("[tengo] scripts are not supported by Switchboard; ignored");

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
        account = resolveAccount(raw, channel.account, gateway.name, options, general, warnings);
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
