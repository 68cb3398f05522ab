// How a config key is declared: its kind, default, and whether it is required or secret. The core's per-account keys
// (core-keys.ts) and every protocol's own keys (accounts/<protocol>/keys.ts) are declared with these builders, and
// the config reader turns a table into typed settings with them.

/**
 * The value kinds Matterbridge configs use. Durations are integers (seconds or milliseconds: each key says which,
 * as in Matterbridge). `strings` is a list of strings (RunCommands); `pairs` a list of [string, string] (ReplaceNicks).
 */
export type KeyKind = "string" | "integer" | "boolean" | "strings" | "pairs";

interface KindValues {
  string: string;
  integer: number;
  boolean: boolean;
  strings: string[];
  pairs: [string, string][];
}

export interface KeySpec<K extends KeyKind = KeyKind> {
  readonly kind: K;
  /** Used when neither the account nor [general] sets the key. */
  readonly default?: KindValues[K];
  /** A start-up error when neither the account nor [general] sets it. */
  readonly required?: boolean;
  /** Never shown in errors or logs (Token, Password...). */
  readonly secret?: boolean;
  /** For integers: the accepted range, inclusive. */
  readonly min?: number;
  readonly max?: number;
  /** A value shown in "add e.g. Key = <example>" when a required key is missing, written as TOML. */
  readonly example?: string;
  /** One line for the operator; docs/bridge.md shows the same text. */
  readonly description?: string;
}

/** A protocol's (or the core's) keys, by their Matterbridge spelling, e.g. `{ Server: key.string({ required: true }) }`. */
export type KeySpecs = Readonly<Record<string, KeySpec>>;

type Options<K extends KeyKind> = Omit<KeySpec<K>, "kind">;

/** Builders that keep the literal options in the type, so `SettingsOf` knows which keys always have a value. */
export const key = {
  string: <const O extends Options<"string">>(options?: O) =>
    ({ kind: "string", ...options }) as { kind: "string" } & O,
  integer: <const O extends Options<"integer">>(options?: O) =>
    ({ kind: "integer", ...options }) as { kind: "integer" } & O,
  boolean: <const O extends Options<"boolean">>(options?: O) =>
    ({ kind: "boolean", ...options }) as { kind: "boolean" } & O,
  strings: <const O extends Options<"strings">>(options?: O) =>
    ({ kind: "strings", ...options }) as { kind: "strings" } & O,
  pairs: <const O extends Options<"pairs">>(options?: O) => ({ kind: "pairs", ...options }) as { kind: "pairs" } & O,
};

type ValueOf<S> = S extends { kind: infer K extends KeyKind } ? KindValues[K] : never;
type AlwaysSet<S> = S extends { default: unknown } ? true : S extends { required: true } ? true : false;

/**
 * The typed settings an account gets for some keys: a key with a default or marked required always has a value;
 * any other key is undefined when the config does not set it.
 */
export type SettingsOf<S extends KeySpecs> = {
  readonly [K in keyof S]: AlwaysSet<S[K]> extends true ? ValueOf<S[K]> : ValueOf<S[K]> | undefined;
};

const isStrings = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === "string");

/** Checks a value against its spec; returns what is wrong (e.g. "must be an integer") or undefined. */
export function checkKind(spec: KeySpec, value: unknown): string | undefined {
  switch (spec.kind) {
    case "string":
      return typeof value === "string" ? undefined : "must be a string";
    case "boolean":
      return typeof value === "boolean" ? undefined : "must be true or false";
    case "strings":
      return isStrings(value) ? undefined : "must be a list of strings";
    case "pairs":
      return Array.isArray(value) && value.every((pair) => isStrings(pair) && pair.length === 2)
        ? undefined
        : "must be a list of [regex, replacement] pairs of strings";
    case "integer": {
      if (typeof value !== "number" || !Number.isSafeInteger(value)) return "must be an integer";
      if (spec.min !== undefined && value < spec.min) return rangeText(spec);
      if (spec.max !== undefined && value > spec.max) return rangeText(spec);
      return undefined;
    }
  }
}

function rangeText(spec: KeySpec): string {
  if (spec.min !== undefined && spec.max !== undefined) return `must be between ${spec.min} and ${spec.max}`;
  return spec.min !== undefined ? `must be at least ${spec.min}` : `must be at most ${spec.max}`;
}

/** Converts an environment variable's text to the key's kind (lists are given as JSON); bad text stays text. */
export function fromEnv(kind: KeyKind, text: string): unknown {
  switch (kind) {
    case "string":
      return text;
    case "integer":
      return /^-?\d+$/.test(text.trim()) ? Number(text.trim()) : text;
    case "boolean": {
      const lower = text.trim().toLowerCase();
      if (lower === "true" || lower === "1") return true;
      if (lower === "false" || lower === "0" || lower === "") return false;
      return text;
    }
    case "strings":
    case "pairs":
      try {
        return JSON.parse(text) as unknown;
      } catch {
        return text;
      }
  }
}

/** A key whose name says it holds a secret, even if no spec marks it (other protocols' keys, typos of them). */
export function looksSecret(name: string): boolean {
  return /pass(word)?|token|secret|credential|apikey|api_key|privatekey/i.test(name);
}
