import type { ModelLifecycle } from "../backends/types.ts";
import type { BackendState } from "../fleet/backend-state.ts";
import type { HealthChecker } from "../fleet/health-checker.ts";
import type { Registry } from "../fleet/registry.ts";
import { type Check, keep } from "../routing/filters/keep.ts";
import type { Candidate, Filter, FilterContext, Rejection } from "../routing/types.ts";
import type { OperationView } from "../telemetry/events.ts";
import type { ModelsInFlight } from "./in-flight.ts";
import type { OperationHandle, OperationStore } from "./operations.ts";
import { untilAborted } from "./until-aborted.ts";

/** Why a lifecycle request cannot start: the HTTP status and a message that says what to do. */
export interface LifecycleRefusal {
  status: 404 | 409 | 501 | 502;
  code: string;
  message: string;
}

type Started = OperationView | LifecycleRefusal;

/** A refusal, as opposed to a backend, a lifecycle or an operation (whose `status` are words). */
export const refused = (value: unknown): value is LifecycleRefusal =>
  typeof (value as { status?: unknown }).status === "number";

/** A (backend, model) pair set: by backend, then model, so that a lookup builds no key string. */
class PairSet {
  readonly #models = new Map<string, Set<string>>();
  /** Pairs held: routing skips the lookups altogether while there are none (no load or migration going on). */
  #size = 0;

  get empty(): boolean {
    return this.#size === 0;
  }

  add(backend: string, model: string): void {
    let models = this.#models.get(backend);
    if (models === undefined) {
      models = new Set();
      this.#models.set(backend, models);
    }
    if (models.has(model)) return;
    models.add(model);
    this.#size++;
  }

  delete(backend: string, model: string): void {
    const models = this.#models.get(backend);
    if (models === undefined || !models.delete(model)) return;
    this.#size--;
    if (models.size === 0) this.#models.delete(backend);
  }

  has(backend: string, model: string): boolean {
    return this.#models.get(backend)?.has(model) ?? false;
  }
}

/** Ollama names a model "llama3" or "llama3:latest" depending on how it was asked for. */
const sameModel = (a: string, b: string) => a === b || `${a}:latest` === b || a === `${b}:latest`;

/** Whether the backend holds the model in memory now (a backend that cannot say is taken as not holding it). */
async function holds(lifecycle: ModelLifecycle, model: string): Promise<boolean> {
  try {
    return (await lifecycle.inMemory()).some((name) => sameModel(name, model));
  } catch {
    return false;
  }
}

/**
 * Loads, unloads and migrates models on backends whose type supports it. An operation completes when the backend
 * really has the model (it lists it and has it in memory), not on a timer. While a model loads on a backend, that
 * backend is out of routing for that model only; after a migration the source stays out for the model, so traffic
 * stays on the target.
 */
export class LifecycleManager {
  readonly #loading = new PairSet();
  readonly #movedAway = new PairSet();

  constructor(
    private readonly registry: Registry,
    private readonly health: HealthChecker,
    readonly operations: OperationStore,
    private readonly inFlight: ModelsInFlight,
  ) {
    const loading = this.#loading;
    const movedAway = this.#movedAway;
    const check: Check = (candidate, context) => {
      const why = this.excluded(candidate.name, context.model);
      if (why === undefined) return undefined;
      return {
        reason: why,
        detail: why === "model_loading" ? "the model is being loaded there" : "the model was migrated away",
      };
    };
    this.filter = function lifecycleStage<C extends Candidate>(
      candidates: readonly C[],
      context: FilterContext,
      rejected: Rejection[],
    ): C[] {
      // The usual case, no load or migration going on: nothing to look up, nothing to allocate.
      if (loading.empty && movedAway.empty) return candidates as C[];
      return keep(candidates, context, rejected, check);
    };
  }

  /** The routing stage (before capacity): leaves out backends loading the model, or that it was migrated away from. */
  readonly filter: Filter;

  load(model: string, backend: string): Started {
    const state = this.#backend(backend);
    if (refused(state)) return state;
    const lifecycle = this.#lifecycleOf(state);
    if (refused(lifecycle)) return lifecycle;
    const busy = this.#busy([backend]);
    if (busy) return busy;
    return this.operations.start("load", model, backend, undefined, [backend], (handle) =>
      this.#loadOn(state, lifecycle, model, handle, 0, 1),
    );
  }

  unload(model: string, backend: string): Started {
    const state = this.#backend(backend);
    if (refused(state)) return state;
    if (!state.models.some((entry) => sameModel(entry.id, model))) {
      return { status: 404, code: "model_not_found", message: `Backend '${backend}' does not have model '${model}'` };
    }
    const lifecycle = this.#lifecycleOf(state);
    if (refused(lifecycle)) return lifecycle;
    const busy = this.#busy([backend]);
    if (busy) return busy;
    const inFlight = this.inFlight.count(backend, model);
    if (inFlight > 0) {
      return {
        status: 409,
        code: "model_in_use",
        message: `Model '${model}' has ${inFlight} request(s) in flight on '${backend}'; retry when they are done, or migrate it`,
      };
    }
    return this.operations.start("unload", model, backend, undefined, [backend], async (handle) => {
      handle.progress("unloading from memory", 0.5);
      await lifecycle.unload(model);
    });
  }

