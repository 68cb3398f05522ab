import type { BackendState } from "../fleet/backend-state.ts";
import type { EventBus, Priority } from "../telemetry/events.ts";
import { PriorityQueue, type Waiting } from "./priority-queue.ts";
import type { ServiceTimes } from "./service-times.ts";

/** `[queue]`. */
export interface QueueSettings {
  enabled: boolean;
  maxSize: number;
  maxWaitSeconds: number;
}

/** What the queued request is, for its events. */
interface QueuedRequest {
  requestId: string;
  endpoint: "chat" | "embeddings";
  requestedModel: string;
  stream: boolean;
  priority: Priority;
}

interface Callbacks {
  /** Routes again and takes a slot; false to stay queued. */
  offer(): boolean;
  /** max_wait_seconds passed (the entry has left the queue). */
  expired(): void;
}

class QueueEntry implements Waiting {
  readonly enteredAt = performance.now();
  timer: NodeJS.Timeout | undefined;
  offer: () => boolean = () => false;

  constructor(
    readonly request: QueuedRequest,
    readonly eligible: ReadonlySet<string>,
  ) {}

  get priority(): Priority {
    return this.request.priority;
  }
}

export type QueueTicket = QueueEntry;

/**
 * The queue as dispatch uses it: the bounded priority queue plus each request's deadline, and the queued / dequeued
 * events (with the wait) that stats and metrics read.
 */
export class RequestQueue {
  readonly #queue: PriorityQueue<QueueEntry>;

  constructor(
    readonly settings: QueueSettings,
    private readonly events: EventBus,
    private readonly serviceTimes: ServiceTimes,
  ) {
    this.#queue = new PriorityQueue(settings.maxSize);
  }

  get enabled(): boolean {
    return this.settings.enabled;
  }

  get maxSize(): number {
    return this.settings.maxSize;
  }

  get maxWaitSeconds(): number {
    return this.settings.maxWaitSeconds;
  }

  get depth(): number {
    return this.#queue.size;
  }

  /** Queues a request that waits for a slot on one of `blocked`; undefined when the queue is full. */
  enter(request: QueuedRequest, blocked: readonly BackendState[], callbacks: Callbacks): QueueTicket | undefined {
    const scope = {
      requestId: request.requestId,
      endpoint: request.endpoint,
      requestedModel: request.requestedModel,
      stream: request.stream,
      priority: request.priority,
    };
    const entry = new QueueEntry(scope, new Set(blocked.map((state) => state.name)));
    if (!this.#queue.add(entry)) {
      this.events.emit({ type: "queue_rejected", ...scope, depth: this.#queue.size });
      return undefined;
    }
    entry.offer = () => {
      if (!callbacks.offer()) return false;
      clearTimeout(entry.timer);
      // The queue removes the entry once offer() returns; the depth reported is the one after that.
      this.events.emit({
        type: "dequeued",
        ...scope,
        outcome: "dispatched",
        waitMs: performance.now() - entry.enteredAt,
        depth: this.#queue.size - 1,
      });
      return true;
    };
    entry.timer = setTimeout(() => {
      if (!this.#leave(entry, "expired")) return;
      callbacks.expired();
    }, this.settings.maxWaitSeconds * 1000);
    this.events.emit({ type: "queued", ...scope, depth: this.#queue.size });
    return entry;
  }

  /** The request leaves without being served (client gone, shutdown); false when it was no longer queued. */
  leave(entry: QueueTicket, why: "client_gone" | "shutdown"): boolean {
    return this.#leave(entry, why);
  }

  /** A slot freed on `state`: the first queued request it can serve takes it at once. */
  slotFreed(state: BackendState): void {
    this.#queue.slotFreed(state.name, () => state.slots.hasRoom);
  }

  offerAll(): void {
    this.#queue.offerAll();
  }

  /** The wait a new request of `priority` would face for a slot on `blocked`, from observed service times. */
  etaSeconds(blocked: readonly BackendState[], priority: Priority): number | null {
    return this.serviceTimes.etaSeconds(blocked, this.#queue.ahead(priority));
  }

  #leave(entry: QueueEntry, why: "expired" | "client_gone" | "shutdown"): boolean {
    if (!this.#queue.remove(entry)) return false;
    clearTimeout(entry.timer);
    this.events.emit({
      type: "dequeued",
      ...entry.request,
      outcome: why,
      waitMs: performance.now() - entry.enteredAt,
      depth: this.#queue.size,
    });
    return true;
  }
}
