// Reading fields of JSON a platform sent, without trusting its shape: each reader answers the value when it has the
// expected type and undefined otherwise, so a decoder never throws on a null, an array or a number where it expected
// an object or a string.

export type JsonObject = Record<string, unknown>;

export function objectOf(value: unknown): JsonObject | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as JsonObject) : undefined;
}

export function stringOf(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

export function integerOf(value: unknown): number | undefined {
  return typeof value === "number" && Number.isSafeInteger(value) ? value : undefined;
}

export function arrayOf(value: unknown): readonly unknown[] | undefined {
  return Array.isArray(value) ? value : undefined;
}

/** A list's entries that a reader accepts; undefined when the value is not a list. */
export function listOf<T>(value: unknown, read: (entry: unknown) => T | undefined): T[] | undefined {
  const list = arrayOf(value);
  if (list === undefined) return undefined;
  const kept: T[] = [];
  for (const entry of list) {
    const accepted = read(entry);
    if (accepted !== undefined) kept.push(accepted);
  }
  return kept;
}
