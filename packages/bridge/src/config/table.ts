/** A parsed TOML table with lower-cased keys. */
export type Table = { [key: string]: unknown };

export function isTable(value: unknown): value is Table {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/**
 * A deep copy with every table key lower-cased. Keys that differ only in case are merged like viper does:
 * tables merge ([API.B] and [api.c] are both in [api]), and for other values the later key wins.
 */
export function lowerKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(lowerKeys);
  if (!isTable(value)) return value;
  const out: Table = {};
  for (const [key, inner] of Object.entries(value)) {
    const lower = key.toLowerCase();
    const next = lowerKeys(inner);
    const previous = out[lower];
    out[lower] = isTable(previous) && isTable(next) ? { ...previous, ...next } : next;
  }
  return out;
}
