// Environment overrides, as Matterbridge: MATTERBRIDGE_<PROTOCOL>_<NAME>_<KEY> for an account and
// MATTERBRIDGE_GENERAL_<KEY> for [general]. They apply to known keys, even when the key is absent from the file.
import { ACCOUNT_KEYS, type AccountKey, fromEnv } from "./keys.ts";
import { emptyTable, isTable, type Table } from "./table.ts";

const PREFIX = "MATTERBRIDGE_";

/** Account ids (`protocol.name`, lower case) referenced by any gateway entry of the raw config. */
function referencedAccounts(raw: Table): Set<string> {
  const ids = new Set<string>();
  const gateways = Array.isArray(raw["gateway"]) ? raw["gateway"] : [];
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
  const same = Array.isArray(raw["samechannelgateway"]) ? raw["samechannelgateway"] : [];
  for (const gateway of same) {
    if (isTable(gateway) && Array.isArray(gateway["accounts"])) {
      for (const account of gateway["accounts"]) if (typeof account === "string") ids.add(account.toLowerCase());
    }
  }
  return ids;
}

function overlayTable(target: Table, envPrefix: string, env: NodeJS.ProcessEnv): boolean {
  let changed = false;
  for (const key of Object.keys(ACCOUNT_KEYS) as AccountKey[]) {
    const text = env[`${envPrefix}${key.toUpperCase()}`];
    if (text === undefined) continue;
    target[key] = fromEnv(key, text);
    changed = true;
  }
  return changed;
}

/** Mutates the lower-cased raw config with the environment's values. */
export function applyEnvOverlay(raw: Table, env: NodeJS.ProcessEnv): void {
  const general = isTable(raw["general"]) ? raw["general"] : emptyTable();
  if (overlayTable(general, `${PREFIX}GENERAL_`, env)) raw["general"] = general;

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
    const section = isTable(raw[protocol]) ? raw[protocol] : emptyTable();
    const account = isTable(section[name]) ? section[name] : emptyTable();
    if (overlayTable(account, `${PREFIX}${protocol.toUpperCase()}_${name.toUpperCase()}_`, env)) {
      section[name] = account;
      raw[protocol] = section;
    }
  }
}
