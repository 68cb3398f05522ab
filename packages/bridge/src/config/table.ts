/** A parsed TOML table with lower-cased keys. */
export type Table = { [key: string]: unknown };

export function isTable(value: unknown): value is Table {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/** A deep copy with every table key lower-cased; on a clash the later key wins, as with viper. */
export function lowerKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(lowerKeys);
  if (!isTable(value)) return value;
  const out: Table = {};
  for (const [key, inner] of Object.entries(value)) out[key.toLowerCase()] = lowerKeys(inner);
  return out;
}
