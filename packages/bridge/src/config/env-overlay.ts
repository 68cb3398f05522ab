// Environment overrides, as Matterbridge: MATTERBRIDGE_<PROTOCOL>_<NAME>_<KEY> for an account and
// MATTERBRIDGE_GENERAL_<KEY> for [general]. They apply to known keys (the core's and the account's protocol's; any
// registered protocol's in [general]), even when the key is absent from the file.
import { type DeclaredKey, declaredKeys } from "./account-settings.ts";
import { GENERAL_ONLY_KEYS } from "./core-keys.ts";
import type { ProtocolRegistry } from "./descriptor.ts";
import { fromEnv } from "./key-spec.ts";
import { emptyTable, isTable, own, type Table } from "./table.ts";

const PREFIX = "MATTERBRIDGE_";

/** Account ids (`protocol.name`, lower case) referenced by any gateway entry of the raw config. */
function referencedAccounts(raw: Table): Set<string> {
  const ids = new Set<string>();
  const gatewayList = own(raw, "gateway");
  const gateways = Array.isArray(gatewayList) ? gatewayList : [];
  for (const gateway of gateways) {
    if (!isTable(gateway)) continue;
    for (const direction of ["in", "out", "inout"]) {
      const entries = gateway[direction];
      if (!Array.isArray(entries)) continue;
      for (const entry of entries) {
        if (isTable(entry) && typeof entry["account"] === "string") ids.add(entry["account"].toLowerCase());
      }
    }
  }
  const sameList = own(raw, "samechannelgateway");
  const same = Array.isArray(sameList) ? sameList : [];
  for (const gateway of same) {
    if (isTable(gateway) && Array.isArray(gateway["accounts"])) {
      for (const account of gateway["accounts"]) if (typeof account === "string") ids.add(account.toLowerCase());
    }
  }
  return ids;
}

function overlayTable(
  target: Table,
  envPrefix: string,
  env: NodeJS.ProcessEnv,
  keys: ReadonlyMap<string, DeclaredKey>,
): boolean {
  let changed = false;
  for (const [lower, key] of keys) {
    const name = `${envPrefix}${lower.toUpperCase()}`;
    const text = Object.hasOwn(env, name) ? env[name] : undefined;
    if (text === undefined) continue;
    target[lower] = fromEnv(key.spec.kind, text);
    changed = true;
  }
  return changed;
}

/** Mutates the lower-cased raw config with the environment's values. */
export function applyEnvOverlay(raw: Table, env: NodeJS.ProcessEnv, protocols: ProtocolRegistry): void {
  const generalKeys = declaredKeys();
  // The process-wide keys too (ShutdownTimeout, StateFile, StatusAddress...).
  for (const [name, spec] of Object.entries(GENERAL_ONLY_KEYS)) {
    generalKeys.set(name.toLowerCase(), { name, spec, core: true });
  }
  for (const descriptor of protocols.descriptors()) {
    for (const [lower, key] of declaredKeys(descriptor)) if (!generalKeys.has(lower)) generalKeys.set(lower, key);
  }
  const generalSection = own(raw, "general");
  const general = isTable(generalSection) ? generalSection : emptyTable();
  if (overlayTable(general, `${PREFIX}GENERAL_`, env, generalKeys)) raw["general"] = general;

  const ids = referencedAccounts(raw);
  for (const [protocol, section] of Object.entries(raw)) {
    if (!isTable(section) || protocol === "general") continue;
    for (const name of Object.keys(section)) if (isTable(section[name])) ids.add(`${protocol}.${name}`);
  }
  for (const id of ids) {
    const dot = id.indexOf(".");
    if (dot <= 0 || dot !== id.lastIndexOf(".")) continue;
    const protocol = id.slice(0, dot);
    const name = id.slice(dot + 1);
    const descriptor = protocols.get(protocol);
    if (descriptor === undefined) continue;
    const existing = own(raw, protocol);
    const section = isTable(existing) ? existing : emptyTable();
    const found = own(section, name);
    const account = isTable(found) ? found : emptyTable();
    const prefix = `${PREFIX}${protocol.toUpperCase()}_${name.toUpperCase()}_`;
    if (overlayTable(account, prefix, env, declaredKeys(descriptor))) {
      section[name] = account;
      raw[protocol] = section;
    }
  }
}
