import type { ServerResponse } from "node:http";
import type { Logger } from "pino";
import type { BackendState } from "../fleet/backend-state.ts";
import type { Registry } from "../fleet/registry.ts";
import { ApiError } from "../request/errors.ts";
import type { RequestFacts } from "../request/facts.ts";
import type { QualityTracker } from "../routing/quality.ts";
import type { RouteDecision, RouteReason, Target } from "../routing/types.ts";
import type { Endpoint, EventBus, Priority } from "../telemetry/events.ts";
import type { AnswerWriter } from "./answer-writer.ts";
import type { Attempt, AttemptResult } from "./attempt.ts";
import { type AttemptFailure, describeFailure } from "./failure.ts";
import { type DispatchOutcome, DONE, refused } from "./outcome.ts";
import { type QueueSettings, RequestQueue } from "./request-queue.ts";
import { noAvailableBackend } from "./route-errors.ts";
import type { ServiceTimes } from "./service-times.ts";
import { type InFlightEntry, SHUTTING_DOWN_MESSAGE, ShutdownSignal, shuttingDown } from "./shutdown.ts";
import { streamErrorEvent } from "./sse-normaliser.ts";

/** What every event of one attempt says about it. */
interface AttemptScope {
  requestId: string;
  endpoint: Endpoint;
  requestedModel: string;
  stream: boolean;
  backend: string;
  model: string;
  attempt: number;
}

type Decision = RouteDecision<BackendState>;
/** An attempt that settled the request: answered, or refused before anything was written. */
type Settled = Extract<DispatchOutcome, { kind: "done" | "refused" }>;
export type Dispatchable = Extract<Decision, { outcome: "route" | "at_capacity" }>;

/** One request as the pipeline runs it; the endpoint supplies how to route it and how to attempt it. */
export interface DispatchJob {
  endpoint: Endpoint;
  requestId: string;
  /** Filled in with the backend that answered, for the request's log line. */
  facts?: RequestFacts | undefined;
  requestedModel: string;
  stream: boolean;
  priority: Priority;
  /** What the request is, for 503 messages ("chat completions", "embeddings"). */
  what: string;
  /** Routing against the fleet as it is now; run again when a queued request is offered a slot. */
  route(): Decision;
  /**
   * Starts one attempt on `target`: the endpoint's single seam into the backend (where a backend type's request,
   * response and stream transforms apply). May throw an ApiError (the client's fault, e.g. a body it cannot forward).
   * The attempt writes its answer (in OpenAI's format) to `writer`.
   */
  attempt(target: Target<BackendState>, reason: RouteReason, writer: AnswerWriter): Attempt;
}

export interface PipelineOptions {
  registry: Registry;
  events: EventBus;
  serviceTimes: ServiceTimes;
  logger: Logger;
  maxAttempts: number;
  queue: QueueSettings;
  quality?: QualityTracker | undefined;
  shutdown?: ShutdownSignal;
}

/**
 * One request as the pipeline runs it: where it is in its targets, the attempt in flight, its place in the queue. The
 * pipeline drives it with plain promise reactions on each attempt's `done`, not async functions: the common request (one
 * attempt) then costs the attempt's promise and one reaction, where suspended async frames cost four promises more.
 */
interface InFlight {
  readonly job: DispatchJob;
  readonly writer: AnswerWriter;
  /** Runs when the shutdown grace period ends before the request settles (see ShutdownSignal.enter). */
  readonly cut: () => void;
  gone: boolean;
  /** The shutdown grace period ended while it ran. */
  wasCut: boolean;
  attempt: Attempt | undefined;
  leaveQueue: ((why: "client_gone" | "shutdown") => void) | undefined;
  targets: readonly Target<BackendState>[];
  reason: RouteReason;
  /** A target whose slot the request took when it left the queue. */
  held: Target<BackendState> | undefined;
  /** The next target to try. */
  next: number;
  /** Attempts made. */
  made: number;
  failures: AttemptFailure[];
  /** Its place among the requests the shutdown signal may cut. */
  shutdownEntry: InFlightEntry | undefined;
}

