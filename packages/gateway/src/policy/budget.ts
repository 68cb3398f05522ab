import { type FileLock, lockFile } from "@switchboard/common";
import type { BudgetSettings } from "../config/types.ts";
import type { Candidate, Filter, FilterContext, Rejection } from "../routing/types.ts";
import {
  loadSpendState,
  type SpendState,
  SpendStore,
  type SpendStoreOptions,
  type StoreCondition,
} from "./spend-store.ts";

export type BudgetStatus = "Normal" | "SoftLimit" | "HardLimit";

/** The spend replicas share (the Redis state store): each adds its calls' costs and reads everyone's. */
export interface SharedSpend {
  add(usd: number, at: Date): void;
  read(at: Date): Promise<{ monthUsd: number; dayUsd: number }>;
}

const SHARING =
  'Give each gateway its own [budget] state_file, or let replicas share the spend with [state] backend = "redis"';

const ACTION_NAMES = { warn: "Warn", block_cloud: "BlockCloud", block_all: "BlockAll" } as const;

function monthOf(date: Date): string {
  return date.toISOString().slice(0, 7);
}

function dayOf(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** The first day of the next UTC month, "YYYY-MM-DD". */
function nextMonthStart(date: Date): string {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1)).toISOString().slice(0, 10);
}

/**
 * Spend against `[budget]`: monthly and optional daily USD limits that reset at the UTC calendar boundary. Spend comes
 * from the real usage of each call (see SpendRecorder) and is kept in a state file across restarts.
 */
export class Budget {
  readonly #settings: BudgetSettings;
  readonly #now: () => Date;
  readonly #store: SpendStore;
  readonly #shared: SharedSpend | undefined;
  readonly #lock: FileLock | undefined;
  #state: SpendState;
  #lastRecorded: Date | undefined;

