// Parsed TOML tables with lower-cased keys. Tables have no prototype, so a config key named `__proto__` or
// `constructor` is an ordinary key: it can neither change a table's prototype nor find Object.prototype's members.

/** A parsed TOML table with lower-cased keys (a null-prototype object). */
export type Table = { [key: string]: unknown };

export function isTable(value: unknown): value is Table {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

export function emptyTable(): Table {
  return Object.create(null) as Table;
}

/** The value of an own key of a table, never an inherited one. */
export function own(table: Table, key: string): unknown {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}

/** The key as the operator wrote it, for messages (tables keep their original spellings here). */
const spellings = new WeakMap<Table, Map<string, string>>();

export function spelling(table: Table, lowerKey: string): string {
  return spellings.get(table)?.get(lowerKey) ?? lowerKey;
}

/**
 * A deep copy with every table key lower-cased. Keys that differ only in case are merged like viper does:
 * tables merge ([API.B] and [api.c] are both in [api]), and for other values the later key wins.
 */
export function lowerKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(lowerKeys);
  if (!isTable(value)) return value;
  const out = emptyTable();
  const written = new Map<string, string>();
  for (const [key, inner] of Object.entries(value)) {
    const lower = key.toLowerCase();
    const next = lowerKeys(inner);
    const previous = own(out, lower);
    out[lower] = isTable(previous) && isTable(next) ? mergeTables(previous, next) : next;
    written.set(lower, key);
  }
  spellings.set(out, written);
  return out;
}

function mergeTables(first: Table, second: Table): Table {
  const merged = emptyTable();
  for (const [key, value] of Object.entries(first)) merged[key] = value;
  for (const [key, value] of Object.entries(second)) merged[key] = value;
  spellings.set(merged, new Map([...(spellings.get(first) ?? []), ...(spellings.get(second) ?? [])]));
  return merged;
}
