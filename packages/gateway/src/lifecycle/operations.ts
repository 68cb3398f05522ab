import { randomUUID } from "node:crypto";
import { asError } from "@switchboard/common";
import type { EventBus, OperationType, OperationView } from "../telemetry/events.ts";

/** Operations kept for `GET /v1/models/operations`: the newest this many, finished or not. */
const KEPT_OPERATIONS = 500;

/** What a running operation reports through. */
export interface OperationHandle {
  readonly view: OperationView;
  /** Aborted when the operation is cancelled or times out: hand it to every backend call the work makes. */
  readonly signal: AbortSignal;
  progress(detail: string, fraction?: number): void;
}

/** The outcome of a cancel request. */
export type Cancelled = { cancelled: OperationView } | { missing: true } | { finished: OperationView };

/** Ends an operation that is cut short: the reason is its error (or, for a cancel, none). */
class OperationStopped extends Error {
  constructor(
    message: string,
    readonly status: "failed" | "cancelled",
  ) {
    super(message);
  }
}

interface Running {
  view: OperationView;
  backends: readonly string[];
  abort: AbortController;
  deadline: NodeJS.Timeout;
}

/**
 * Lifecycle operations: at most one running per backend (a second gets 409), each one's changes emitted as
 * `operation` events (the dashboard shows them), kept in a bounded store until newer ones push them out. An operation
 * holds its backends until it ends, is cancelled, or runs past `timeoutMs` (a pull or a source stream that never
 * ends would hold them for ever): then it ends at once, its backends are free, and its work is aborted.
 */
export class OperationStore {
  readonly #operations = new Map<string, OperationView>();
  /** Backend name → the operation running on it. */
  readonly #holders = new Map<string, OperationView>();
  /** Operation id → what stops it. */
  readonly #running = new Map<string, Running>();

  constructor(
    private readonly events: EventBus,
    private readonly timeoutMs: number,
  ) {}

  get(id: string): OperationView | undefined {
    return this.#operations.get(id);
  }

  /** Newest first. */
  list(): OperationView[] {
    return [...this.#operations.values()].reverse();
  }

  running(): OperationView[] {
    return [...this.#running.values()].map((running) => running.view);
  }

  /** The operation running on `backend`, if any. */
  busy(backend: string): OperationView | undefined {
    return this.#holders.get(backend);
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
    for (const name of backends) this.#holders.set(name, view);
    const abort = new AbortController();
    const seconds = this.timeoutMs / 1000;
    const deadline = setTimeout(
      () =>
        this.#stop(
          view.id,
          new OperationStopped(`timed out after ${seconds} s ([lifecycle] operation_timeout_seconds)`, "failed"),
        ),
      this.timeoutMs,
    );
    deadline.unref();
    this.#running.set(view.id, { view, backends, abort, deadline });
    this.#emit(view);
    const handle: OperationHandle = {
      view,
      signal: abort.signal,
      progress: (detail, fraction) => {
        if (view.status !== "running") return;
        view.detail = detail;
        if (fraction !== undefined) view.progress = Math.max(view.progress ?? 0, Math.min(1, fraction));
        view.updatedAt = new Date().toISOString();
        this.#emit(view);
      },
    };
    work(handle).then(
      () => this.#finish(view, undefined),
      (error: unknown) => this.#finish(view, asError(error)),
    );
    return view;
  }

  /** Cancels a running operation: it ends now (status "cancelled"), its backends are free, its work is aborted. */
  cancel(id: string): Cancelled {
    const view = this.#operations.get(id);
    if (!view) return { missing: true };
    if (!this.#running.has(id)) return { finished: view };
    this.#stop(id, new OperationStopped("cancelled", "cancelled"));
    return { cancelled: view };
  }

  #stop(id: string, reason: OperationStopped): void {
    const running = this.#running.get(id);
    if (!running) return;
    // Finished first, so that whatever the aborted work does next cannot change the outcome.
    this.#finish(running.view, reason);
    running.abort.abort(reason);
  }

  #finish(view: OperationView, error: Error | undefined): void {
    const running = this.#running.get(view.id);
    if (!running) return; // already stopped (cancelled or timed out)
    this.#running.delete(view.id);
    clearTimeout(running.deadline);
    for (const name of running.backends) if (this.#holders.get(name) === view) this.#holders.delete(name);
    const now = new Date().toISOString();
    const stopped = error instanceof OperationStopped ? error.status : undefined;
    view.status = error === undefined ? "completed" : (stopped ?? "failed");
    view.error = error === undefined || stopped === "cancelled" ? undefined : error.message;
    view.detail = error === undefined ? "done" : view.status;
    if (error === undefined) view.progress = 1;
    view.updatedAt = now;
    view.completedAt = now;
    this.#emit(view);
  }

  #emit(view: OperationView): void {
    this.events.emit({ type: "operation", operation: { ...view } });
  }
}