  /**
   * Loads the spend so far; throws ConfigError when the state file is corrupted, FileInUseError when another process
   * has it. With a shared spend (Redis) the file is each replica's copy of it, and replicas may share it.
   */
  constructor(
    settings: BudgetSettings,
    options: { now?: () => Date; store?: SpendStoreOptions; shared?: SharedSpend } = {},
  ) {
    this.#settings = settings;
    this.#shared = options.shared;
    this.#now = options.now ?? (() => new Date());
    this.#lock = options.shared ? undefined : lockFile(settings.stateFile, "budget state file", SHARING);
    this.#store = new SpendStore(settings.stateFile, options.store);
    const now = this.#now;
    const today = now();
    try {
      this.#state = loadSpendState(settings.stateFile) ?? {
        month: monthOf(today),
        monthUsd: 0,
        day: dayOf(today),
        dayUsd: 0,
      };
    } catch (error) {
      this.#lock?.release();
      throw error;
    }
    this.#rollOver(today);
  }

  get settings(): BudgetSettings {
    return this.#settings;
  }

  /** Whether the state file takes writes (`/health`, `/v1/stats` and `/metrics` show it). */
  get storeCondition(): StoreCondition {
    return this.#store.condition;
  }

  /** Adds a call's cost. A cost that is not a finite positive number, or that would make the spend one, is ignored. */
  record(costUsd: number): void {
    if (!(costUsd > 0) || !Number.isFinite(costUsd)) return;
    const now = this.#now();
    this.#rollOver(now);
    if (!Number.isFinite(this.#state.monthUsd + costUsd)) return;
    this.#state.monthUsd += costUsd;
    this.#state.dayUsd += costUsd;
    this.#lastRecorded = now;
    this.#store.save(this.#state);
    this.#shared?.add(costUsd, now);
  }

  /**
   * Takes the shared spend (every replica's) as this one's: called every second with a shared store, so a replica's
   * view of the global budget is at most that old. Keeps its own view when the store cannot answer.
   */
  async refresh(): Promise<void> {
    if (!this.#shared) return;
    const now = this.#now();
    const { monthUsd, dayUsd } = await this.#shared.read(now);
    this.#rollOver(now);
    if (this.#state.month !== monthOf(now) || this.#state.day !== dayOf(now)) return;
    this.#state = { ...this.#state, monthUsd, dayUsd };
    this.#store.save(this.#state);
  }

  /** Spend so far in the current month and day (after any calendar rollover). */
  spend(): { monthUsd: number; dayUsd: number } {
    this.#rollOver(this.#now());
    return { monthUsd: this.#state.monthUsd, dayUsd: this.#state.dayUsd };
  }

  /** The larger of the monthly and daily utilisation (percent), the status it gives and what is left (USD). */
  status(): { status: BudgetStatus; utilizationPercent: number; remainingUsd: number } {
    const { monthUsd, dayUsd } = this.spend();
    const { monthlyLimitUsd, dailyLimitUsd, softLimitPercent } = this.#settings;
    let utilization = 0;
    let remaining = Number.POSITIVE_INFINITY;
    if (monthlyLimitUsd !== undefined) {
      utilization = Math.max(utilization, (monthUsd / monthlyLimitUsd) * 100);
      remaining = Math.min(remaining, monthlyLimitUsd - monthUsd);
    }
    if (dailyLimitUsd !== undefined) {
      utilization = Math.max(utilization, (dayUsd / dailyLimitUsd) * 100);
      remaining = Math.min(remaining, dailyLimitUsd - dayUsd);
    }
    const status: BudgetStatus =
      utilization >= 100 ? "HardLimit" : utilization >= softLimitPercent ? "SoftLimit" : "Normal";
    return {
      status,
      utilizationPercent: utilization,
      remainingUsd: Number.isFinite(remaining) ? Math.max(0, remaining) : 0,
    };
  }

  /** Whether a backend of this kind may be used now (the hard-limit action). */
  allows(kind: "local" | "cloud"): boolean {
    const action = this.#settings.hardLimitAction;
    if (action === "warn" || (action === "block_cloud" && kind === "local")) return true;
    return this.status().status !== "HardLimit";
  }

  /** Above the soft limit cloud backends go after the local ones. */
  deprioritisesCloud(): boolean {
    return this.status().status !== "Normal";
  }

  /** X-Gateway-Budget-* headers; none while the status is Normal. */
  headers(): Record<string, string> {
    const { status, utilizationPercent, remainingUsd } = this.status();
    if (status === "Normal") return {};
    return {
      "x-gateway-budget-status": status,
      "x-gateway-budget-utilization": utilizationPercent.toFixed(2),
      "x-gateway-budget-remaining": remainingUsd.toFixed(2),
    };
  }

  /** The `budget` object of GET /v1/stats (Nexus's field names, plus the daily ones). */
  statsBody(): Record<string, unknown> {
    const now = this.#now();
    const { monthUsd, dayUsd } = this.spend();
    const { status, utilizationPercent } = this.status();
    const round = (value: number) => Math.round(value * 1e6) / 1e6;
    return {
      current_spending_usd: round(monthUsd),
      monthly_limit_usd: this.#settings.monthlyLimitUsd ?? null,
      daily_spending_usd: round(dayUsd),
      daily_limit_usd: this.#settings.dailyLimitUsd ?? null,
      utilization_percent: Math.round(utilizationPercent * 100) / 100,
      status,
      billing_month: this.#state.month,
      last_reconciliation: (this.#lastRecorded ?? now).toISOString(),
      soft_limit_threshold: this.#settings.softLimitPercent,
      hard_limit_action: ACTION_NAMES[this.#settings.hardLimitAction],
      next_reset_date: nextMonthStart(now),
      state_store: this.storeCondition.state,
    };
  }

  /** Writes the pending state now (at shutdown), and gives the file up. */
  close(): void {
    try {
      this.#store.flush();
    } finally {
      this.#lock?.release();
    }
  }

  #rollOver(now: Date): void {
    const month = monthOf(now);
    const day = dayOf(now);
    if (this.#state.month !== month) this.#state = { ...this.#state, month, monthUsd: 0 };
    if (this.#state.day !== day) this.#state = { ...this.#state, day, dayUsd: 0 };
  }
}

/** Routing filter: at the hard limit, `block_cloud` excludes cloud backends and `block_all` every backend. */
export function budgetFilter(budget: Budget): Filter {
  // Named: routing metrics label each stage by its filter's name.
  return function budgetStage<C extends Candidate>(
    candidates: readonly C[],
    context: FilterContext,
    rejected: Rejection[],
  ): C[] {
    if (budget.allows("cloud")) return candidates as C[];
    const kept: C[] = [];
    for (const candidate of candidates) {
      if (budget.allows(candidate.settings.kind)) kept.push(candidate);
      else {
        rejected.push({
          backend: candidate.name,
          model: context.model,
          reason: "budget_exceeded",
          detail: `budget hard limit reached (hard_limit_action = ${budget.settings.hardLimitAction})`,
        });
      }
    }
    return kept;
  };
}

/**
 * Routing order: above the soft limit, the strategy's order is kept within local and within cloud backends, and
 * every local backend comes first (cloud ones stay as failover). Returns the input when nothing moves.
 */
export function budgetOrder(budget: Budget): <C extends Candidate>(ordered: C[]) => C[] {
  return <C extends Candidate>(ordered: C[]): C[] => {
    if (ordered.length < 2 || !budget.deprioritisesCloud()) return ordered;
    const local = ordered.filter((candidate) => candidate.settings.kind === "local");
    if (local.length === 0 || local.length === ordered.length) return ordered;
    return [...local, ...ordered.filter((candidate) => candidate.settings.kind !== "local")];
  };
}
