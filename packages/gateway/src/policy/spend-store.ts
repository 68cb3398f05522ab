import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { ConfigError } from "../config/config-error.ts";

/** What survives a restart: the spend of the current UTC month and day. */
export interface SpendState {
  /** "YYYY-MM" (UTC). */
  month: string;
  monthUsd: number;
  /** "YYYY-MM-DD" (UTC). */
  day: string;
  dayUsd: number;
}

const FORMAT_VERSION = 1;

/**
 * Reads the state file; undefined when there is none yet. A file that exists but cannot be read as a spend state stops
 * start-up (a ConfigError, one line): silently starting from zero would lift the budget.
 */
export function loadSpendState(path: string): SpendState | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    throw new ConfigError(`budget state file ${path}: cannot read it (${code})`);
  }
  const corrupted = (why: string) =>
    new ConfigError(
      `budget state file ${path} is corrupted (${why}); fix it, or move it away to start this month's spend from 0`,
    );
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw corrupted("not valid JSON");
  }
  const record = (parsed && typeof parsed === "object" ? parsed : {}) as Record<string, unknown>;
  if (record["version"] !== FORMAT_VERSION) throw corrupted(`expected "version": ${FORMAT_VERSION}`);
  const { month, month_usd: monthUsd, day, day_usd: dayUsd } = record;
  if (typeof month !== "string" || !/^\d{4}-\d{2}$/.test(month)) throw corrupted('"month" must be "YYYY-MM"');
  if (typeof day !== "string" || !/^\d{4}-\d{2}-\d{2}$/.test(day)) throw corrupted('"day" must be "YYYY-MM-DD"');
  if (typeof monthUsd !== "number" || !(monthUsd >= 0)) throw corrupted('"month_usd" must be a number >= 0');
  if (typeof dayUsd !== "number" || !(dayUsd >= 0)) throw corrupted('"day_usd" must be a number >= 0');
  return { month, monthUsd, day, dayUsd };
}

/**
 * Writes the state atomically: a temporary file beside it, fsync, rename over the old one, fsync of the folder. A
 * crash at any point leaves either the old state or the new one, never a torn file. Writes are coalesced: while one is
 * pending, later states only replace what it will write.
 */
export class SpendStore {
  readonly #path: string;
  #next: SpendState | undefined;
  #scheduled = false;

  constructor(
    path: string,
    private readonly onError: (error: unknown) => void,
  ) {
    this.#path = path;
  }

  save(state: SpendState): void {
    this.#next = { ...state };
    if (this.#scheduled) return;
    this.#scheduled = true;
    // After the current request's work: a burst of completions becomes one write.
    setImmediate(() => {
      const pending = this.#next;
      try {
        this.flush();
      } catch (error) {
        this.#next ??= pending; // kept for the next attempt
        this.onError(error);
      }
    });
  }

  /** Writes what is pending now (also at shutdown). Errors are thrown to the caller. */
  flush(): void {
    this.#scheduled = false;
    const state = this.#next;
    if (!state) return;
    this.#next = undefined;
    writeAtomically(this.#path, serialise(state));
  }
}

function serialise(state: SpendState): string {
  const record = {
    version: FORMAT_VERSION,
    month: state.month,
    month_usd: state.monthUsd,
    day: state.day,
    day_usd: state.dayUsd,
    updated_at: new Date().toISOString(),
  };
  return `${JSON.stringify(record, null, 2)}\n`;
}

export function writeAtomically(path: string, text: string): void {
  const temporary = `${path}.${process.pid}.tmp`;
  const fd = openSync(temporary, "w", 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, path);
  try {
    // The rename itself is durable once the folder is synced (not possible on every platform).
    const dir = openSync(dirname(path), "r");
    try {
      fsyncSync(dir);
    } finally {
      closeSync(dir);
    }
  } catch {
    // best effort
  }
}
