import { mergeStaticModels } from "../backends/model-facts.ts";
import type { Backend, ModelInfo } from "../backends/types.ts";
import { BackendState, type Thresholds, type Transition } from "./backend-state.ts";

/** Every configured backend, the model index built from their model lists, and health transitions. */
export class Registry {
  readonly backends: readonly BackendState[];
  readonly #byName: Map<string, BackendState>;
  #index = new Map<string, BackendState[]>();
  readonly #listeners = new Set<(transition: Transition) => void>();

  constructor(
    backends: readonly Backend[],
    readonly thresholds: Thresholds,
  ) {
    this.backends = backends.map((backend) => new BackendState(backend));
    this.#byName = new Map(this.backends.map((state) => [state.name, state]));
    for (const state of this.backends) state.setModels(mergeStaticModels([], state.settings.models));
    this.#reindex();
  }

  get(name: string): BackendState | undefined {
    return this.#byName.get(name);
  }

  /** Backends that list `model`, healthy or not, in configuration order. */
  backendsFor(model: string): readonly BackendState[] {
    return this.#index.get(model) ?? [];
  }

  /** Whether any backend (healthy or not) lists `model`. */
  knows(model: string): boolean {
    return this.#index.has(model);
  }

  /** Every model id any backend lists, healthy or not. */
  modelIds(): Iterable<string> {
    return this.#index.keys();
  }

  /** Distinct model ids on healthy backends, sorted. */
  healthyModelIds(): string[] {
    const ids = new Set<string>();
    for (const state of this.backends) if (state.healthy) for (const model of state.models) ids.add(model.id);
    return [...ids].sort();
  }

  onTransition(listener: (transition: Transition) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  probeSucceeded(state: BackendState, discovered: ModelInfo[], latencyMs: number): void {
    const transition = state.probeSucceeded(
      mergeStaticModels(discovered, state.settings.models),
      latencyMs,
      this.thresholds,
    );
    this.#reindex();
    if (transition) this.#emit(transition);
  }

  /** A failed probe or a failed dispatch attempt (connection error, timeout, 5xx). */
  failed(state: BackendState, reason: string): void {
    const transition = state.failed(reason, this.thresholds);
    if (transition) this.#emit(transition);
  }

  #emit(transition: Transition): void {
    for (const listener of this.#listeners) listener(transition);
  }

  #reindex(): void {
    const index = new Map<string, BackendState[]>();
    for (const state of this.backends) {
      for (const model of state.models) {
        const list = index.get(model.id);
        if (list) list.push(state);
        else index.set(model.id, [state]);
      }
    }
    this.#index = index;
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.backends.map((state) => state.backend.close()));
  }
}
