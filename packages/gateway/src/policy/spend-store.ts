import { readRegularFile, replaceRegularFile, thrownMessage } from "@switchboard/common";
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
  let text: string | undefined;
  try {
    text = readRegularFile(path);
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    throw new ConfigError(`budget state file ${path}: cannot read it (${code === "EUNSAFE" ? message : code})`);
  }
  if (text === undefined) return undefined;
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
  // JSON.parse reads 1e309 as Infinity: a spend that can never be paid off is as corrupted as a negative one.
  const usd = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value) && value >= 0;
  if (!usd(monthUsd)) throw corrupted('"month_usd" must be a finite number >= 0');
  if (!usd(dayUsd)) throw corrupted('"day_usd" must be a finite number >= 0');
  return { month, monthUsd, day, dayUsd };
}

/** Whether the state file takes writes: "failing" from a failed write until one succeeds. */
export type StoreCondition = { state: "ok" } | { state: "failing"; reason: string };

export interface SpendStoreOptions {
  /** Called when the condition changes (ok → failing, failing → ok), not on every failed write. */
  onChange?: (condition: StoreCondition) => void;
  /** First retry after a failed write; each further failure doubles it, up to `maxRetryMs`. */
  firstRetryMs?: number;
  maxRetryMs?: number;
}

/**
 * Writes the state file (see replaceStateFile) after the current turn's work: a burst of completions becomes one
 * write, later states only replace what the pending write will write. A failed write keeps the state in memory and is
 * retried with backoff (spend still counts; the next write carries all of it).
 */
export class SpendStore {
  readonly #path: string;
  readonly #onChange: (condition: StoreCondition) => void;
  readonly #firstRetryMs: number;
  readonly #maxRetryMs: number;
  #next: SpendState | undefined;
  /** Cancels the write scheduled (after this turn, or a retry); undefined when none is. */
  #scheduled: (() => void) | undefined;
  #condition: StoreCondition = { state: "ok" };
  #retryMs: number;

  constructor(path: string, options: SpendStoreOptions = {}) {
    this.#path = path;
    this.#onChange = options.onChange ?? (() => {});
    this.#firstRetryMs = options.firstRetryMs ?? 1_000;
    this.#maxRetryMs = options.maxRetryMs ?? 60_000;
    this.#retryMs = this.#firstRetryMs;
  }

  get condition(): StoreCondition {
    return this.#condition;
  }

  save(state: SpendState): void {
    this.#next = { ...state };
    // While failing, the retry timer writes the latest state: no write per completion against a broken file.
    if (this.#scheduled) return;
    const immediate = setImmediate(() => this.#attempt());
    this.#scheduled = () => clearImmediate(immediate);
  }

  /** Writes what is pending now (at shutdown), with no more retries. Throws when the write fails. */
  flush(): void {
    this.#scheduled?.();
    this.#scheduled = undefined;
    const state = this.#next;
    if (!state) return;
    this.#write(state);
  }

  #attempt(): void {
    this.#scheduled = undefined;
    const state = this.#next;
    if (!state) return;
    try {
      this.#write(state);
    } catch {
      const retry = setTimeout(() => this.#attempt(), this.#retryMs);
      retry.unref();
      this.#scheduled = () => clearTimeout(retry);
      this.#retryMs = Math.min(this.#retryMs * 2, this.#maxRetryMs);
    }
  }

  /** One write; on failure the state stays pending and the condition turns "failing" (reported once). */
  #write(state: SpendState): void {
    try {
      replaceRegularFile(this.#path, serialise(state));
    } catch (error) {
      const reason = describe(error);
      if (this.#condition.state === "ok") {
        this.#condition = { state: "failing", reason };
        this.#onChange(this.#condition);
      }
      throw error;
    }
    if (this.#next === state) this.#next = undefined;
    this.#retryMs = this.#firstRetryMs;
    if (this.#condition.state === "failing") {
      this.#condition = { state: "ok" };
      this.#onChange(this.#condition);
    }
  }
}

/** One line, no stack: "EACCES: permission denied, open '…'". */
function describe(error: unknown): string {
  return thrownMessage(error);
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
