// Names a TOML value for an error message, as the operator wrote it: `inf` is infinity, not "null" (JSON) nor
// "number"; a date is a date, not "object". A secret's value is never shown, only its type.

function isTomlDate(value: object): value is Date & { isDate?(): boolean; isTime?(): boolean } {
  return value instanceof Date;
}

function typeName(value: unknown): string {
  if (typeof value === "string") return "a string";
  if (typeof value === "boolean") return "a boolean";
  if (typeof value === "bigint") return "an integer";
  if (typeof value === "number") {
    if (Number.isNaN(value)) return "not-a-number (nan)";
    if (!Number.isFinite(value)) return value > 0 ? "infinity (inf)" : "negative infinity (-inf)";
    return Number.isInteger(value) ? "an integer" : "a float";
  }
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object" && value !== null) {
    if (isTomlDate(value)) {
      if (value.isTime?.()) return "a time";
      if (value.isDate?.()) return "a date";
      return "a date-time";
    }
    return "a table";
  }
  return typeof value;
}

function shown(value: unknown): string | undefined {
  if (typeof value === "string") return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  if (typeof value === "boolean" || typeof value === "bigint") return String(value);
  if (value instanceof Date) return String((value as { toISOString(): string }).toISOString());
  if (Array.isArray(value)) {
    const text = JSON.stringify(value);
    return text !== undefined && text.length <= 60 ? text : undefined;
  }
  return undefined;
}

/** E.g. `the string "ten"`, `1.5`, `infinity (inf)`, `a date (1979-05-27)`; for a secret `an integer (value hidden)`. */
export function describeValue(value: unknown, secret: boolean): string {
  const type = typeName(value);
  if (secret) return `${type} (value hidden)`;
  const text = shown(value);
  if (text === undefined) return type;
  if (typeof value === "string") return `the string ${text}`;
  // A plain number or boolean reads best as itself.
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return text;
  return `${type} (${text})`;
}
