// The account and [general] keys Switchboard understands, with their types. Keys match case-insensitively.
import { z } from "zod";

export type KeyKind = "string" | "integer" | "boolean" | "pairs";

const pairs = z.array(z.tuple([z.string(), z.string()]));

const kinds = {
  string: z.string({ error: "must be a string" }),
  integer: z.int({ error: "must be an integer" }),
  boolean: z.boolean({ error: "must be true or false" }),
  pairs,
} as const;

interface KeySpec {
  /** The spelling Matterbridge documents; shown in messages. */
  name: string;
  kind: KeyKind;
}

/** Keys of an account section (also valid in [general] as defaults). */
export const ACCOUNT_KEYS = {
  remotenickformat: { name: "RemoteNickFormat", kind: "string" },
  stripnick: { name: "StripNick", kind: "boolean" },
  label: { name: "Label", kind: "string" },
  ignorenicks: { name: "IgnoreNicks", kind: "string" },
  ignoremessages: { name: "IgnoreMessages", kind: "string" },
  replacemessages: { name: "ReplaceMessages", kind: "pairs" },
  replacenicks: { name: "ReplaceNicks", kind: "pairs" },
  extractnicks: { name: "ExtractNicks", kind: "pairs" },
  showjoinpart: { name: "ShowJoinPart", kind: "boolean" },
  showtopicchange: { name: "ShowTopicChange", kind: "boolean" },
  synctopic: { name: "SyncTopic", kind: "boolean" },
  preservethreading: { name: "PreserveThreading", kind: "boolean" },
  bindaddress: { name: "BindAddress", kind: "string" },
  buffer: { name: "Buffer", kind: "integer" },
  token: { name: "Token", kind: "string" },
  bodylimit: { name: "BodyLimit", kind: "integer" },
  // api account: HTTP connection limits (Switchboard only; seconds and a count; defaults in accounts/api/server-limits.ts)
  readheadertimeout: { name: "ReadHeaderTimeout", kind: "integer" },
  readtimeout: { name: "ReadTimeout", kind: "integer" },
  idletimeout: { name: "IdleTimeout", kind: "integer" },
  maxconnections: { name: "MaxConnections", kind: "integer" },
  // [general] only: seconds a stop (SIGTERM/SIGINT) waits for work in progress before cutting it and exiting 1
  shutdowntimeout: { name: "ShutdownTimeout", kind: "integer" },
} as const satisfies Record<string, KeySpec>;

export type AccountKey = keyof typeof ACCOUNT_KEYS;

/** Keys read from [general] only; in an account section they are ignored with a warning. */
export const GENERAL_ONLY_KEYS: ReadonlySet<AccountKey> = new Set(["shutdowntimeout"]);

type KindType<K extends KeyKind> = z.infer<(typeof kinds)[K]>;

/** Values of the known keys, typed; absent keys are undefined. */
export type Settings = { -readonly [K in AccountKey]?: KindType<(typeof ACCOUNT_KEYS)[K]["kind"]> };

export function isAccountKey(key: string): key is AccountKey {
  return Object.hasOwn(ACCOUNT_KEYS, key);
}

/** Validates one value; returns an error text (without the location) or undefined. */
export function checkValue(key: AccountKey, value: unknown): string | undefined {
  const result = kinds[ACCOUNT_KEYS[key].kind].safeParse(value);
  if (result.success) return undefined;
  if (ACCOUNT_KEYS[key].kind === "pairs") return "must be a list of [regex, replacement] pairs of strings";
  return result.error.issues[0]?.message ?? "has an invalid value";
}

/** Converts an environment variable's text to the key's type (lists are given as JSON). */
export function fromEnv(key: AccountKey, text: string): unknown {
  switch (ACCOUNT_KEYS[key].kind) {
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
    case "pairs":
      try {
        return JSON.parse(text) as unknown;
      } catch {
        return text;
      }
  }
}
