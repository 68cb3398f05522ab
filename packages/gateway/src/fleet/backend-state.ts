import type { Backend, ModelInfo, NativeApi } from "../backends/types.ts";
import type { BackendSettings } from "../config/types.ts";
import { ConcurrencySlots } from "./slots.ts";

export type HealthStatus = "unknown" | "healthy" | "unhealthy";

export interface Transition {
  backend: string;
  from: HealthStatus;
  to: HealthStatus;
  reason: string;
}

export interface Thresholds {
  failureThreshold: number;
  recoveryThreshold: number;
}

const LATENCY_EMA_WEIGHT = 0.2;

/**
 * A backend's live state: health, the models it lists and its concurrency slots. Owned by the Registry. Request
 * counters are not kept here: telemetry subscribers derive them from the event stream.
 */
export class BackendState {
  readonly name: string;
  readonly settings: BackendSettings;
  status: HealthStatus = "unknown";
  models: ModelInfo[] = [];
  modelsById = new Map<string, ModelInfo>();
  lastError: string | undefined;
  lastCheckAt: number | undefined;
  /** Health-probe latency, exponential moving average (ms). */
  probeLatencyMs: number | undefined;
  /** Requests in flight, acquired and released by the dispatch pipeline only. */
  readonly slots: ConcurrencySlots;
  #failures = 0;
  #successes = 0;
  readonly #firstSeen = new Map<string, number>();

  /** The APIs the backend speaks besides OpenAI's chat (routing keeps the requests only they can serve for it). */
  readonly nativeApis: ReadonlySet<NativeApi>;

  constructor(readonly backend: Backend) {
    this.nativeApis = new Set(Object.keys(backend.natives ?? {}) as NativeApi[]);
    this.settings = backend.settings;
    this.name = backend.settings.name;
    this.slots = new ConcurrencySlots(backend.settings.maxConcurrent);
  }

  /** Attempts in flight now (what routing's capacity filter and load score read). */
  get pending(): number {
    return this.slots.inFlight;
  }

  get healthy(): boolean {
    return this.status === "healthy";
  }

  /** Unix seconds at which the gateway first saw `model` here (stable `created` when the backend gives none). */
  firstSeen(model: string): number {
    return this.#firstSeen.get(model) ?? Math.floor(Date.now() / 1000);
  }

  /** A successful probe: new model list, latency average; returns the health transition, if any. */
  probeSucceeded(models: ModelInfo[], latencyMs: number, thresholds: Thresholds): Transition | undefined {
    this.lastCheckAt = Date.now();
    this.probeLatencyMs =
      this.probeLatencyMs === undefined
        ? latencyMs
        : this.probeLatencyMs + LATENCY_EMA_WEIGHT * (latencyMs - this.probeLatencyMs);
    this.setModels(models);
    this.#failures = 0;
    this.#successes++;
    if (this.status === "healthy") return undefined;
    if (this.status === "unknown" || this.#successes >= thresholds.recoveryThreshold) {
      return this.#move("healthy", `${this.#successes} successful probe(s)`);
    }
    return undefined;
  }

  /** A failed probe, or a dispatch that could not reach the backend. */
  failed(reason: string, thresholds: Thresholds): Transition | undefined {
    this.lastCheckAt = Date.now();
    this.lastError = reason;
    this.#successes = 0;
    this.#failures++;
    if (this.status === "unhealthy") return undefined;
    if (this.status === "unknown" || this.#failures >= thresholds.failureThreshold) {
      return this.#move("unhealthy", `${this.#failures} consecutive failure(s): ${reason}`);
    }
    return undefined;
  }

  setModels(models: ModelInfo[]): void {
    this.models = models;
    this.modelsById = new Map(models.map((model) => [model.id, model]));
    const now = Math.floor(Date.now() / 1000);
    for (const model of models) if (!this.#firstSeen.has(model.id)) this.#firstSeen.set(model.id, model.created ?? now);
  }

  #move(to: HealthStatus, reason: string): Transition {
    const from = this.status;
    this.status = to;
    if (to === "healthy") this.lastError = undefined;
    return { backend: this.name, from, to, reason };
  }
}
