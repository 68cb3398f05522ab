import { Counter, Gauge, Registry as MetricsRegistry } from "prom-client";
import type { Registry } from "../fleet/registry.ts";
import type { Budget } from "../policy/budget.ts";
import type { RoutingTimings } from "../routing/router.ts";
import type { EventBus, RequestCompleted } from "./events.ts";
import { FastCounter, FastHistogram } from "./fast-metrics.ts";
import { KeyMetrics, spendSeries } from "./key-metrics.ts";
import { registerProcessMetrics } from "./process-metrics.ts";

/** Label value for a model no backend lists: client-chosen names never become label values (bounded cardinality). */
const OTHER_MODEL = "other";
/** Label value where a request reached no backend. */
const NO_BACKEND = "none";

/** Request durations: from a cached answer to a long generation. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
/** Routing runs in microseconds: sub-millisecond buckets. */
const ROUTING_BUCKETS = [0.000_005, 0.000_01, 0.000_025, 0.000_05, 0.000_1, 0.000_25, 0.000_5, 0.001, 0.005, 0.01];

export interface MetricsSources {
  events: EventBus;
  registry: Registry;
  queueDepth: () => number;
  budget: Budget | undefined;
  /** Whether the state store answers (Redis connected); absent: no gauge. */
  stateStoreUp?: () => boolean;
  /** Every key's spend in its budget period, by name (auth on). */
  keySpend?: () => Promise<{ name: string; usd: number }[]>;
}

/**
 * The Prometheus metrics (`GET /metrics`), all read from the event stream or, for gauges, from the fleet, queue and
 * budget at scrape time, so they agree with `/v1/stats` and `/v1/history`. Backend labels are configured names;
 * model labels are models the fleet lists, anything else is "other".
 */
export class GatewayMetrics {
  readonly registry = new MetricsRegistry();
  /** Hand to the router: per-stage timing of each decision. */
  readonly routingTimings: RoutingTimings;
  readonly #fleet: Registry;

