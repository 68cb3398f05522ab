import { randomUUID } from "node:crypto";
import type { EventBus, OperationType, OperationView } from "../telemetry/events.ts";

/** Operations kept for `GET /v1/models/operations`: the newest this many, finished or not. */
const KEPT_OPERATIONS = 500;

/** What a running operation reports through. */
export interface OperationHandle {
  readonly view: OperationView;
  progress(detail: string, fraction?: number): void;
}

/**
 * Lifecycle operations: at most one running per backend (a second gets 409), each one's changes emitted as
 * `operation` events (the dashboard shows them), kept in a bounded store until newer ones push them out.
 */
export class OperationStore {
  readonly #operations = new Map<string, OperationView>();
  /** Backend name → the operation running on it. */
  readonly #running = new Map<string, OperationView>();

  constructor(private readonly events: EventBus) {}

  get(id: string): OperationView | undefined {
    return this.#operations.get(id);
  }

  /** Newest first. */
  list(): OperationView[] {
    return [...this.#operations.values()].reverse();
  }

  running(): OperationView[] {
    return [...this.#running.values()];
  }

  /** The operation running on `backend`, if any. */
  busy(backend: string): OperationView | undefined {
    return this.#running.get(backend);
  }

  /**
   * Starts `work` as an operation holding `backends` (all free: check with `busy` first). Resolves at once with the
   * operation; `work` runs on, and its outcome completes or fails it.
   */
  start(
    type: OperationType,
    model: string,
    backend: string,
    from: string | undefined,
    backends: readonly string[],
    work: (handle: OperationHandle) => Promise<void>,
  ): OperationView {
    const now = new Date().toISOString();
    const view: OperationView = {
      id: `op-${randomUUID()}`,
      type,
      model,
      backend,
      ...(from === undefined ? {} : { from }),
      status: "running",
      progress: 0,
      detail: "starting",
      error: undefined,
      createdAt: now,
      updatedAt: now,
      completedAt: undefined,
    };
    this.#operations.set(view.id, view);
    while (this.#operations.size > KEPT_OPERATIONS) this.#operations.delete(this.#operations.keys().next().value!);
    for (const name of backends) this.#running.set(name, view);
    this.#emit(view);
    const handle: OperationHandle = {
      view,
      progress: (detail, fraction) => {
        view.detail = detail;
        if (fraction !== undefined) view.progress = Math.max(view.progress ?? 0, Math.min(1, fraction));
        view.updatedAt = new Date().toISOString();
        this.#emit(view);
      },
    };
    work(handle).then(
      () => this.#finish(view, backends, undefined),
      (error: unknown) => this.#finish(view, backends, error instanceof Error ? error.message : String(error)),
    );
    return view;
  }

  #finish(view: OperationView, backends: readonly string[], error: string | undefined): void {
    for (const name of backends) if (this.#running.get(name) === view) this.#running.delete(name);
    const now = new Date().toISOString();
    view.status = error === undefined ? "completed" : "failed";
    view.error = error;
    view.detail = error === undefined ? "done" : "failed";
    if (error === undefined) view.progress = 1;
    view.updatedAt = now;
    view.completedAt = now;
    this.#emit(view);
  }

  #emit(view: OperationView): void {
    this.events.emit({ type: "operation", operation: { ...view } });
  }
}
