/**
 * The gateway's one event stream. Dispatch emits what happened (a request arrived, an attempt started, finished or
 * failed, a request was queued or left the queue, a backend changed health); stats, quality tracking, service-time
 * estimates, Prometheus metrics and the dashboard subscribe. Emitting is synchronous and cheap: a listener must not
 * block. One that throws is isolated: the emitter and the other listeners go on, the throw is counted per event type
 * and reported once per listener (a listener that throws on every request must not flood the log).
 */

import type { Endpoint, Priority } from "../request/facts.ts";

export type { Endpoint, Priority };

/** Why an attempt failed before the client got an answer, or broke off after it began. */
type AttemptErrorKind = "unreachable" | "timeout" | "http_status" | "broken_stream";

interface RequestScoped {
  requestId: string;
  endpoint: Endpoint;
  /** The model as the client asked for it. */
  requestedModel: string;
  stream: boolean;
}

interface AttemptScoped extends RequestScoped {
  backend: string;
  /** The model sent to the backend (after alias, fallback or substitution). */
  model: string;
  /** 0 for the first attempt, 1 for the first failover... */
  attempt: number;
}

interface RequestReceived extends RequestScoped {
  type: "request_received";
  priority: Priority;
  /** The client's W3C `traceparent` header, if it sent one (the parent of the request's span when tracing). */
  traceparent?: string;
}

interface AttemptStarted extends AttemptScoped {
  type: "attempt_started";
}

/** The backend answered and the answer was relayed (a client-fault 4xx included), or the client left meanwhile. */
interface AttemptFinished extends AttemptScoped {
  type: "attempt_finished";
  /** The HTTP status relayed to the client (0 when the client left before it). */
  status: number;
  outcome: "ok" | "client_error" | "client_abort";
  durationMs: number;
  /** Time to the first byte relayed: the first event of a stream, the whole answer otherwise. */
  ttftMs: number | undefined;
}

/** The backend failed the attempt: before the first byte (the request fails over) or mid-stream. */
interface AttemptFailed extends AttemptScoped {
  type: "attempt_failed";
  errorKind: AttemptErrorKind;
  /** The backend's status for `http_status` failures. */
  status: number | undefined;
  /** Whether the failure is the backend's fault (a 429 is not: it is busy, not broken). */
  backendFault: boolean;
  message: string;
  durationMs: number;
  ttftMs: number | undefined;
}

interface RequestQueued extends RequestScoped {
  type: "queued";
  priority: Priority;
  /** Queue depth including this request. */
  depth: number;
}

/** A request left the queue: dispatched to a backend, or given up (expired, client gone, shutdown). */
interface RequestDequeued extends RequestScoped {
  type: "dequeued";
  priority: Priority;
  outcome: "dispatched" | "expired" | "client_gone" | "shutdown";
  waitMs: number;
  depth: number;
}

/** A request that would have queued was refused at once because the queue was full. */
interface QueueRejected extends RequestScoped {
  type: "queue_rejected";
  priority: Priority;
  depth: number;
}

interface BackendHealthChanged {
  type: "backend_health";
  backend: string;
  from: string;
  to: string;
  reason: string;
}

/**
 * One per request, when its answer is complete or the client left: what the access log, `/v1/history`, metrics and
 * the dashboard's request log show. Rejections (404, 503, budget, validation) included; `backend` is then undefined.
 */
export interface RequestCompleted extends RequestScoped {
  type: "request_completed";
  priority: Priority;
  /** The backend that answered (the last one tried), and the model sent to it. */
  backend: string | undefined;
  model: string | undefined;
  /** Why the router chose the backend (`X-Gateway-Route-Reason`); undefined when no backend was chosen. */
  routeReason: string | undefined;
  /** The status the client got; 499 when it left before the answer was complete. */
  status: number;
  outcome: "ok" | "client_error" | "rejected" | "error" | "client_abort";
  /** Attempts made (0 when rejected before dispatch); more than 1 means the request failed over. */
  attempts: number;
  /** A fallback model answered instead of the one asked for. */
  fallback: boolean;
  queuedMs: number;
  durationMs: number;
  ttftMs: number | undefined;
  /** Tokens as the backend reported them (or estimated where it reported none); undefined when unknown. */
  promptTokens: number | undefined;
  completionTokens: number | undefined;
  costUsd: number | undefined;
  /** The name of the virtual key the request came with (auth on); never the key itself. */
  key?: string;
}

/** Where a backend came from: the config file, mDNS discovery, or an operator at run time. */
export type BackendSource = "config" | "mdns" | "api";

