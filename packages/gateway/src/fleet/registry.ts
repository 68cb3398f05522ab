import { mergeStaticModels } from "../backends/model-facts.ts";
import type { Backend, ModelInfo } from "../backends/types.ts";
import type { BackendSource } from "../telemetry/events.ts";
import { BackendState, type Thresholds, type Transition } from "./backend-state.ts";

/** A change to the fleet: a backend added, replaced or removed, or the models a backend lists. */
export type FleetChange =
  | { kind: "backend"; change: "added" | "updated" | "removed"; state: BackendState; source: BackendSource }
  | { kind: "models"; state: BackendState; added: string[]; removed: string[] };

/**
 * The fleet: every backend, the model index built from their model lists, and health transitions. It changes at run
 * time through add, replace and remove (discovery, lifecycle and config reload all use these), each reported to the
 * change listeners, while requests are in flight: a removed backend takes no new requests, finishes the ones it has,
 * and is closed once idle.
 */
export class Registry {
  #backends: BackendState[];
  readonly #byName: Map<string, BackendState>;
  readonly #sources = new Map<string, BackendSource>();
  #index = new Map<string, BackendState[]>();
  readonly #listeners = new Set<(transition: Transition) => void>();
  readonly #changeListeners = new Set<(change: FleetChange) => void>();
  readonly #draining = new Set<Promise<void>>();

  constructor(
    backends: readonly Backend[],
    readonly thresholds: Thresholds,
  ) {
    this.#backends = backends.map((backend) => new BackendState(backend));
    this.#byName = new Map(this.#backends.map((state) => [state.name, state]));
    for (const state of this.#backends) {
      state.setModels(mergeStaticModels([], state.settings.models));
      this.#sources.set(state.name, "config");
    }
    this.#reindex();
  }

  /** The backends now, in configuration (then addition) order. */
  get backends(): readonly BackendState[] {
    return this.#backends;
  }

  /** Where a backend came from (config, mdns, api). */
  sourceOf(name: string): BackendSource | undefined {
    return this.#sources.get(name);
  }

  onChange(listener: (change: FleetChange) => void): () => void {
    this.#changeListeners.add(listener);
    return () => this.#changeListeners.delete(listener);
  }

  /** Adds a backend (its static models listed at once; a health probe makes it routable). Names are unique. */
  add(backend: Backend, source: BackendSource): BackendState {
    const name = backend.settings.name;
    if (this.#byName.has(name)) throw new Error(`a backend named "${name}" already exists`);
    const state = new BackendState(backend);
    state.setModels(mergeStaticModels([], state.settings.models));
    this.#backends = [...this.#backends, state];
    this.#byName.set(name, state);
    this.#sources.set(name, source);
    this.#reindex();
    this.#changed({ kind: "backend", change: "added", state, source });
    return state;
  }

  /** Replaces a backend's settings: the old one drains as on removal, the new one starts unprobed. */
  replace(backend: Backend, source: BackendSource): BackendState {
    const old = this.#byName.get(backend.settings.name);
    if (!old) throw new Error(`no backend named "${backend.settings.name}"`);
    const state = new BackendState(backend);
    state.setModels(mergeStaticModels([], state.settings.models));
    this.#backends = this.#backends.map((candidate) => (candidate === old ? state : candidate));
    this.#byName.set(state.name, state);
    this.#sources.set(state.name, source);
    this.#reindex();
    this.#retire(old);
    this.#changed({ kind: "backend", change: "updated", state, source });
    return state;
  }

  /** Removes a backend: routing stops at once; requests in flight finish; it is closed once idle. */
  remove(name: string): boolean {
    const state = this.#byName.get(name);
    if (!state) return false;
    const source = this.#sources.get(name) ?? "config";
    this.#backends = this.#backends.filter((candidate) => candidate !== state);
    this.#byName.delete(name);
    this.#sources.delete(name);
    this.#reindex();
    this.#retire(state);
    this.#changed({ kind: "backend", change: "removed", state, source });
    return true;
  }

  /** Whether `state` is still part of the fleet (a probe may finish after its backend was removed). */
  has(state: BackendState): boolean {
    return this.#byName.get(state.name) === state;
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
    if (!this.has(state)) return;
    const before = new Set(state.models.map((model) => model.id));
    const transition = state.probeSucceeded(
      mergeStaticModels(discovered, state.settings.models),
      latencyMs,
      this.thresholds,
    );
    this.#reindex();
    const after = new Set(state.models.map((model) => model.id));
    const added = [...after].filter((id) => !before.has(id));
    const removed = [...before].filter((id) => !after.has(id));
    if (added.length > 0 || removed.length > 0) this.#changed({ kind: "models", state, added, removed });
    if (transition) this.#emit(transition);
  }

  /** A failed probe or a failed dispatch attempt (connection error, timeout, 5xx). */
  failed(state: BackendState, reason: string): void {
    if (!this.has(state)) return;
    const transition = state.failed(reason, this.thresholds);
    if (transition) this.#emit(transition);
  }

  #changed(change: FleetChange): void {
    for (const listener of this.#changeListeners) listener(change);
  }

  /** Closes a backend that left the fleet once its last request has finished. */
  #retire(state: BackendState): void {
    const closed = new Promise<void>((resolve) => {
      const closeWhenIdle = () => {
        if (state.pending > 0) return;
        off();
        state.backend.close().then(resolve, resolve);
      };
      const off = state.slots.onRelease(closeWhenIdle);
      closeWhenIdle();
    });
    this.#draining.add(closed);
    closed.finally(() => this.#draining.delete(closed));
  }

  #emit(transition: Transition): void {
    for (const listener of this.#listeners) listener(transition);
  }

  #reindex(): void {
    const index = new Map<string, BackendState[]>();
    for (const state of this.#backends) {
      for (const model of state.models) {
        const list = index.get(model.id);
        if (list) list.push(state);
        else index.set(model.id, [state]);
      }
    }
    this.#index = index;
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.#backends.map((state) => state.backend.close()), ...this.#draining]);
  }
}
