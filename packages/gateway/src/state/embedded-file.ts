import { readRegularFile } from "@switchboard/common";
import { ConfigError } from "../config/config-error.ts";
import type { StoredKey } from "./types.ts";

/** What the embedded store keeps across restarts (rate windows and slots are per process and start empty). */
export interface EmbeddedState {
  keys: StoredKey[];
  usage: Record<string, { requests: number; promptTokens: number; completionTokens: number }>;
  /** USD by scope ("global", "key:<id>"), then by period id. */
  spend: Record<string, Record<string, number>>;
  /** "kind:id" → value and expiry (ms since the epoch). */
  records: Record<string, { value: string; expiresAt: number }>;
}

const FORMAT_VERSION = 1;

const emptyState = (): EmbeddedState => ({ keys: [], usage: {}, spend: {}, records: {} });

/**
 * Reads the state file; an empty state when there is none. A file that cannot be read as one stops start-up: starting
 * empty would silently drop every key.
 */
export function loadEmbeddedState(path: string): EmbeddedState {
  let text: string | undefined;
  try {
    text = readRegularFile(path);
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    throw new ConfigError(`state file ${path}: cannot read it (${code === "EUNSAFE" ? message : code})`);
  }
  if (text === undefined) return emptyState();
  const corrupted = (why: string) =>
    new ConfigError(
      `state file ${path} is corrupted (${why}); restore it from a backup, or move it away to start empty`,
    );
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw corrupted("not valid JSON");
  }
  const record = (parsed && typeof parsed === "object" ? parsed : {}) as Record<string, unknown>;
  if (record["version"] !== FORMAT_VERSION) throw corrupted(`expected "version": ${FORMAT_VERSION}`);
  const { keys, usage, spend, records } = record;
  if (!Array.isArray(keys) || !keys.every(isStoredKey)) throw corrupted('"keys" must be a list of keys');
  if (!isObject(usage) || !isObject(spend) || !isObject(records)) {
    throw corrupted('"usage", "spend" and "records" must be objects');
  }
  return {
    keys,
    usage: usage as EmbeddedState["usage"],
    spend: spend as EmbeddedState["spend"],
    records: records as EmbeddedState["records"],
  };
}

export function serialiseEmbeddedState(state: EmbeddedState): string {
  return `${JSON.stringify({ version: FORMAT_VERSION, ...state, updated_at: new Date().toISOString() })}\n`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function isStoredKey(value: unknown): value is StoredKey {
  if (!isObject(value)) return false;
  return (
    typeof value["id"] === "string" &&
    typeof value["name"] === "string" &&
    typeof value["hash"] === "string" &&
    /^[0-9a-f]{64}$/.test(value["hash"])
  );
}