/** The fleet changed at run time: a backend was added, changed or removed. */
interface BackendChanged {
  type: "backend_changed";
  change: "added" | "updated" | "removed";
  backend: string;
  source: BackendSource;
}

/** A backend's model list changed (a probe found new models, a load or unload finished). */
interface ModelsChanged {
  type: "models_changed";
  backend: string;
  added: readonly string[];
  removed: readonly string[];
}

export type OperationType = "load" | "unload" | "migrate";
type OperationStatus = "pending" | "running" | "completed" | "failed" | "cancelled";

/** A model lifecycle operation as `GET /v1/models/operations/{id}` shows it. */
export interface OperationView {
  id: string;
  type: OperationType;
  model: string;
  /** The backend acted on (the target of a migration). */
  backend: string;
  /** The source backend of a migration. */
  from?: string;
  status: OperationStatus;
  /** 0..1 when known (pull progress), else undefined. */
  progress: number | undefined;
  /** What the operation is doing now, for people ("pulling manifest", "loading into memory"). */
  detail: string | undefined;
  error: string | undefined;
  createdAt: string;
  updatedAt: string;
  completedAt: string | undefined;
}

/** A lifecycle operation started, progressed, completed, failed (a timeout included) or was cancelled. */
interface OperationChanged {
  type: "operation";
  operation: OperationView;
}

export type GatewayEvent =
  | RequestReceived
  | RequestCompleted
  | BackendChanged
  | ModelsChanged
  | OperationChanged
  | AttemptStarted
  | AttemptFinished
  | AttemptFailed
  | RequestQueued
  | RequestDequeued
  | QueueRejected
  | BackendHealthChanged;

export type EventType = GatewayEvent["type"];
export type EventOf<T extends EventType> = Extract<GatewayEvent, { type: T }>;
type Listener<T extends EventType> = (event: EventOf<T>) => void;

/** What the bus says of a listener that threw: the first throw of each listener only. */
export type ListenerErrorReporter = (failure: { event: EventType; error: unknown }) => void;

/** A small typed in-process event bus; listeners run synchronously in subscription order. */
export class EventBus {
  readonly #listeners = new Map<EventType, Listener<EventType>[]>();
  readonly #any: ((event: GatewayEvent) => void)[] = [];
  readonly #reported = new WeakSet<object>();
  readonly #reportError: ListenerErrorReporter | undefined;
  /** Throws from listeners, per event type (gateway_event_listener_errors_total). */
  readonly listenerErrors = new Map<EventType, number>();

  constructor(options: { onListenerError?: ListenerErrorReporter } = {}) {
    this.#reportError = options.onListenerError;
  }

  /** Subscribes to one event type; returns the unsubscribe function. */
  on<T extends EventType>(type: T, listener: Listener<T>): () => void {
    let list = this.#listeners.get(type);
    if (!list) {
      list = [];
      this.#listeners.set(type, list);
    }
    list.push(listener as unknown as Listener<EventType>);
    return () => {
      const current = this.#listeners.get(type);
      if (current)
        this.#listeners.set(
          type,
          current.filter((entry) => entry !== (listener as unknown)),
        );
    };
  }

  /** Subscribes to every event (logs, the dashboard socket). */
  onAny(listener: (event: GatewayEvent) => void): () => void {
    this.#any.push(listener);
    return () => {
      const index = this.#any.indexOf(listener);
      if (index >= 0) this.#any.splice(index, 1);
    };
  }

  emit(event: GatewayEvent): void {
    const list = this.#listeners.get(event.type);
    if (list) for (const listener of list) this.#call(listener, event);
    for (const listener of this.#any) this.#call(listener, event);
  }

  #call(listener: (event: never) => void, event: GatewayEvent): void {
    try {
      (listener as (event: GatewayEvent) => void)(event);
    } catch (error) {
      this.listenerErrors.set(event.type, (this.listenerErrors.get(event.type) ?? 0) + 1);
      if (this.#reported.has(listener)) return;
      this.#reported.add(listener);
      this.#reportError?.({ event: event.type, error });
    }
  }

  /** Resolves with the next event of `type` that `match` accepts; rejects after timeoutMs (tests, tools). */
  next<T extends EventType>(type: T, match: (event: EventOf<T>) => boolean = () => true, timeoutMs = 10_000) {
    return new Promise<EventOf<T>>((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(new Error(`no ${type} event within ${timeoutMs} ms`));
      }, timeoutMs);
      const off = this.on(type, (event) => {
        if (!match(event)) return;
        clearTimeout(timer);
        off();
        resolve(event);
      });
    });
  }
}
