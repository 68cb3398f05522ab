/**
 * Words for whatever was thrown. `throw` takes any value, and `String()` itself throws on an object without a usable
 * `toString` (`Object.create(null)`, `{ toString: null }`), as `instanceof` does on a revoked proxy: describing a
 * failure must not become a second one.
 */
export function thrownMessage(thrown: unknown): string {
  if (isError(thrown) && typeof thrown.message === "string") return thrown.message;
  return asText(thrown);
}

/** What was thrown, as an Error: an Error as it is, anything else wrapped in one that says what it was. */
export function asError(thrown: unknown): Error {
  return isError(thrown) ? thrown : new Error(asText(thrown));
}

function isError(value: unknown): value is Error {
  try {
    return value instanceof Error;
  } catch {
    return false;
  }
}

function asText(value: unknown): string {
  if (typeof value === "string") return value;
  try {
    return String(value);
  } catch {
    try {
      return Object.prototype.toString.call(value);
    } catch {
      return `a thrown ${typeof value}`;
    }
  }
}
