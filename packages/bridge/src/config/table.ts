/** A parsed TOML table with lower-cased keys. */
export type Table = { [key: string]: unknown };

export function isTable(value: unknown): value is Table {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/**
 * A table without a prototype: names from the file (accounts, protocols, gateways, keys) are plain own properties,
 * so `__proto__`, `constructor` or `toString` are names like any other and never reach Object.prototype.
 */
export function emptyTable(): Table {
  return Object.create(null) as Table;
}

/**
 * A deep copy with every table key lower-cased. Keys that differ only in case are merged like viper does:
 * tables merge ([API.B] and [api.c] are both in [api]), and for other values the later key wins.
 */
export function lowerKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(lowerKeys);
  if (!isTable(value)) return value;
  const out = emptyTable();
  for (const [key, inner] of Object.entries(value)) {
    const lower = key.toLowerCase();
    const next = lowerKeys(inner);
    const previous = out[lower];
    out[lower] = isTable(previous) && isTable(next) ? Object.assign(emptyTable(), previous, next) : next;
  }
  return out;
}