/**
 * The one dispatch pipeline for chat and embeddings: decide → (wait in the queue for a slot) → acquire a slot →
 * attempt → release → fail over. It owns backend concurrency (slots are acquired and released here only), the queue
 * and cancellation (client gone, shutdown cut), and it emits one event per step; it keeps no counters of its own.
 * An attempt writes the answer; when there is none to write, the pipeline says why (its outcome) and http/ answers.
 */
export class DispatchPipeline {
  readonly queue: RequestQueue;
  readonly #options: PipelineOptions;
  readonly #shutdown: ShutdownSignal;

  constructor(options: PipelineOptions) {
    this.#options = options;
    this.#shutdown = options.shutdown ?? new ShutdownSignal();
    this.queue = new RequestQueue(options.queue, options.events, options.serviceTimes);
    for (const state of options.registry.backends) {
      state.slots.onRelease(() => this.queue.slotFreed(state));
    }
    // Backends added at run time hand their freed slots to the queue too; when one is added, replaced or removed,
    // requests waiting in the queue are routed again against the fleet as it now is.
    options.registry.onChange((change) => {
      if (change.kind !== "backend") return;
      if (change.change !== "removed") change.state.slots.onRelease(() => this.queue.slotFreed(change.state));
      this.queue.offerAll();
    });
    // A backend that turns healthy may serve requests queued for the others' slots.
    options.registry.onTransition((transition) => {
      if (transition.to === "healthy") this.queue.offerAll();
    });
  }

  /**
   * Runs `job` for the client of `res`; the answer is written to `writer` (the response itself, or an inbound
   * adapter's writer that translates it into its API's format).
   */
  run(
    job: DispatchJob,
    decision: Dispatchable,
    res: ServerResponse,
    writer: AnswerWriter = res,
  ): Promise<DispatchOutcome> {
    const routed = decision.outcome === "route";
    const flight: InFlight = {
      job,
      writer,
      // Past the shutdown grace period: a stream ends with an error event and [DONE], anything else gets a 503.
      cut: () => {
        if (writer.writableEnded || writer.destroyed) return;
        this.#shutdown.countCut();
        flight.gone = true;
        flight.wasCut = true;
        flight.attempt?.abort();
        flight.leaveQueue?.("shutdown");
        if (writer.headersSent) writer.end(streamErrorEvent(SHUTTING_DOWN_MESSAGE, "shutting_down"));
      },
      gone: false,
      wasCut: false,
      attempt: undefined,
      leaveQueue: undefined,
      targets: routed ? decision.targets : [],
      // A queued request takes the reason of the routing that admits it.
      reason: routed ? decision.reason : "capacity-overflow",
      held: undefined,
      next: 0,
      made: 0,
      failures: [],
      shutdownEntry: undefined,
    };
    flight.shutdownEntry = this.#shutdown.enter(flight.cut);
    // The client left while the request waited before its dispatch (the first round of probes, a BPE count): its
    // close has already fired, so nothing would tell the attempt; none is made (nor a cloud call billed).
    if (res.destroyed) return Promise.resolve(this.#finish(flight, DONE));
    try {
      // A response closes once: `on` spares the wrapper `once` makes per request.
      res.on("close", () => {
        if (res.writableFinished) return;
        flight.gone = true;
        flight.attempt?.abort();
        flight.leaveQueue?.("client_gone");
      });
      const outcome = routed ? this.#next(flight) : this.#queued(flight, decision);
      return outcome instanceof Promise ? outcome : Promise.resolve(outcome);
    } catch (error) {
      this.#shutdown.leave(flight.shutdownEntry);
      return Promise.reject(error);
    }
  }

  /** The request settled: it leaves the shutdown guard; one cut before anything was written is answered 503. */
  #finish(flight: InFlight, outcome: DispatchOutcome): DispatchOutcome {
    this.#shutdown.leave(flight.shutdownEntry);
    return flight.wasCut && !flight.writer.headersSent ? refused(shuttingDown()) : outcome;
  }

