// What every inbound API's translation checks a client's JSON with: a plain object (not null, not an array).

export const isObject = (value: unknown): value is Record<string, unknown> =>
  !!value && typeof value === "object" && !Array.isArray(value);
