// One account's settings: the core keys and its protocol's keys, each taken from the account's table, else from
// [general] (as Matterbridge's bridge.Get* falls back to general.<key>), else the protocol's default for it, else the
// key's own default. Type errors, missing required keys and the descriptor's own checks stop start-up with one line
// that never shows a secret; keys nobody declares are warnings with the nearest known key suggested.

import { closest, didYouMean, thrownMessage } from "@switchboard/common";
import { compileGoRegex, splitPatterns } from "../regex.ts";
import { CORE_KEYS } from "./core-keys.ts";
import { describeValue } from "./describe-value.ts";
import type { AccountSettings, ProtocolDescriptor } from "./descriptor.ts";
import { ConfigError } from "./errors.ts";
import { checkKind, type KeySpec, looksSecret } from "./key-spec.ts";
import { isTable, own, spelling, type Table } from "./table.ts";

export interface DeclaredKey {
  /** Matterbridge's spelling. */
  name: string;
  spec: KeySpec;
  core: boolean;
}

/** Every key an account of this protocol reads (the core's alone without one), by lower-cased name. */
export function declaredKeys(descriptor?: ProtocolDescriptor): Map<string, DeclaredKey> {
  const keys = new Map<string, DeclaredKey>();
  for (const [name, spec] of Object.entries(CORE_KEYS)) keys.set(name.toLowerCase(), { name, spec, core: true });
  for (const [name, spec] of Object.entries(descriptor?.keys ?? {})) {
    if (!keys.has(name.toLowerCase())) keys.set(name.toLowerCase(), { name, spec, core: false });
  }
  return keys;
}

export function isSecret(key: DeclaredKey): boolean {
  return key.spec.secret === true || looksSecret(key.name);
}

function fail(message: string): never {
  throw new ConfigError(message);
}

/** Replaces every secret value of the account that a text might contain (descriptors' texts are not trusted). */
function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join("[hidden]");
  return out;
}

export interface AccountTables {
  id: string;
  /** The account's table (lower-cased keys). */
  table: Table;
  /** [general] (lower-cased keys). */
  general: Table;
}

export function resolveAccountSettings(
  descriptor: ProtocolDescriptor,
  { id, table, general }: AccountTables,
  warnings: string[],
): AccountSettings {
  const where = `[${id}]`;
  const declared = declaredKeys(descriptor);
  const unsupported = new Set((descriptor.unsupportedKeys ?? []).map((name) => name.toLowerCase()));
  const unknown: string[] = [];
  for (const [lower, value] of Object.entries(table)) {
    if (declared.has(lower) || isTable(value)) continue;
    const written = spelling(table, lower);
    if (unsupported.has(lower)) {
      warnings.push(`${where}: key "${written}" is not supported yet for ${descriptor.name} accounts; ignored`);
      continue;
    }
    unknown.push(written);
    const names = [...declared.values()].map((key) => key.name);
    warnings.push(
      `${where}: key "${written}" is not used by Switchboard for ${descriptor.name} accounts; ignored${didYouMean(written, names)}`,
    );
  }

  const settings: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  const secrets: string[] = [];
  for (const [lower, key] of declared) {
    const fromAccount = own(table, lower);
    const fromGeneral = fromAccount === undefined ? own(general, lower) : undefined;
    const protocolDefault = key.core ? own(descriptor.defaults ?? {}, key.name) : undefined;
    const value = fromAccount ?? fromGeneral ?? protocolDefault ?? key.spec.default;
    if (value === undefined) {
      if (key.spec.required) fail(missingKeyText(where, key, unknown));
      continue;
    }
    const problem = checkKind(key.spec, value);
    if (problem !== undefined) {
      const source = fromAccount !== undefined ? where : `[general] (the default for ${id})`;
      fail(`${source}: ${key.name} ${problem} (got ${describeValue(value, isSecret(key))})`);
    }
    if (isSecret(key) && typeof value === "string") secrets.push(value);
    settings[key.name] = value;
  }
  checkCoreRegexes(where, settings as AccountSettings);
  const core = settings as AccountSettings;
  if (core.ReconnectMaxDelay < core.ReconnectDelay) {
    fail(
      `${where}: ReconnectMaxDelay (${core.ReconnectMaxDelay} ms) must not be below ReconnectDelay (${core.ReconnectDelay} ms)`,
    );
  }

  const problems = descriptor.validate?.(settings as AccountSettings, { id }) ?? [];
  if (problems.length > 0) fail(scrub(`${where} ${problems.join(`; ${where} `)}`, secrets));
  return settings as AccountSettings;
}

/** `[irc.a] has no Server; did you mean Servr → Server? (e.g. Server = "irc.libera.chat:6697")`. */
function missingKeyText(where: string, key: DeclaredKey, unknown: readonly string[]): string {
  const typo = unknown.find(
    (written) => written.toLowerCase() !== key.name.toLowerCase() && closest(written, [key.name]) !== undefined,
  );
  const example = key.spec.example === undefined ? "" : `${key.name} = ${key.spec.example}`;
  if (typo !== undefined) {
    return `${where} has no ${key.name}; did you mean ${typo} → ${key.name}?${example ? ` (e.g. ${example})` : ""}`;
  }
  return `${where} has no ${key.name}; ${example ? `add e.g. ${example}` : `add ${key.name} = ...`}`;
}

function checkCoreRegexes(where: string, settings: AccountSettings): void {
  for (const name of ["IgnoreNicks", "IgnoreMessages"] as const) {
    for (const pattern of splitPatterns(settings[name])) checkRegex(pattern, where, name);
  }
  for (const name of ["ReplaceMessages", "ReplaceNicks", "ExtractNicks"] as const) {
    for (const [pattern, second] of settings[name]) {
      checkRegex(pattern, where, name);
      if (name === "ExtractNicks") checkRegex(second, where, name);
    }
  }
}

function checkRegex(pattern: string, where: string, name: string): void {
  try {
    compileGoRegex(pattern);
  } catch (error) {
    const reason = thrownMessage(error);
    fail(`${where}: ${name} has an invalid regular expression ${JSON.stringify(pattern)}: ${reason}`);
  }
}