  /** Something threw while the request ran: it leaves the shutdown guard, and the error goes on to the route. */
  #fail(flight: InFlight, error: unknown): never {
    this.#shutdown.leave(flight.shutdownEntry);
    throw error;
  }

  /** Waits in the queue for a slot, then attempts from the target holding it. */
  #queued(flight: InFlight, decision: Extract<Decision, { outcome: "at_capacity" }>): Promise<DispatchOutcome> {
    const { job } = flight;
    const queuedAt = performance.now();
    return this.#waitForSlot(job, decision, flight).then(
      (admitted) => {
        try {
          if (job.facts) job.facts.queuedMs = performance.now() - queuedAt;
          if ("kind" in admitted) return this.#finish(flight, admitted);
          flight.targets = admitted.targets;
          flight.reason = admitted.reason;
          flight.held = admitted.held;
          return this.#next(flight);
        } catch (error) {
          return this.#fail(flight, error);
        }
      },
      (error: unknown) => this.#fail(flight, error),
    );
  }

  /**
   * Attempts the request's next targets in turn until one settles it: the outcome at once when none could start,
   * else a promise of it. Whatever it returns has passed through #finish.
   */
  #next(flight: InFlight): DispatchOutcome | Promise<DispatchOutcome> {
    const { targets, writer } = flight;
    while (flight.next < targets.length && flight.made < this.#options.maxAttempts) {
      if (flight.gone) {
        // The client left between leaving the queue with a slot and its first attempt: the slot goes back.
        if (flight.held !== undefined) this.#giveBack(flight.held);
        return this.#finish(flight, DONE);
      }
      const target = targets[flight.next++]!;
      // A failover target may have filled up (or lost its half-open trial) since routing: it is skipped.
      if (target !== flight.held && !this.#acquire(target)) continue;
      flight.held = undefined;
      const index = flight.made;
      const reason = index > 0 ? "failover" : flight.reason;
      const started = performance.now();
      let attempt: Attempt;
      try {
        attempt = this.#startAttempt(flight, target, index, reason);
      } catch (error) {
        flight.attempt = undefined;
        this.#giveBack(target);
        if (!(error instanceof ApiError)) throw error;
        return this.#finish(flight, writer.headersSent ? DONE : refused(error));
      }
      return attempt.done.then(
        (result) => {
          try {
            flight.attempt = undefined;
            const settled = this.#attempted(flight, target, index, attempt, result, started);
            flight.made++;
            if (settled !== undefined) return this.#finish(flight, settled);
            return this.#next(flight);
          } catch (error) {
            return this.#fail(flight, error);
          }
        },
        (error: unknown) => {
          flight.attempt = undefined;
          this.#giveBack(target);
          if (!(error instanceof ApiError)) return this.#fail(flight, error);
          return this.#finish(flight, writer.headersSent ? DONE : refused(error));
        },
      );
    }
    if (flight.gone || writer.headersSent) return this.#finish(flight, DONE);
    if (flight.failures.length > 0) return this.#finish(flight, { kind: "failed", failures: flight.failures });
    // Every target filled up between routing and the attempt: as if routing had found them full.
    const fresh = flight.job.route();
    const unavailable = fresh.outcome === "unavailable" || fresh.outcome === "at_capacity" ? fresh : undefined;
    return this.#finish(
      flight,
      unavailable === undefined
        ? { kind: "failed", failures: flight.failures }
        : this.#unavailable(flight.job, unavailable),
    );
  }

  /** Starts one attempt on a held slot (which the caller gives back if this throws). */
  #startAttempt(flight: InFlight, target: Target<BackendState>, index: number, reason: RouteReason): Attempt {
    const { job, writer } = flight;
    const state = target.backend;
    // The backend tried last is the one the request's completion names (the answer may be written before we resume).
    const facts = job.facts;
    if (facts) {
      facts.backend = state.name;
      facts.backendModel = target.model;
      facts.routeReason = reason;
      facts.fallback = target.fallback;
      facts.attempts = index + 1;
    }
    this.#options.events.emit({
      type: "attempt_started",
      requestId: job.requestId,
      endpoint: job.endpoint,
      requestedModel: job.requestedModel,
      stream: job.stream,
      backend: state.name,
      model: target.model,
      attempt: index,
    });
    const attempt = job.attempt(target, reason, writer);
    flight.attempt = attempt;
    return attempt;
  }

  /**
   * Accounts for an attempt that ended and releases its slot: the outcome when it settled the request, else undefined
   * with its failure added to the request's (to fail over from).
   */
  #attempted(
    flight: InFlight,
    target: Target<BackendState>,
    index: number,
    attempt: Attempt,
    result: AttemptResult,
    started: number,
  ): Settled | undefined {
    const { registry, logger } = this.#options;
    const { job } = flight;
    const state = target.backend;
    const durationMs = performance.now() - started;
    const ttftMs = attempt.firstByteAt === undefined ? undefined : attempt.firstByteAt - started;
    const facts = job.facts;
    if (facts) {
      facts.ttftMs = ttftMs;
      facts.promptTokens = attempt.tokens?.promptTokens;
      facts.completionTokens = attempt.tokens?.completionTokens;
      facts.brokenStream = result.kind === "answered" && result.brokenStream !== undefined;
    }
    // Events go out before the slot is released, so estimates and quality see this attempt before the slot moves on;
    // the slot is released whatever happens on the way.
    try {
      this.#reportAttempt(job, target, index, result, durationMs, ttftMs);
    } finally {
      state.slots.release();
    }
    if (result.kind === "gone") return DONE;
    if (result.kind === "answered") {
      if (result.brokenStream) registry.failed(state, result.brokenStream);
      return DONE;
    }
    if (result.markUnhealthy) registry.failed(state, describeFailure(result.failure));
    logger.warn(
      { requestId: job.requestId, backend: state.name },
      `${job.endpoint} attempt failed: ${describeFailure(result.failure)}`,
    );
    flight.failures.push(result.failure);
    return undefined;
  }

  /** Takes a slot on the target's backend (and its half-open trial, if the quality circuit is half-open). */
  #acquire(target: Target<BackendState>): boolean {
    const slots = target.backend.slots;
    if (!slots.hasRoom) return false;
    const quality = this.#options.quality;
    if (quality && !quality.beginAttempt(target.backend.name, target.model)) return false;
    return slots.tryAcquire();
  }

  /** Returns a slot taken for an attempt that never started (and its half-open trial, if it claimed one). */
  #giveBack(target: Target<BackendState>): void {
    this.#options.quality?.record(target.backend.name, target.model, undefined, undefined);
    target.backend.slots.release();
  }

  /** The attempt's event: attempt_failed (a failure or a stream broken mid-way) or attempt_finished. */
  #reportAttempt(
    job: DispatchJob,
    target: Target<BackendState>,
    index: number,
    result: AttemptResult,
    durationMs: number,
    ttftMs: number | undefined,
  ): void {
    const { events } = this.#options;
    if (result.kind === "failed" || (result.kind === "answered" && result.brokenStream !== undefined)) {
      const failure = result.kind === "failed" ? result.failure : undefined;
      const scope = attemptScope(job, target, index);
      events.emit({
        type: "attempt_failed",
        ...scope,
        errorKind:
          failure === undefined
            ? "broken_stream"
            : failure.kind === "status"
              ? "http_status"
              : failure.timedOut
                ? "timeout"
                : "unreachable",
        status: failure?.kind === "status" ? failure.statusCode : undefined,
        backendFault: failure === undefined || result.kind !== "failed" || result.markUnhealthy,
        message: failure === undefined ? (result as { brokenStream: string }).brokenStream : describeFailure(failure),
        durationMs,
        ttftMs,
      });
    } else {
      // Written out, not spread from a scope: the event is built in one allocation of a known shape.
      events.emit({
        type: "attempt_finished",
        requestId: job.requestId,
        endpoint: job.endpoint,
        requestedModel: job.requestedModel,
        stream: job.stream,
        backend: target.backend.name,
        model: target.model,
        attempt: index,
        status: result.kind === "answered" ? result.status : 0,
        outcome: result.kind !== "answered" ? "client_abort" : result.ok ? "ok" : "client_error",
        durationMs,
        ttftMs,
      });
    }
  }

  /**
   * Every capable backend is at capacity: wait in the queue (if enabled and not full) until one of them frees a slot.
   * Resolves with the routing to use and the slot already taken, or the outcome when it may not wait (503) or its
   * client left.
   */
  #waitForSlot(
    job: DispatchJob,
    decision: Extract<Decision, { outcome: "at_capacity" }>,
    flight: InFlight,
  ): Promise<{ targets: Target<BackendState>[]; reason: RouteReason; held: Target<BackendState> } | DispatchOutcome> {
    const blocked = [...new Set(decision.blocked.map((target) => target.backend))];
    if (!this.queue.enabled) return Promise.resolve(this.#unavailable(job, decision));
    return new Promise((resolve) => {
      const entry = this.queue.enter(job, blocked, {
        offer: () => {
          const fresh = job.route();
          if (fresh.outcome !== "route") return false;
          for (const target of fresh.targets) {
            if (!this.#acquire(target)) continue;
            const rest = fresh.targets.filter((other) => other !== target);
            resolve({ targets: [target, ...rest], reason: fresh.reason, held: target });
            return true;
          }
          return false;
        },
        expired: () => {
          flight.leaveQueue = undefined;
          const eta = this.queue.etaSeconds(blocked, job.priority);
          const waited = this.queue.maxWaitSeconds;
          const { error, headers } = noAvailableBackend(job.requestedModel, decision, job.what, {
            etaSeconds: eta,
            message: `Every backend that can serve model '${job.requestedModel}' stayed at capacity for the ${waited} s a request may wait in the queue (queue.max_wait_seconds); retry later`,
            retryAfterSeconds: eta ?? waited,
          });
          resolve(refused(error, headers));
        },
      });
      if (entry === undefined) {
        const eta = this.queue.etaSeconds(blocked, job.priority);
        const { error, headers } = noAvailableBackend(job.requestedModel, decision, job.what, {
          etaSeconds: eta,
          message: `Every backend that can serve model '${job.requestedModel}' is at capacity and the queue is full (queue.max_size ${this.queue.maxSize}); retry later`,
          ...(eta === null ? {} : { retryAfterSeconds: eta }),
        });
        resolve(refused(error, headers));
        return;
      }
      flight.leaveQueue = (why) => {
        flight.leaveQueue = undefined;
        if (this.queue.leave(entry, why)) resolve(DONE);
      };
    });
  }

  #unavailable(
    job: DispatchJob,
    decision: Extract<Decision, { outcome: "unavailable" | "at_capacity" }>,
  ): DispatchOutcome {
    const blocked = decision.outcome === "at_capacity" ? decision.blocked.map((target) => target.backend) : [];
    const eta = blocked.length > 0 ? this.#options.serviceTimes.etaSeconds(blocked, 0) : null;
    const { error, headers } = noAvailableBackend(job.requestedModel, decision, job.what, {
      etaSeconds: eta,
      ...(eta === null ? {} : { retryAfterSeconds: eta }),
    });
    return refused(error, headers);
  }
}

/** What every event of one attempt says about it. */
function attemptScope(job: DispatchJob, target: Target<BackendState>, index: number): AttemptScope {
  return {
    requestId: job.requestId,
    endpoint: job.endpoint,
    requestedModel: job.requestedModel,
    stream: job.stream,
    backend: target.backend.name,
    model: target.model,
    attempt: index,
  };
}