  constructor(sources: MetricsSources) {
    const { events, registry: fleet, queueDepth, budget, stateStoreUp, keySpend } = sources;
    this.#fleet = fleet;
    const registers = [this.registry];
    registerProcessMetrics(this.registry);

    const counter = (name: string, help: string, labels: readonly string[]) =>
      new FastCounter(name, help, labels, this.registry);
    const histogram = (name: string, help: string, labels: readonly string[], buckets: readonly number[]) =>
      new FastHistogram(name, help, labels, buckets, this.registry);
    const requests = counter(
      "gateway_requests_total",
      "Completed chat and embeddings requests, by endpoint, model, backend, HTTP status, stream and outcome.",
      ["endpoint", "model", "backend", "status", "stream", "outcome"],
    );
    const duration = histogram(
      "gateway_request_duration_seconds",
      "Time from a request's arrival to its last byte, by endpoint, model and backend.",
      ["endpoint", "model", "backend"],
      DURATION_BUCKETS,
    );
    const ttft = histogram(
      "gateway_time_to_first_token_seconds",
      "Time from an attempt's start to the first byte relayed (first event of a stream), by model and backend.",
      ["model", "backend"],
      DURATION_BUCKETS,
    );
    const errors = counter(
      "gateway_errors_total",
      "Failed attempts (unreachable, timeout, http_status, broken_stream) and requests that failed or were rejected.",
      ["kind", "backend"],
    );
    const fallbacks = counter(
      "gateway_fallbacks_total",
      "Requests answered by a fallback or substitute model, by the model that answered.",
      ["model"],
    );
    const tokens = counter(
      "gateway_tokens_total",
      "Tokens the answers reported, by model, backend and type (prompt, completion).",
      ["model", "backend", "type"],
    );
    const queued = histogram(
      "gateway_queue_wait_seconds",
      "Time requests waited in the queue for a backend slot, by how they left it.",
      ["outcome"],
      DURATION_BUCKETS,
    );
    const routingStage = histogram(
      "gateway_routing_stage_duration_seconds",
      "Time each routing stage (filter, strategy) took per model considered.",
      ["stage"],
      ROUTING_BUCKETS,
    );
    const routingDecisions = histogram(
      "gateway_routing_duration_seconds",
      "Time one routing decision took (aliases, every filter, strategy, fallbacks).",
      [],
      ROUTING_BUCKETS,
    );
    const decisionCell = routingDecisions.cell();
    // Stage names are the router's filters and "strategy": a handful, so their cells are kept.
    const stageCells = new Map<string, ReturnType<FastHistogram["cell"]>>();
    this.routingTimings = {
      stage: (name, seconds) => {
        let cell = stageCells.get(name);
        if (!cell) {
          cell = routingStage.cell(name);
          stageCells.set(name, cell);
        }
        routingStage.observe(cell, seconds);
      },
      decision: (seconds) => routingDecisions.observe(decisionCell, seconds),
    };

    events.on("request_completed", (event) => {
      const model = this.#modelLabel(event);
      const backend = event.backend ?? NO_BACKEND;
      requests.inc(
        requests.cell(event.endpoint, model, backend, String(event.status), String(event.stream), event.outcome),
      );
      duration.observe(duration.cell(event.endpoint, model, backend), event.durationMs / 1000);
      if (event.outcome === "error" || event.outcome === "rejected") errors.inc(errors.cell(event.outcome, backend));
      if (event.fallback && event.model !== undefined) fallbacks.inc(fallbacks.cell(model));
      if (event.promptTokens) tokens.inc(tokens.cell(model, backend, "prompt"), event.promptTokens);
      if (event.completionTokens) tokens.inc(tokens.cell(model, backend, "completion"), event.completionTokens);
    });
    // Key names are label values: bounded to the most recently used ones (key-metrics.ts).
    const keyMetrics = new KeyMetrics(this.registry);
    events.on("request_completed", (event) => {
      if (event.key === undefined) return;
      keyMetrics.record(event.key, event.status, event.promptTokens, event.completionTokens);
    });
    if (keySpend) {
      new Gauge({
        name: "gateway_key_spend_usd",
        help:
          "Spend of each virtual key in its budget period (shared by every replica), by key name; past the 1,000 " +
          "highest spends, the rest summed in key (other).",
        labelNames: ["key"],
        registers,
        async collect() {
          this.reset();
          try {
            for (const { key, usd } of spendSeries(await keySpend())) this.inc({ key }, usd);
          } catch {
            // The store is away: no values rather than a failed scrape (gateway_state_store_up says why).
          }
        },
      });
    }
    if (stateStoreUp) {
      new Gauge({
        name: "gateway_state_store_up",
        help: "1 while the state store answers (Redis connected), else 0 (limits then fail open).",
        registers,
        collect() {
          this.set(stateStoreUp() ? 1 : 0);
        },
      });
    }
    events.on("attempt_finished", (event) => {
      if (event.ttftMs === undefined || event.outcome !== "ok") return;
      ttft.observe(ttft.cell(this.#label(event.model), event.backend), event.ttftMs / 1000);
    });
    events.on("attempt_failed", (event) => errors.inc(errors.cell(event.errorKind, event.backend)));
    events.on("dequeued", (event) => queued.observe(queued.cell(event.outcome), event.waitMs / 1000));

    const perBackend = (name: string, help: string, read: (state: Registry["backends"][number]) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ["backend"],
        registers,
        collect() {
          this.reset();
          for (const state of fleet.backends) this.set({ backend: state.name }, read(state));
        },
      });
    perBackend("gateway_backend_in_flight", "Requests in flight on each backend.", (state) => state.pending);
    perBackend("gateway_backend_healthy", "1 when the backend is healthy, else 0.", (state) => (state.healthy ? 1 : 0));
    perBackend(
      "gateway_backend_probe_latency_seconds",
      "Health-probe latency of each backend (moving average; NaN before the first successful probe).",
      (state) => (state.probeLatencyMs === undefined ? Number.NaN : state.probeLatencyMs / 1000),
    );
    new Gauge({
      name: "gateway_backends",
      help: "Configured backends, by state (total, healthy).",
      labelNames: ["state"],
      registers,
      collect() {
        this.set({ state: "total" }, fleet.backends.length);
        this.set({ state: "healthy" }, fleet.backends.filter((state) => state.healthy).length);
      },
    });
    new Gauge({
      name: "gateway_models",
      help: "Distinct models served by healthy backends.",
      registers,
      collect() {
        this.set(fleet.healthyModelIds().length);
      },
    });
    new Gauge({
      name: "gateway_queue_depth",
      help: "Requests waiting in the queue for a backend slot.",
      registers,
      collect() {
        this.set(queueDepth());
      },
    });
    new Counter({
      name: "gateway_event_listener_errors_total",
      help: "Throws from subscribers of the gateway's event bus (isolated: requests go on), by event type.",
      labelNames: ["event"],
      registers,
      collect() {
        this.reset();
        for (const [event, count] of events.listenerErrors) this.inc({ event }, count);
      },
    });
    if (budget) {
      new Gauge({
        name: "gateway_budget_spend_usd",
        help: "Cloud spend so far, by period (month, day).",
        labelNames: ["period"],
        registers,
        collect() {
          const body = budget.statsBody();
          this.set({ period: "month" }, Number(body["current_spending_usd"]));
          this.set({ period: "day" }, Number(body["daily_spending_usd"]));
        },
      });
      new Gauge({
        name: "gateway_budget_limit_usd",
        help: "Configured budget limits, by period (absent periods have no limit).",
        labelNames: ["period"],
        registers,
        collect() {
          const body = budget.statsBody();
          if (typeof body["monthly_limit_usd"] === "number") this.set({ period: "month" }, body["monthly_limit_usd"]);
          if (typeof body["daily_limit_usd"] === "number") this.set({ period: "day" }, body["daily_limit_usd"]);
        },
      });
      new Gauge({
        name: "gateway_budget_utilization_ratio",
        help: "Spend as a fraction of the tightest limit (1 = limit reached).",
        registers,
        collect() {
          this.set(Number(budget.statsBody()["utilization_percent"]) / 100);
        },
      });
      new Gauge({
        name: "gateway_state_store_failing",
        help: "1 while the budget state file cannot be written (spend is kept in memory and the write retried), else 0.",
        registers,
        collect() {
          this.set(budget.storeCondition.state === "failing" ? 1 : 0);
        },
      });
    }
  }

  /** The Prometheus text exposition. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  #modelLabel(event: RequestCompleted): string {
    return event.model ?? this.#label(event.requestedModel);
  }

  #label(model: string): string {
    return this.#fleet.knows(model) ? model : OTHER_MODEL;
  }
}