  migrate(model: string, from: string, to: string, keepSource: boolean): Started {
    const source = this.#backend(from);
    if (refused(source)) return source;
    const target = this.#backend(to);
    if (refused(target)) return target;
    if (from === to) return { status: 409, code: "same_backend", message: "from and to name the same backend" };
    if (!source.models.some((entry) => sameModel(entry.id, model))) {
      return { status: 404, code: "model_not_found", message: `Backend '${from}' does not have model '${model}'` };
    }
    const targetLifecycle = this.#lifecycleOf(target);
    if (refused(targetLifecycle)) return targetLifecycle;
    const sourceLifecycle = keepSource ? undefined : this.#lifecycleOf(source);
    if (sourceLifecycle && refused(sourceLifecycle)) return sourceLifecycle;
    const busy = this.#busy([from, to]);
    if (busy) return busy;
    return this.operations.start("migrate", model, to, from, [from, to], async (handle) => {
      await this.#loadOn(target, targetLifecycle, model, handle, 0, 0.7);
      handle.signal.throwIfAborted();
      // The target serves the model: new requests go there only; the source finishes what it has.
      this.#movedAway.add(from, model);
      handle.progress(`shifting traffic from ${from}`, 0.8);
      await untilAborted(this.inFlight.idle(from, model), handle.signal);
      if (sourceLifecycle) {
        handle.progress(`unloading from ${from}`, 0.9);
        await sourceLifecycle.unload(model);
      }
    });
  }

  /** Why `backend` must not serve `model` now, if it must not. */
  excluded(backend: string, model: string): "model_loading" | "model_migrated" | undefined {
    if (this.#loading.has(backend, model)) return "model_loading";
    if (this.#movedAway.has(backend, model)) return "model_migrated";
    return undefined;
  }

  /**
   * Pulls when missing, loads into memory, then confirms the backend lists and holds the model. The backend is left
   * out of routing for the model meanwhile, unless it already lists and holds it: then it serves it all along (a load
   * of a model in service must not take it out of service).
   */
  async #loadOn(
    state: BackendState,
    lifecycle: ModelLifecycle,
    model: string,
    handle: OperationHandle,
    start: number,
    end: number,
  ): Promise<void> {
    const span = end - start;
    const { signal } = handle;
    this.#movedAway.delete(state.name, model);
    const listed = state.models.some((entry) => sameModel(entry.id, model));
    const serving = listed && (await holds(lifecycle, model));
    if (!serving) this.#loading.add(state.name, model);
    try {
      signal.throwIfAborted();
      if (!listed) {
        await lifecycle.pull(
          model,
          (progress) =>
            handle.progress(
              progress.detail,
              progress.fraction === undefined ? undefined : start + span * 0.8 * progress.fraction,
            ),
          signal,
        );
      }
      handle.progress("loading into memory", start + span * 0.85);
      await lifecycle.load(model, signal);
      handle.progress("confirming", start + span * 0.95);
      const current = this.registry.get(state.name) ?? state;
      await untilAborted(this.health.checkBackend(current), signal);
      if (!current.models.some((entry) => sameModel(entry.id, model))) {
        throw new Error(`'${state.name}' does not list '${model}' after loading it`);
      }
      const inMemory = await lifecycle.inMemory();
      if (!inMemory.some((name) => sameModel(name, model))) {
        throw new Error(`'${state.name}' does not hold '${model}' in memory after loading it`);
      }
    } finally {
      if (!serving) this.#loading.delete(state.name, model);
    }
  }

  #backend(name: string): BackendState | LifecycleRefusal {
    return this.registry.get(name) ?? { status: 404, code: "backend_not_found", message: `No backend named '${name}'` };
  }

  #lifecycleOf(state: BackendState): ModelLifecycle | LifecycleRefusal {
    if (state.status === "unhealthy") {
      return {
        status: 502,
        code: "backend_unavailable",
        message: `Backend '${state.name}' is unhealthy (${state.lastError ?? "failing health checks"}); nothing can be loaded there now`,
      };
    }
    return (
      state.backend.lifecycle ?? {
        status: 501,
        code: "lifecycle_unsupported",
        message: `Backend '${state.name}' is of type ${state.settings.type}, which cannot load or unload models (only ollama can)`,
      }
    );
  }

  #busy(backends: readonly string[]): LifecycleRefusal | undefined {
    for (const name of backends) {
      const running = this.operations.busy(name);
      if (running) {
        return {
          status: 409,
          code: "operation_in_progress",
          message: `Backend '${name}' is busy with operation ${running.id} (${running.type} ${running.model}); one operation per backend at a time`,
        };
      }
    }
    return undefined;
  }
}
